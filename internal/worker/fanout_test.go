package worker

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"manydb/internal/engines/fakeengine"
	"manydb/internal/measure"
	"manydb/internal/results"
)

func TestStoreDirIn(t *testing.T) {
	for _, c := range []struct {
		i, fanout int
		want      string
	}{
		{1234, 0, "d/001234"},
		{1234, 1, "d/34/001234"},
		{1234, 2, "d/12/34/001234"},
		{1234, 3, "d/00/12/34/001234"},
		{7, 2, "d/00/07/000007"},
		{999999, 2, "d/99/99/999999"},
	} {
		if got := StoreDirIn("d", c.i, c.fanout); got != c.want {
			t.Errorf("StoreDirIn(d, %d, %d) = %s, want %s", c.i, c.fanout, got, c.want)
		}
	}
}

// TestFanoutPhases creates, opens, holds and measures stores in the
// nested layout: every store is where StoreDirIn says, none in the flat
// place, and the records name the layout.
func TestFanoutPhases(t *testing.T) {
	v := newFake(t, "fake")
	job := fakeJob(t, results.PhaseCreate)
	job.Stores, job.Fanout = 120, 1
	rec, err := RunJob(job, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Fanout != 1 || len(rec.CreateMs) != job.Stores {
		t.Fatalf("create record: fanout %d, %d samples", rec.Fanout, len(rec.CreateMs))
	}
	for i := range job.Stores {
		if _, err := os.Stat(filepath.Join(StoreDirIn(job.Dir, i, 1), fakeengine.FileName)); err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
	}
	if _, err := os.Stat(StoreDir(job.Dir, 5)); !os.IsNotExist(err) {
		t.Errorf("store 5 in the flat layout too: %v", err)
	}
	entries, err := os.ReadDir(job.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 100 {
		t.Errorf("%d directories at the top of a fan-out of one level over 120 stores, want 100", len(entries))
	}
	for _, ph := range []string{results.PhaseOpen, results.PhaseHold, results.PhaseSpace} {
		job.Phase, job.Run, job.Seed, job.Hold = ph, 1, 1, 10
		rec, err := RunJob(job, v, io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", ph, err)
		}
		if rec.Fanout != 1 {
			t.Errorf("%s record: fanout %d, want 1", ph, rec.Fanout)
		}
	}
	job.Fanout = MaxFanout + 1
	if err := job.validate(); err == nil {
		t.Errorf("fanout %d accepted", job.Fanout)
	}
}

// TestWarmRunSamplesResidency: a warm open run records how much of its
// stores' pages were in the page cache before it; a cold run does not.
func TestWarmRunSamplesResidency(t *testing.T) {
	v := newFake(t, "fake")
	job := fakeJob(t, results.PhaseCreate)
	if _, err := RunJob(job, v, io.Discard); err != nil {
		t.Fatal(err)
	}
	job.Phase, job.Run, job.Seed = results.PhaseOpen, 1, 1
	rec, err := RunJob(job, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rec.ResidentBefore == nil || *rec.ResidentBefore < 0.95 {
		t.Errorf("warm run over stores just written: resident before %v, want at least 0.95", rec.ResidentBefore)
	}
	// Evicted stores are read back by a prewarmed run before its sample.
	for i := range job.Stores {
		if err := measure.Evict(StoreDir(job.Dir, i)); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := sampleResidency(storeDirs(job), job.Stores); err != nil || r > 0.05 {
		t.Skipf("this filesystem keeps evicted pages (%.0f %% resident, %v): prewarm not testable here", 100*r, err)
	}
	job.Prewarm = true
	rec, err = RunJob(job, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Prewarmed || rec.ResidentBefore == nil || *rec.ResidentBefore < 0.95 {
		t.Errorf("prewarmed run after eviction: prewarmed %v, resident before %v", rec.Prewarmed, rec.ResidentBefore)
	}
	job.Prewarm, job.Cache = false, CacheCold
	rec, err = RunJob(job, v, io.Discard)
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
	job := fakeJob(t, results.PhaseCreate)
	job.Stores = 2
	if _, err := RunJob(job, v, io.Discard); err != nil {
		t.Fatal(err)
	}
	// The hold of 1 store touches stores 0 (held) and 1 (its warm-up) only.
	job.Phase, job.Stores, job.Hold = results.PhaseHold, 300000, 1
	rec, err := RunJob(job, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Hold.RssKB < -1000 {
		t.Errorf("one held store of a set of %d: %.0f KB resident per store, want no freed memory from other stores' paths", job.Stores, rec.Hold.RssKB)
	}
}
