package worker

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
)

// runPhases runs phases on j's stores with the fake variant id and
// returns their records; it fails the test on an error.
func runPhases(t *testing.T, id string, j job.Job, phases ...job.Phase) []results.Record {
	t.Helper()
	v := newFake(t, id)
	var recs []results.Record
	for _, p := range phases {
		j.Phase, j.Seed, j.Hold = p, 3, 4
		rec, err := RunJob(j, v, io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// TestSharedLayout runs the phases of the shared layout with the fake
// engine: every agent in the one shared directory, no store directory of
// its own, the shared store's space once, a turn and then the delete of
// one agent in ten, whose files are gone and whose space the record
// counts.
func TestSharedLayout(t *testing.T) {
	j := fakeJob(t, job.PhaseCreate)
	j.Stores, j.Layout = 20, job.LayoutShared
	recs := runPhases(t, "fake", j, job.PhaseCreate, job.PhaseOpen, job.PhaseHold, job.PhaseSpace, job.PhaseTurn)
	for _, r := range recs {
		if r.Layout != job.LayoutShared || !strings.Contains(r.SharedLayout, "FAKE") {
			t.Errorf("%s: layout %q, %q; want shared and the fake's description", r.Phase, r.Layout, r.SharedLayout)
		}
	}
	if len(recs[0].CreateMs) != j.Stores {
		t.Errorf("create: %d samples, want %d", len(recs[0].CreateMs), j.Stores)
	}
	if _, err := os.Stat(job.StoreDir(j.Dir, 0, 0)); !os.IsNotExist(err) {
		t.Errorf("store 0 has a directory of its own in the shared layout: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(job.SharedDir(j.Dir), "*.json"))
	if len(files) != j.Stores {
		t.Errorf("the shared store holds %d agents' files, want %d", len(files), j.Stores)
	}
	if sp := recs[3]; sp.SharedBytes == nil || *sp.SharedBytes <= 0 || sp.Bytes != nil {
		t.Errorf("space: shared bytes %v, per store %v; want the shared store's once", sp.SharedBytes, sp.Bytes)
	}
	j.Appended = 1
	del := runPhases(t, "fake", j, job.PhaseDelete)[0]
	n := job.DeleteAgents(j.Stores)
	if len(del.DeleteMs) != n || len(del.ExportMs) != n || len(del.FreedBytes) != n || len(del.ExportBytes) != n {
		t.Fatalf("delete: %d/%d/%d/%d samples, want %d", len(del.DeleteMs), len(del.ExportMs), len(del.FreedBytes), len(del.ExportBytes), n)
	}
	files, _ = filepath.Glob(filepath.Join(job.SharedDir(j.Dir), "*.json"))
	if len(files) != j.Stores-n {
		t.Errorf("after the delete the shared store holds %d agents, want %d", len(files), j.Stores-n)
	}
	for k, order := 0, Order(j.Stores, 3); k < n; k++ {
		if _, err := os.Stat(filepath.Join(job.SharedDir(j.Dir), fmt.Sprintf("%06d.json", order[k]))); !os.IsNotExist(err) {
			t.Errorf("agent %d was deleted, but its file is there: %v", order[k], err)
		}
		if del.FreedBytes[k] <= 0 || del.ExportBytes[k] <= 0 {
			t.Errorf("agent %d: freed %d bytes, exported %d; want both above 0", order[k], del.FreedBytes[k], del.ExportBytes[k])
		}
	}
}

// TestDeletePerAgent: the delete phase removes the store directories of
// one agent in ten, the others stay, and the export checks the notes it
// reads: an engine that leaves one out fails the phase.
func TestDeletePerAgent(t *testing.T) {
	j := fakeJob(t, job.PhaseCreate)
	j.Stores = 20
	del := runPhases(t, "fake", j, job.PhaseCreate, job.PhaseDelete)[1]
	if len(del.DeleteMs) != 2 || del.Layout != "" {
		t.Fatalf("delete: %d samples, layout %q; want 2, per agent", len(del.DeleteMs), del.Layout)
	}
	order := Order(j.Stores, 3)
	for i := range j.Stores {
		_, err := os.Stat(job.StoreDir(j.Dir, i, 0))
		if gone := os.IsNotExist(err); gone != (i == order[0] || i == order[1]) {
			t.Errorf("store %d: gone %t, want gone only for the two deleted", i, gone)
		}
	}
	if _, err := os.Stat(filepath.Join(j.Dir, "exports")); !os.IsNotExist(err) {
		t.Errorf("the exports' directory is left: %v", err)
	}

	j = fakeJob(t, job.PhaseCreate)
	runPhases(t, "fake", j, job.PhaseCreate)
	j.Phase, j.Seed = job.PhaseDelete, 3
	if _, err := RunJob(j, newFake(t, "fake_wrongscan"), io.Discard); err == nil || !strings.Contains(err.Error(), "export") {
		t.Errorf("an export missing a note: error %v, want the export to fail", err)
	}
}
