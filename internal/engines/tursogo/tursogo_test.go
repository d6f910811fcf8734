package tursogo

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"manydb/internal/engines/enginetest"
	"manydb/internal/results"
	"manydb/internal/worker"
	"manydb/internal/workload"
)

// TestPhases runs every phase of a tiny study with the real library.
func TestPhases(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	spec := workload.Spec{Name: "custom", Objects: 50, TextLen: 300}
	job := worker.Job{Variant: "turso_go", Dir: dir, Stores: 5, Workload: spec}
	run := func(phase string, edit func(*worker.Job)) results.Record {
		t.Helper()
		return enginetest.Phase(t, v, job, phase, edit)
	}

	rec := run(results.PhaseCreate, nil)
	if len(rec.CreateMs) != 5 {
		t.Fatalf("create: %d samples, want 5", len(rec.CreateMs))
	}
	// The open phase checks every count against Objects.
	rec = run(results.PhaseOpen, func(j *worker.Job) { j.Run, j.Seed = 1, 1 })
	if len(rec.OpenMs) != 5 || len(rec.QueryMs) != 5 || len(rec.CloseMs) != 5 {
		t.Fatalf("open: %d/%d/%d samples, want 5 each", len(rec.OpenMs), len(rec.QueryMs), len(rec.CloseMs))
	}
	wrong := job
	wrong.Phase, wrong.Run, wrong.Seed = results.PhaseOpen, 1, 1
	wrong.Workload.Objects = 51
	if _, err := worker.RunJob(wrong, v, io.Discard); err == nil || !strings.Contains(err.Error(), "count returned 50") {
		t.Fatalf("open with a wrong expected count: err = %v, want a count error", err)
	}
	rec = run(results.PhaseHold, func(j *worker.Job) { j.Hold = 5 })
	if rec.Hold == nil || rec.Hold.Held != 5 {
		t.Fatalf("hold: %+v", rec.Hold)
	}
	if rec.Hold.FDs-rec.Hold.FDsBefore < 5 {
		t.Errorf("hold: %d open files with 5 stores open, %d before: want at least one per store", rec.Hold.FDs, rec.Hold.FDsBefore)
	}
	rec = run(results.PhaseSpace, nil)
	if want := []string{FileName, FileName + "-wal"}; !slices.Equal(rec.Files, want) {
		t.Errorf("space: files %v, want %v", rec.Files, want)
	}
	for i, b := range rec.ApparentBytes {
		if b < 50*300 {
			t.Errorf("store %d: %d bytes, want at least the notes' text", i, b)
		}
	}
	if !strings.HasPrefix(rec.Versions["turso_core"], "0.") {
		t.Errorf("versions %v: want turso_core 0.x", rec.Versions)
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
