package sqlitemodernc

import (
	"fmt"
	"maps"
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
	c, err := v.(*Variant).ConnectStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for pragma, want := range map[string]string{"synchronous": "2", "busy_timeout": "5000", "journal_mode": "delete"} {
		row, err := sqlnotes.QueryRow(c, "PRAGMA "+pragma, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(row[0]); got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
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

// TestLean runs the suite under lean and checks that a store's connection
// has lean's page cache and mmap size, and the default's under New.
func TestLean(t *testing.T) {
	enginetest.Lean(t, Factories()[0], enginetest.Case{Files: []string{FileName}, Versions: []string{"sqlite"}})
	for _, c := range []struct {
		new         func() (engine.Variant, error)
		cache, mmap string
	}{{NewLean, sqlnotes.LeanCacheSize, fmt.Sprint(sqlnotes.LeanMmapSize)}, {New, "-2000", "0"}} {
		v, err := c.new()
		if err != nil {
			t.Fatal(err)
		}
		conn, err := v.(*Variant).ConnectStore(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"cache_size": c.cache, "mmap_size": c.mmap}
		if got, err := sqlnotes.Pragmas(conn, "cache_size", "mmap_size"); err != nil || !maps.Equal(got, want) {
			t.Errorf("%v: pragmas %v, %v; want %v", v.(*Variant).Options(), got, err, want)
		}
		conn.Close()
	}
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

func TestShared(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckShared(t, v)
	enginetest.CheckSharedConns(t, v)
	enginetest.CheckAgentViewAllocs(t, v, 16) // its store and its agent (sqlnotes)
}

func TestWAL(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckWAL(t, v, FileName)
}
