package sqlitecapi

import (
	"os"
	"path/filepath"
	"testing"

	_ "github.com/mattn/go-sqlite3" // the SQLite these tests call

	"manydb/internal/engine"
	"manydb/internal/engines/enginetest"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/workload"
)

// TestSuite runs the shared adapter suite (every phase, counts checked).
func TestSuite(t *testing.T) {
	v, err := New("sqlite_capi", nil)
	if err != nil {
		t.Fatal(err)
	}
	enginetest.Run(t, enginetest.Case{Variant: v, Objects: 1000, Files: []string{sqlnotes.FileName}, Versions: []string{"sqlite"}})
}

// Open of a folder without a store fails and creates nothing.
func TestOpenMissing(t *testing.T) {
	v, _ := New("sqlite_capi", nil)
	dir := t.TempDir()
	if _, err := v.Open(dir); err == nil {
		t.Fatal("Open of an empty folder succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, sqlnotes.FileName)); !os.IsNotExist(err) {
		t.Errorf("Open made %s (%v)", sqlnotes.FileName, err)
	}
}

// TestLean runs the suite under lean and checks that lean's options are in
// effect on an open store, and gone again under the default: the page
// cache (PRAGMA cache_size), the mmap size and the lookaside (its hits).
func TestLean(t *testing.T) {
	f := engine.Factory{ID: "sqlite_capi", Lean: func() (engine.Variant, error) { return NewLean("sqlite_capi", nil, true) }}
	enginetest.Lean(t, f, enginetest.Case{Objects: 1000, Files: []string{sqlnotes.FileName}, Versions: []string{"sqlite"}})

	lean, err := NewLean("sqlite_capi", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	dir := enginetest.MakeStores(t, lean, 1, workload.Spec{Name: "small", Objects: 100, TextLen: 300})[0]
	check := func(v *Variant, cache, mmap int64, lookaside bool) {
		t.Helper()
		s, err := v.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		st := s.(*store)
		if n, err := st.Count(); err != nil || n != 100 {
			t.Fatalf("count %d, %v", n, err)
		}
		if got, err := st.queryInt("PRAGMA cache_size"); err != nil || got != cache {
			t.Errorf("%v: cache_size %d, %v; want %d", v.Options(), got, err, cache)
		}
		if got, err := st.queryInt("PRAGMA mmap_size"); err != nil || got != mmap {
			t.Errorf("%v: mmap_size %d, %v; want %d", v.Options(), got, err, mmap)
		}
		if hits := st.lookasideHits(); (hits > 0) != lookaside {
			t.Errorf("%v: %d lookaside hits; want lookaside %t", v.Options(), hits, lookaside)
		}
	}
	check(lean, -64, sqlnotes.LeanMmapSize, false)
	def, err := New("sqlite_capi", nil)
	if err != nil {
		t.Fatal(err)
	}
	check(def, -2000, 0, true)
}

// TestShared checks the shared layout (enginetest.CheckShared), under
// the default and the lean configuration.
func TestShared(t *testing.T) {
	for _, lean := range []bool{false, true} {
		var v *Variant
		var err error
		if lean {
			v, err = NewLean("sqlite_capi", nil, true)
		} else {
			v, err = New("sqlite_capi", nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		enginetest.CheckShared(t, v)
		enginetest.CheckSharedConns(t, v)
		enginetest.CheckAgentViewAllocs(t, v, 64) // its Queries, connection, store, agent and vector statements: 56 bytes
	}
}

// TestWAL checks the wal setting, alone and with lean's pragma.
func TestWAL(t *testing.T) {
	v, err := New("sqlite_capi", nil)
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckWAL(t, v, sqlnotes.FileName)
	lean, err := NewLean("sqlite_capi", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckWAL(t, lean, sqlnotes.FileName)
}

// TestWALSyncsEveryCommit: the shared store and a store opened under the
// wal setting run synchronous=FULL (2), though the SQLite linked here
// defaults to NORMAL (1) in WAL mode; the default per-agent store keeps
// SQLite's FULL in its rollback journal.
func TestWALSyncsEveryCommit(t *testing.T) {
	v, err := New("sqlite_capi", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sh, err := v.CreateShared(dir)
	if err != nil {
		t.Fatal(err)
	}
	sh.Close()
	if sh, err = v.OpenShared(dir); err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	if n, err := sh.(*shared).conns.First().queryInt("PRAGMA synchronous"); err != nil || n != 2 {
		t.Errorf("shared store: synchronous = %d, %v; want 2 (FULL)", n, err)
	}
	v.UseWAL()
	d2 := t.TempDir()
	s, err := v.Create(d2)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for q, want := range map[string]int64{"PRAGMA synchronous": 2} {
		if n, err := s.(*store).queryInt(q); err != nil || n != want {
			t.Errorf("under wal: %s = %d, %v; want %d", q, n, err, want)
		}
	}
}
