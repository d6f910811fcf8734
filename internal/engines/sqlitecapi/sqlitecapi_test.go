package sqlitecapi

import (
	"os"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3" // the SQLite these tests call

	"manydb/internal/engines/enginetest"
	"manydb/internal/engines/sqlnotes"
)

// TestSuite runs the shared adapter suite (every phase, counts checked).
func TestSuite(t *testing.T) {
	v := New("sqlite_capi", nil)
	enginetest.Run(t, enginetest.Case{Variant: v, Objects: 1000, Files: []string{sqlnotes.FileName}, Versions: []string{"sqlite"}})
}

// Open of a folder without a store fails and creates nothing.
func TestOpenMissing(t *testing.T) {
	v := New("sqlite_capi", nil)
	dir := t.TempDir()
	if _, err := v.Open(dir); err == nil {
		t.Fatal("Open of an empty folder succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, sqlnotes.FileName)); !os.IsNotExist(err) {
		t.Errorf("Open made %s (%v)", sqlnotes.FileName, err)
	}
}
