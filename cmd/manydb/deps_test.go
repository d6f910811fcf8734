package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoEngineAndNoCgo: the orchestrator links no worker, no engine
// adapter and no package of manydb's own that uses cgo, so it builds with
// CGO_ENABLED=0 (as make builds it).
func TestLinksNoEngineAndNoCgo(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{len .CgoFiles}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, cgoFiles, _ := strings.Cut(line, " ")
		switch {
		case path == "manydb/internal/worker", strings.HasPrefix(path, "manydb/internal/engines/"):
			t.Errorf("cmd/manydb links %s", path)
		case strings.HasPrefix(path, "manydb/") && cgoFiles != "0":
			t.Errorf("cmd/manydb links %s, which uses cgo", path)
		}
	}
	cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
}
