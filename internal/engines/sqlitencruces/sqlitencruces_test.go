package sqlitencruces

import (
	"strconv"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/enginetest"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/workload"
)

func TestEndToEnd(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.Run(t, enginetest.Case{Variant: v, Files: []string{FileName},
		Versions: []string{"sqlite", "sqlite_source_id"}})
	if got := v.Versions()["sqlite"]; !strings.HasPrefix(got, "3.") {
		t.Errorf("sqlite version %q, want 3.x", got)
	}
}

// TestPragmas checks that a store's connection syncs FULL, waits on a busy
// lock and uses the rollback journal, as the sqlite variant's does.
func TestPragmas(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	checkPragmas(t, v, map[string]string{"synchronous": "2", "busy_timeout": "5000", "journal_mode": "delete", "cache_size": "-2000", "mmap_size": "0"})
}

// TestLean runs the suite under lean and checks that a store's connection
// has lean's page cache and mmap size.
func TestLean(t *testing.T) {
	enginetest.Lean(t, Factories()[0], enginetest.Case{Files: []string{FileName}, Versions: []string{"sqlite"}})
	v, err := NewLean()
	if err != nil {
		t.Fatal(err)
	}
	checkPragmas(t, v, map[string]string{"synchronous": "2", "cache_size": sqlnotes.LeanCacheSize, "mmap_size": strconv.Itoa(sqlnotes.LeanMmapSize)})
}

// checkPragmas checks the pragmas of a new store's connection.
func checkPragmas(t *testing.T, v engine.Variant, pragmas map[string]string) {
	t.Helper()
	c, err := v.(*Variant).connect(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for pragma, want := range pragmas {
		st, _, err := c.Prepare("PRAGMA " + pragma)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Step() {
			t.Fatalf("PRAGMA %s: no row: %v", pragma, st.Err())
		}
		if got := st.ColumnText(0); got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
		st.Close()
	}
}

// TestPerStore measures what one open store holds (go test -v shows it)
// and checks that a close gives it all back.
func TestPerStore(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.PerStore(t, v, 4, workload.Spec{Objects: 100, TextLen: 60})
}

// TestVectors checks the knn, default and lean: a scan in Go, so every
// answer must be exact.
func TestVectors(t *testing.T) {
	for _, mk := range []func() (engine.Variant, error){New, NewLean} {
		v, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		enginetest.CheckVectors(t, v, 1)
	}
}
