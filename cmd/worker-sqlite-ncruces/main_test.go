package main

import (
	"strings"
	"testing"

	"manydb/internal/engines/enginetest"
)

// TestVersions builds the worker without cgo and checks that it records
// the module version and SQLite's own version.
func TestVersions(t *testing.T) {
	got := enginetest.WorkerVersions(t, "manydb/cmd/worker-sqlite-ncruces", "sqlite_ncruces")["sqlite_ncruces"]
	if got["github.com/ncruces/go-sqlite3"] == "" || !strings.HasPrefix(got["sqlite"], "3.") {
		t.Errorf("versions %v, want github.com/ncruces/go-sqlite3 and sqlite 3.x", got)
	}
}
