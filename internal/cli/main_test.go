package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// workerDir is where TestMain builds manydb's worker binaries for the
// tests of this package, so they need no 'make build'.
var workerDir string

// TestMain builds every worker family's binary into a temporary directory,
// as 'make workers' does: the engines whose library make build fetched
// (third_party/) with their build tag, the others as stubs that say how to
// enable them.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "manydb-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	workerDir = dir
	if err := buildWorkers(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildWorkers builds every command of cmd/ (the workers and manydb) into dir.
func buildWorkers(dir string) error {
	var tags []string
	for tag, lib := range map[string]string{
		"objectbox": "../../third_party/objectbox/lib/libobjectbox.so",
		"turso":     "../../third_party/turso-capi/target/release/libmanydb_turso_capi.a",
		"libsql":    "../../third_party/libsql-capi/target/release/libmanydb_libsql_capi.a",
	} {
		if _, err := os.Stat(lib); err == nil {
			tags = append(tags, tag)
		}
	}
	// One go build for all of them: it links them in parallel.
	build := exec.Command("go", "build", "-tags", strings.Join(tags, ","), "-o", dir+string(filepath.Separator), "../../cmd/...")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ../../cmd/...: %v\n%s", err, out)
	}
	return nil
}
