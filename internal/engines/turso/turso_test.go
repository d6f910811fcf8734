//go:build turso

package turso

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/enginetest"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/worker"
	"manydb/internal/workload"
)

// These tests link rust/turso-capi's static library, built by
// scripts/build-capi.sh turso (make build); they compile only with the
// build tag turso, which make test sets when the library is there.

var spec = workload.Spec{Name: "custom", Objects: 200, TextLen: 300}

func runJob(t *testing.T, v engine.Variant, job job.Job) results.Record {
	t.Helper()
	job.Variant, job.Workload = v.ID(), spec
	var stderr bytes.Buffer
	rec, err := worker.RunJob(job, v, &stderr)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", v.ID(), job.Phase, err, stderr.String())
	}
	return rec
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestSuite runs the shared adapter suite with both variants, and checks
// what the files look like after close: turso leaves its notes in the WAL,
// turso_ckpt checkpoints it into notes.db.
func TestSuite(t *testing.T) {
	for _, newV := range []func() (engine.Variant, error){New, NewCheckpoint} {
		v, err := newV()
		if err != nil {
			t.Fatal(err)
		}
		t.Run(v.ID(), func(t *testing.T) {
			dir := t.TempDir()
			recs := enginetest.Run(t, enginetest.Case{Variant: v, Objects: 200, Dir: dir, Versions: []string{"turso_core", "turso_sdk_kit"}})
			for _, k := range []string{"turso_core", "turso_sdk_kit"} {
				if got := recs[0].Versions[k]; !strings.HasPrefix(got, "0.8.") {
					t.Errorf("versions[%s] = %q, want 0.8.x", k, got)
				}
			}
			if got := recs[0].Versions["rustc"]; !strings.Contains(got, ".") || strings.HasPrefix(got, "rustc") {
				t.Errorf("versions[rustc] = %q", got)
			}
			st := job.StoreDir(dir, 1, 0)
			db, wal := size(t, filepath.Join(st, FileName)), size(t, filepath.Join(st, FileName+"-wal"))
			if v.ID() == IDCheckpoint && (wal != 0 || db <= 4096) {
				t.Errorf("notes.db %d, -wal %d bytes; want the WAL checkpointed (empty)", db, wal)
			}
			if v.ID() == IDTurso && wal == 0 {
				t.Errorf("-wal is empty: turso's close now checkpoints; update docs/engines.md")
			}
		})
	}
}

// TestCountAfterReopen: notes written by one variant are counted by both
// after a reopen, and a second insert of the same ids fails (primary key)
// without changing the count.
func TestCountAfterReopen(t *testing.T) {
	dir := t.TempDir()
	notes := make([]workload.Note, 25)
	spec.Fill(0, notes)
	v, _ := New()
	s, err := v.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(notes); err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(notes[:1]); err == nil {
		t.Error("inserting an existing id succeeded; want a constraint error")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, newV := range []func() (engine.Variant, error){New, NewCheckpoint} {
		v, _ := newV()
		s, err := v.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.Count()
		if err != nil || n != int64(len(notes)) {
			t.Errorf("%s: count %d, %v; want %d", v.ID(), n, err, len(notes))
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err == nil {
			t.Error("second close succeeded")
		}
	}
}

// TestMissingPath: opening a store that does not exist is a clear error,
// both in Go (Open checks for notes.db) and in the library (a database in
// a missing directory: an error, not a crash).
func TestMissingPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-store")
	v, _ := New()
	if _, err := v.Open(missing); err == nil || !strings.Contains(err.Error(), "create the stores first") {
		t.Errorf("Open of a missing store: %v; want an error saying to create the stores", err)
	}
	if _, err := v.Create(missing); err == nil {
		t.Error("Create in a missing directory succeeded")
	}
	s, err := open(filepath.Join(missing, FileName), false)
	if err == nil {
		s.Close()
		t.Fatal("the library opened a database in a missing directory")
	}
	if !strings.HasPrefix(err.Error(), "turso: open:") {
		t.Errorf("error %q, want it to start with turso: open:", err)
	}
	t.Logf("as expected: %v", err)
}

// TestVectors checks both variants' knn: Turso's vector functions in an
// exact scan, so every answer must have recall 1 (enginetest.CheckVectors).
func TestVectors(t *testing.T) {
	for _, newV := range []func() (engine.Variant, error){New, NewCheckpoint} {
		v, err := newV()
		if err != nil {
			t.Fatal(err)
		}
		t.Run(v.ID(), func(t *testing.T) {
			if search := v.(engine.VectorVariant).VectorSearch(); !search.Exact || !strings.Contains(search.Method, "vector_distance_cos") {
				t.Errorf("VectorSearch() = %+v; want Turso's exact scan", search)
			}
			enginetest.CheckVectors(t, v, 1)
		})
	}
}

// TestShared runs enginetest.CheckShared and CheckSharedVectors with turso
// and turso_ckpt: two agents with look-alike notes, each answering its
// own only, before and after a reopen, appends and a delete.
func TestShared(t *testing.T) {
	for _, v := range []engine.Variant{&Variant{}, &Variant{checkpoint: true}} {
		t.Run(v.ID(), func(t *testing.T) {
			enginetest.CheckShared(t, v)
			enginetest.CheckSharedVectors(t, v)
		})
	}
}
