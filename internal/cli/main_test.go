package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// workerDir is where needWorkers builds manydb's worker binaries for the
// tests of this package, so they need no 'make build'; TestMain makes it
// and removes it.
var workerDir string

// built builds the workers into workerDir once, for the first test that
// needs them; the others find them there.
var built struct {
	once sync.Once
	err  error
}

// needWorkers builds every worker family's binary into workerDir, as
// 'make workers' does, unless an earlier test did: the engines whose
// library make build fetched (third_party/) with their build tag, the
// others as stubs that say how to enable them. Linking a dozen binaries
// takes most of a minute, so only the long tests ask for them: under
// -short the package's tests run without.
func needWorkers(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Fatal("a test that runs workers must skip under -short")
	}
	built.once.Do(func() { built.err = buildWorkers(workerDir) })
	if built.err != nil {
		t.Fatal(built.err)
	}
}

// TestMain makes workerDir, runs the tests and removes it.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "manydb-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	workerDir = dir
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
