package libsql

import (
	"database/sql/driver"
	"io"
	"os"
	"path/filepath"
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
	job := worker.Job{Variant: "libsql", Dir: dir, Stores: 5, Workload: spec}
	run := func(phase string, edit func(*worker.Job)) results.Record {
		t.Helper()
		return enginetest.Phase(t, v, job, phase, edit)
	}

	rec := run(results.PhaseCreate, nil)
	if len(rec.CreateMs) != 5 {
		t.Fatalf("create: %d samples, want 5", len(rec.CreateMs))
	}
	if _, err := os.Stat(filepath.Join(worker.StoreDir(dir, 0), FileName)); err != nil {
		t.Fatalf("create made no %s: %v", FileName, err)
	}
	// The open phase checks every count against Objects.
	rec = run(results.PhaseOpen, func(j *worker.Job) { j.Run, j.Seed = 1, 1 })
	if len(rec.OpenMs) != 5 || len(rec.QueryMs) != 5 || len(rec.CloseMs) != 5 {
		t.Fatalf("open: %d/%d/%d samples, want 5 each", len(rec.OpenMs), len(rec.QueryMs), len(rec.CloseMs))
	}
	// A wrong count must fail the phase.
	if _, err := worker.RunJob(worker.Job{Variant: "libsql", Phase: results.PhaseOpen, Dir: dir, Stores: 5,
		Workload: workload.Spec{Name: "custom", Objects: 51, TextLen: 300}, Run: 1, Seed: 1}, v, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "count returned 50") {
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
	if len(rec.Files) != 1 || rec.Files[0] != FileName {
		t.Errorf("space: files %v, want [%s] (journal_mode=DELETE leaves no other file)", rec.Files, FileName)
	}
	for i, b := range rec.ApparentBytes {
		if b < 50*300 {
			t.Errorf("store %d: %d bytes, want at least the notes' text", i, b)
		}
	}
	if rec.Versions["libsql"] == "" || !strings.HasPrefix(rec.Versions["sqlite"], "3.") {
		t.Errorf("versions %v: want libsql and sqlite 3.x", rec.Versions)
	}
}

// TestNotes checks that the notes are written with their values: go-libsql
// binds an argument's Ordinal as the parameter index.
func TestNotes(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := v.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	notes := []workload.Note{{ID: 7, Text: "seven", Ts: 70}, {ID: 9, Text: "nine", Ts: 90}}
	if err := s.Insert(notes); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := v.(*Variant).open(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.q.QueryContext(t.Context(), "SELECT id, text, ts FROM notes ORDER BY id", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	dest := make([]driver.Value, 3)
	for _, want := range notes {
		if err := rows.Next(dest); err != nil {
			t.Fatal(err)
		}
		if dest[0] != want.ID || dest[1] != want.Text || dest[2] != want.Ts {
			t.Errorf("row %v, want %v", dest, want)
		}
	}
}

func TestOpenMissing(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Open(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Fatal("opening a store in a missing directory succeeded")
	}
}
