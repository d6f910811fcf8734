package worker

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"manydb/internal/engine"
	"manydb/internal/engines/fakeengine"
	"manydb/internal/job"
	"manydb/internal/results"
)

// workerProcessEnv makes this test binary a worker process: Run called from
// the main goroutine, as cmd/worker-* call it through Main.
const workerProcessEnv = "MANYDB_TEST_WORKER_PROCESS"

func TestMain(m *testing.M) {
	if os.Getenv(workerProcessEnv) == "1" {
		os.Exit(Exit(Run(os.Args[1:], os.Stdout, os.Stderr,
			engine.Factory{ID: "fake", New: fakeengine.New("fake")})))
	}
	os.Exit(m.Run())
}

// TestPhaseRunsOffTheFirstThread runs a create and an open phase in a
// worker process and checks that each ran on a thread other than the
// process' first (so cgo engines use a glibc thread arena in every run)
// and that the record says so, with how often the phase yielded.
func TestPhaseRunsOffTheFirstThread(t *testing.T) {
	dir := t.TempDir()
	for _, phase := range []job.Phase{job.PhaseCreate, job.PhaseOpen} {
		cmd := exec.Command(os.Args[0], "--variant", "fake", "--phase", string(phase), "--dir", dir,
			"--stores", "3", "--objects", "5", "--run", "1", "--seed", "1")
		cmd.Env = append(os.Environ(), workerProcessEnv+"=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", phase, err)
		}
		var rec results.Record
		if err := json.Unmarshal(out, &rec); err != nil {
			t.Fatalf("%s: %v: %s", phase, err, out)
		}
		if got := rec.Process["engine_thread"]; got != "other" {
			t.Errorf("%s: process.engine_thread = %q, want \"other\" (the phase ran on the worker's first thread)", phase, got)
		}
		if got := rec.Process["yield_every"]; got != yieldEvery.String() {
			t.Errorf("%s: process.yield_every = %q, want %q", phase, got, yieldEvery.String())
		}
	}
}

// TestStepYields checks that step lets the phase's goroutine be
// rescheduled once yieldEvery has passed since its last yield, and not
// after every store: steps spaced by more than yieldEvery each yield, and
// 100 steps in a row yield only when the machine stalls between them.
func TestStepYields(t *testing.T) {
	yields := 0
	p := newProgress(job.Job{Stores: 200}, io.Discard)
	p.yield = func() { yields++ }
	for i := 1; i <= 3; i++ {
		time.Sleep(yieldEvery + time.Millisecond)
		p.step(i)
	}
	if yields != 3 {
		t.Fatalf("3 steps, each more than yieldEvery (%v) after the last, yielded %d times, want 3", yieldEvery, yields)
	}
	for i := 4; i < 104; i++ {
		p.step(i)
	}
	if n := yields - 3; n > 2 {
		t.Fatalf("100 steps in a row yielded %d times, want at most 2 (a yield only when the machine stalls for yieldEvery)", n)
	}
}

// TestPhasesYieldBetweenStores runs each phase that loops over stores with
// an engine whose create and open take 20 ms (more than yieldEvery) and
// checks that the phase yielded after every store: each loop calls step.
func TestPhasesYieldBetweenStores(t *testing.T) {
	v := newFake(t, "fake_slow")
	j := fakeJob(t, job.PhaseCreate)
	j.Stores, j.Hold, j.Run, j.Seed = 3, 3, 1, 1
	phases := []struct {
		name job.Phase
		run  func(job.Job, engine.Variant, *results.Record, *progress) error
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
		p := newProgress(j, io.Discard)
		p.yield = func() { yields++ }
		var rec results.Record
		if err := ph.run(j, v, &rec, p); err != nil {
			t.Fatalf("%s: %v", ph.name, err)
		}
		if yields != j.Stores {
			t.Errorf("%s: %d yields over %d stores of 20 ms each, want one after each store", ph.name, yields, j.Stores)
		}
	}
}
