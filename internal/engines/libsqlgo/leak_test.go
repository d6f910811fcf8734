package libsqlgo

import (
	"io"
	"runtime"
	"runtime/debug"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/worker"
	"manydb/internal/workload"
)

// Leak bounds for the 900 open/count/close cycles between cycle 100 and
// cycle 1,000. Without a leak, Rss grows by 0 to 2 MiB there (glibc arenas
// of new tokio threads, heap warm-up) and libSQL's tokio blocking pool adds
// up to a few dozen threads (its idle threads exit after 10 s). So the
// test catches a leak of about 10 KiB or one thread per store.
const (
	leakCycles      = 1000
	leakWarmCycles  = 100
	leakMaxGrowthKB = 8192
	leakMaxThreads  = 100
)

type leakPoint struct {
	rssKB, anonKB int64
	threads       int
}

func leakSnapshot(t *testing.T) leakPoint {
	t.Helper()
	debug.FreeOSMemory() // the Go heap's free pages are not the engine's
	m, err := measure.ReadMemory()
	if err != nil {
		t.Fatal(err)
	}
	n, err := measure.Threads()
	if err != nil {
		t.Fatal(err)
	}
	return leakPoint{m.RssKB, m.AnonKB, n}
}

// makeStores creates n small stores under dir and returns their directories.
func makeStores(t *testing.T, v engine.Variant, n, objects int) []string {
	t.Helper()
	dir := t.TempDir()
	spec := workload.Spec{Name: "custom", Objects: objects, TextLen: 300}
	if _, err := worker.RunJob(job.Job{Variant: ID, Phase: "create", Dir: dir, Stores: n, Workload: spec}, v, io.Discard); err != nil {
		t.Fatal(err)
	}
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = job.StoreDir(dir, i, 0)
	}
	return dirs
}

// cycles runs open/count/close over dirs, round robin, and returns the
// process' memory and threads after warm cycles and after all of them.
func cycles(t *testing.T, dirs []string, want int64, open func(dir string) (engine.Store, error)) (warm, end leakPoint) {
	t.Helper()
	runtime.LockOSThread() // as the worker's timed loops
	defer runtime.UnlockOSThread()
	for i := range leakCycles {
		s, err := open(dirs[i%len(dirs)])
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.Count()
		if err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Fatalf("count %d, want %d", n, want)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if i+1 == leakWarmCycles {
			warm = leakSnapshot(t)
		}
	}
	return warm, leakSnapshot(t)
}

// TestNoLeak opens, counts and closes a few stores 1,000 times the way the
// adapter does and checks that memory and threads stay flat after the
// first 100 cycles.
func TestNoLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 open/count/close cycles; runs without -short")
	}
	noLeak(t)
}

// TestStress makes 20,000 open/count/close cycles over 50 stores in one
// process: with go-libsql's double close and no guard, the process crashed
// in about 4 of 10 such runs (docs/engines.md); with the guard it must not.
func TestStress(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 open/count/close cycles; runs without -short")
	}
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	dirs := makeStores(t, v, 50, 100)
	real0, skipped0 := CloseCounts()
	for i := 0; i < 20000; i++ {
		s, err := v.Open(dirs[i%len(dirs)])
		if err != nil {
			t.Fatalf("cycle %d: open: %v", i, err)
		}
		n, err := s.Count()
		if err != nil || n != 100 {
			t.Fatalf("cycle %d: count %d, %v; want 100", i, n, err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("cycle %d: close: %v", i, err)
		}
	}
	real1, skipped1 := CloseCounts()
	t.Logf("20,000 cycles: %d closes went to SQLite, %d repeats skipped so far", real1-real0, skipped1-skipped0)
}

func noLeak(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	dirs := makeStores(t, v, 4, 100)
	warm, end := cycles(t, dirs, 100, v.Open)
	t.Logf("adapter: after %d cycles Rss %d KiB, Anonymous %d KiB, %d threads; after %d: Rss %d KiB (%+d), Anonymous %d KiB (%+d), %d threads",
		leakWarmCycles, warm.rssKB, warm.anonKB, warm.threads, leakCycles,
		end.rssKB, end.rssKB-warm.rssKB, end.anonKB, end.anonKB-warm.anonKB, end.threads)
	if g := end.rssKB - warm.rssKB; g > leakMaxGrowthKB {
		t.Errorf("Rss grew by %d KiB over %d open/count/close cycles: a store's resources are not released", g, leakCycles-leakWarmCycles)
	}
	if g := end.anonKB - warm.anonKB; g > leakMaxGrowthKB {
		t.Errorf("Anonymous memory grew by %d KiB over %d open/count/close cycles: a store's resources are not released", g, leakCycles-leakWarmCycles)
	}
	if g := end.threads - warm.threads; g > leakMaxThreads {
		t.Errorf("threads grew by %d over %d open/count/close cycles", g, leakCycles-leakWarmCycles)
	}
}
