package worker

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"manydb/internal/engines/fakeengine"
	"manydb/internal/job"
	"manydb/internal/measure"
)

// TestFanoutPhases creates, opens, holds and measures stores in the
// nested layout: every store is where job.StoreDir says, none in the flat
// place, and the records name the layout.
func TestFanoutPhases(t *testing.T) {
	v := newFake(t, "fake")
	j := fakeJob(t, job.PhaseCreate)
	j.Stores, j.Fanout = 120, 1
	rec, err := RunJob(j, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Fanout != 1 || len(rec.CreateMs) != j.Stores {
		t.Fatalf("create record: fanout %d, %d samples", rec.Fanout, len(rec.CreateMs))
	}
	for i := range j.Stores {
		if _, err := os.Stat(filepath.Join(job.StoreDir(j.Dir, i, 1), fakeengine.FileName)); err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
	}
	if _, err := os.Stat(job.StoreDir(j.Dir, 5, 0)); !os.IsNotExist(err) {
		t.Errorf("store 5 in the flat layout too: %v", err)
	}
	entries, err := os.ReadDir(j.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 100 {
		t.Errorf("%d directories at the top of a fan-out of one level over 120 stores, want 100", len(entries))
	}
	for _, ph := range []job.Phase{job.PhaseOpen, job.PhaseHold, job.PhaseSpace} {
		j.Phase, j.Run, j.Seed, j.Hold = ph, 1, 1, 10
		rec, err := RunJob(j, v, io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", ph, err)
		}
		if rec.Fanout != 1 {
			t.Errorf("%s record: fanout %d, want 1", ph, rec.Fanout)
		}
	}
	j.Fanout = job.MaxFanout + 1
	if err := j.Validate(); err == nil {
		t.Errorf("fanout %d accepted", j.Fanout)
	}
}

// TestWarmRunSamplesResidency: a warm open run records how much of its
// stores' pages were in the page cache before it; a cold run does not.
func TestWarmRunSamplesResidency(t *testing.T) {
	v := newFake(t, "fake")
	j := fakeJob(t, job.PhaseCreate)
	if _, err := RunJob(j, v, io.Discard); err != nil {
		t.Fatal(err)
	}
	j.Phase, j.Run, j.Seed = job.PhaseOpen, 1, 1
	rec, err := RunJob(j, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rec.ResidentBefore == nil || *rec.ResidentBefore < 0.95 {
		t.Errorf("warm run over stores just written: resident before %v, want at least 0.95", rec.ResidentBefore)
	}
	// Evicted stores are read back by a prewarmed run before its sample.
	for i := range j.Stores {
		if err := measure.Evict(job.StoreDir(j.Dir, i, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := sampleResidency(filesOf(v), storeDirs(j), j.Stores); err != nil || r > 0.05 {
		t.Skipf("this filesystem keeps evicted pages (%.0f %% resident, %v): prewarm not testable here", 100*r, err)
	}
	j.Prewarm = true
	rec, err = RunJob(j, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Prewarmed || rec.ResidentBefore == nil || *rec.ResidentBefore < 0.95 {
		t.Errorf("prewarmed run after eviction: prewarmed %v, resident before %v", rec.Prewarmed, rec.ResidentBefore)
	}
	j.Prewarm, j.Cache = false, job.CacheCold
	rec, err = RunJob(j, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rec.ResidentBefore != nil {
		t.Errorf("cold run has a warm residency sample: %v", *rec.ResidentBefore)
	}
}

// TestHoldCountsOnlyTheHeldStores: the memory per held store does not
// move with the number of stores in the set. (It did when the hold phase
// built every store's path and the garbage collector freed them between
// its snapshots: about -4 MB for 100,000 stores.)
func TestHoldCountsOnlyTheHeldStores(t *testing.T) {
	v := newFake(t, "fake")
	j := fakeJob(t, job.PhaseCreate)
	j.Stores = 2
	if _, err := RunJob(j, v, io.Discard); err != nil {
		t.Fatal(err)
	}
	// The hold of 1 store touches stores 0 (held) and 1 (its warm-up) only.
	j.Phase, j.Stores, j.Hold = job.PhaseHold, 300000, 1
	rec, err := RunJob(j, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Hold.RssKB < -1000 {
		t.Errorf("one held store of a set of %d: %.0f KB resident per store, want no freed memory from other stores' paths", j.Stores, rec.Hold.RssKB)
	}
}
