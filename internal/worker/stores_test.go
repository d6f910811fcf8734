package worker

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"manydb/internal/datasource"
	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
)

// TestEachStore: the loop visits the stores in the order given (0 to n-1
// without one), marks each as the one being worked on before its work,
// reports progress after a store once progressEvery has passed since the
// last line (the watchdog's heartbeat), and stops at the first error with
// the failing store still marked, for a panic's or an error's message.
func TestEachStore(t *testing.T) {
	var out bytes.Buffer
	loop := newStoreLoop(job.Job{Stores: 128, Progress: true}, &out)
	loop.progress.last = time.Time{}     // the first report is due at once
	page := make([]byte, job.StatusSize) // as the orchestrator's, mapped
	loop.status = status{page: page}
	var seen []int
	record := func(k, i int) error {
		if loop.store != i {
			t.Errorf("visit %d of store %d: the loop marks store %d", k, i, loop.store)
		}
		seen = append(seen, i)
		return nil
	}
	if err := loop.eachStore(3, []int{2, 0, 1}, record); err != nil || !slices.Equal(seen, []int{2, 0, 1}) {
		t.Fatalf("order 2 0 1: visited %v, err %v", seen, err)
	}
	if st, done := binary.LittleEndian.Uint64(page[job.StatusStore:]), binary.LittleEndian.Uint64(page[job.StatusDone:]); st != 2 || done != 3 {
		t.Errorf("status page after order 2 0 1: store+1 %d, done %d; want 2 (store 1) and 3", st, done)
	}
	seen = nil
	loop.progress.last = time.Time{} // due again
	inOrder := make([]int, 128)
	for i := range inOrder {
		inOrder[i] = i
	}
	if err := loop.eachStore(128, nil, record); err != nil || !slices.Equal(seen, inOrder) {
		t.Fatalf("no order: visited %v, err %v; want 0 to 127", seen, err)
	}
	if got, want := out.String(), job.ProgressPrefix+"1 128\n"; !strings.HasPrefix(got, want) {
		t.Errorf("progress = %q, want it to start with %q (a line after the first store, as one was due)", got, want)
	}
	out.Reset()
	loop.progress.last = time.Now().Add(time.Hour) // no line due
	if err := loop.eachStore(3, nil, record); err != nil || out.Len() != 0 {
		t.Errorf("no line due: printed %q (err %v), want nothing", out.String(), err)
	}

	stop := errors.New("store 2 fails")
	seen = nil
	err := loop.eachStore(5, nil, func(k, i int) error {
		seen = append(seen, i)
		if i == 2 {
			return stop
		}
		return nil
	})
	if err != stop || !slices.Equal(seen, []int{0, 1, 2}) || loop.store != 2 {
		t.Errorf("err %v, visited %v, marked %d; want the error of store 2, after which nothing is visited", err, seen, loop.store)
	}
}

// TestBetweenStoresYields checks that the goroutine is rescheduled once
// yieldEvery has passed since its last yield, and not after every store:
// calls spaced by more than yieldEvery each yield, and 100 calls in a row
// yield only when the machine stalls between them; the yields' time is
// counted.
func TestBetweenStoresYields(t *testing.T) {
	yields := 0
	var spent float64
	y := yielder{last: time.Now(), yield: func() { yields++; time.Sleep(time.Millisecond) }, spent: &spent}
	for range 3 {
		time.Sleep(yieldEvery + time.Millisecond)
		y.betweenStores(time.Now())
	}
	if yields != 3 {
		t.Fatalf("3 calls, each more than yieldEvery (%v) after the last, yielded %d times, want 3", yieldEvery, yields)
	}
	if spent < 0.003 || spent > 1 {
		t.Fatalf("3 yields of at least 1 ms each took %v s in all, want at least 0.003", spent)
	}
	for range 100 {
		y.betweenStores(time.Now())
	}
	if n := yields - 3; n > 2 {
		t.Fatalf("100 calls in a row yielded %d times, want at most 2 (a yield only when the machine stalls for yieldEvery)", n)
	}
}

// TestPhasesYieldBetweenStores runs each phase that loops over stores with
// an engine whose create and open take 20 ms (more than yieldEvery) and
// checks that the phase yielded after every store: each phase runs its
// stores through eachStore.
func TestPhasesYieldBetweenStores(t *testing.T) {
	v := newFake(t, "fake_slow")
	j := fakeJob(t, job.PhaseCreate)
	j.Stores, j.Hold, j.Run, j.Seed = 3, 3, 1, 1
	phases := []struct {
		name job.Phase
		run  func(job.Job, engine.Variant, datasource.Source, *results.Record, *storeLoop) error
	}{
		{job.PhaseCreate, create}, {job.PhaseOpen, openRun}, {job.PhaseHold, hold},
		{job.PhaseTurn, turn}, {job.PhaseProfile, profile},
	}
	for _, ph := range phases {
		if ph.name == job.PhaseProfile {
			j.Dir = t.TempDir() // profile makes its own stores
		}
		j.Phase = ph.name
		yields := 0
		loop := newStoreLoop(j, io.Discard)
		loop.yielder.yield = func() { yields++ }
		var rec results.Record
		if err := ph.run(j, v, sourceOf(t, j), &rec, loop); err != nil {
			t.Fatalf("%s: %v", ph.name, err)
		}
		if yields != j.Stores {
			t.Errorf("%s: %d yields over %d stores of 20 ms each, want one after each store", ph.name, yields, j.Stores)
		}
	}
}

// TestDeleteProgressCountsAgents: the delete phase's progress lines count
// the agents it exports and deletes, not the stores (the orchestrator's
// ETA divides by it).
func TestDeleteProgressCountsAgents(t *testing.T) {
	for _, c := range []struct {
		j    job.Job
		want int
	}{
		{job.Job{Phase: job.PhaseDelete, Stores: 50, Deletes: 3, Progress: true}, 3},
		{job.Job{Phase: job.PhaseDelete, Stores: 50, Progress: true}, 5},
		{job.Job{Phase: job.PhaseOpen, Stores: 50, Progress: true}, 50},
	} {
		if got := newStoreLoop(c.j, io.Discard).progress.total; got != c.want {
			t.Errorf("%s of %d stores (deletes %d): progress total %d, want %d", c.j.Phase, c.j.Stores, c.j.Deletes, got, c.want)
		}
	}
}
