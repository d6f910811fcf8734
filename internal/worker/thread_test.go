package worker

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

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
