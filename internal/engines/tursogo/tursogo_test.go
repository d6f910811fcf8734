package tursogo

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"manydb/internal/engines/enginetest"
	"manydb/internal/workload"
)

// TestSuite runs the shared adapter suite with the real library, and
// checks what turso-go's stores hold.
func TestSuite(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	recs := enginetest.Run(t, enginetest.Case{Variant: v, Objects: 50, Versions: []string{"turso_core"},
		CorruptAborts: "turso-go's library panics across its C ABI on a corrupt notes.db, which aborts the process (docs/engines.md)"})
	space := recs[4]
	if want := []string{FileName, FileName + "-wal"}; !slices.Equal(space.Files, want) {
		t.Errorf("space: files %v, want %v", space.Files, want)
	}
}

// TestCloseLeavesWAL documents that close does not checkpoint: the notes
// stay in the WAL and the main file keeps only its first page.
func TestCloseLeavesWAL(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := v.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	notes := make([]workload.Note, 100)
	workload.Spec{TextLen: 300}.Fill(0, notes)
	if err := s.Insert(notes); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	wal, err := os.Stat(filepath.Join(dir, FileName+"-wal"))
	if err != nil {
		t.Fatalf("no WAL after close: %v", err)
	}
	if db.Size() > 4096 || wal.Size() < 100*300 {
		t.Errorf("after close: %s %d bytes, WAL %d bytes; want the notes in the WAL (no checkpoint at close)", FileName, db.Size(), wal.Size())
	}
	// The data is read back from the WAL.
	s2, err := v.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if n, err := s2.Count(); err != nil || n != 100 {
		t.Fatalf("count after reopen: %d, %v; want 100", n, err)
	}
}

// TestMissing checks that missing paths give errors, not an abort.
func TestMissing(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := v.Open(missing); err == nil {
		t.Error("opening a store in a missing directory succeeded")
	}
	if _, err := v.Create(missing); err == nil {
		t.Error("creating a store in a missing directory succeeded")
	}
	empty := t.TempDir()
	if _, err := v.Open(empty); err == nil {
		t.Error("opening a store with no database file succeeded")
	}
	if _, err := os.Stat(filepath.Join(empty, FileName)); err == nil {
		t.Errorf("Open created %s in an empty directory", FileName)
	}
}

// TestVectors checks the knn with Turso's vector functions: an exact scan
// (ORDER BY vector_distance_cos), so every answer must be exact.
func TestVectors(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckVectors(t, v, 1)
}
