//go:build turso

package turso

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/results"
	"manydb/internal/worker"
	"manydb/internal/workload"
)

// This package links rust/turso-capi's static library, built by
// scripts/build-turso.sh (make build); without it the test binary does not
// link, so 'make test' leaves the package out when cargo could not build it.

var spec = workload.Spec{Name: "custom", Objects: 200, TextLen: 300}

func runJob(t *testing.T, v engine.Variant, job worker.Job) results.Record {
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

// TestPhases runs create, open (counts checked by the worker), hold and
// space on a few real stores with both variants, and checks what the
// files look like after close.
func TestPhases(t *testing.T) {
	const stores = 3
	for _, newV := range []func() (engine.Variant, error){New, NewCheckpoint} {
		v, err := newV()
		if err != nil {
			t.Fatal(err)
		}
		t.Run(v.ID(), func(t *testing.T) {
			dir := t.TempDir()
			rec := runJob(t, v, worker.Job{Phase: results.PhaseCreate, Dir: dir, Stores: stores})
			if len(rec.CreateMs) != stores {
				t.Fatalf("create: %d samples, want %d", len(rec.CreateMs), stores)
			}
			for _, k := range []string{"turso_core", "turso_sdk_kit"} {
				if got := rec.Versions[k]; !strings.HasPrefix(got, "0.8.") {
					t.Errorf("versions[%s] = %q, want 0.8.x", k, got)
				}
			}
			if got := rec.Versions["rustc"]; !strings.Contains(got, ".") || strings.HasPrefix(got, "rustc") {
				t.Errorf("versions[rustc] = %q", got)
			}
			for _, phase := range []string{"create", "open"} {
				if phase == "open" {
					rec = runJob(t, v, worker.Job{Phase: results.PhaseOpen, Dir: dir, Stores: stores, Run: 1, Seed: 1})
					if len(rec.TotalMs) != stores {
						t.Fatalf("open: %d samples, want %d", len(rec.TotalMs), stores)
					}
				}
				st := worker.StoreDir(dir, 0)
				db, wal := size(t, filepath.Join(st, FileName)), size(t, filepath.Join(st, FileName+"-wal"))
				t.Logf("after %s: notes.db %d bytes, notes.db-wal %d bytes", phase, db, wal)
				if v.ID() == IDCheckpoint && (wal != 0 || db <= 4096) {
					t.Errorf("after %s: notes.db %d, -wal %d bytes; want the WAL checkpointed (empty)", phase, db, wal)
				}
				if v.ID() == IDTurso && wal == 0 {
					t.Errorf("after %s: -wal is empty: turso's close now checkpoints; update the package doc", phase)
				}
			}
			rec = runJob(t, v, worker.Job{Phase: results.PhaseHold, Dir: dir, Stores: stores, Hold: 2})
			if rec.Hold == nil || rec.Hold.Held != 2 {
				t.Fatalf("hold: %+v", rec.Hold)
			}
			rec = runJob(t, v, worker.Job{Phase: results.PhaseSpace, Dir: dir, Stores: stores})
			for i, b := range rec.Bytes {
				if b <= 0 {
					t.Errorf("space: store %d takes %d bytes", i, b)
				}
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
