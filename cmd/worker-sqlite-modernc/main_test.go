package main

import (
	"strings"
	"testing"

	"manydb/internal/engines/enginetest"
)

// TestVersions builds the worker without cgo and checks that it records
// the module version and SQLite's own version.
func TestVersions(t *testing.T) {
	got := enginetest.WorkerVersions(t, "manydb/cmd/worker-sqlite-modernc", "sqlite_modernc")["sqlite_modernc"]
	if got["modernc.org/sqlite"] == "" || !strings.HasPrefix(got["sqlite"], "3.") {
		t.Errorf("versions %v, want modernc.org/sqlite and sqlite 3.x", got)
	}
}
