package worker

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/memcg"
	"manydb/internal/results"
)

// holdSeed draws the held stores' knn queries (the hold has no run seed).
const holdSeed = 1

// hold opens the first job.Hold stores, counts each (and, with
// embeddings, asks it a knn query) and keeps them all
// open, then reports (after − before) / held of the process' memory, and
// the time of each open alone: store i is opened with i stores already
// open (the n-th open; its count is outside that span). Before the first
// snapshot one store is opened, counted and closed: the first store
// outside the held set, or the last store when all are held, so one-time
// set-up of the engine (library initialisation, shared caches) is not
// counted per store; both snapshots follow a garbage collection that
// returns freed Go memory to the OS, so only live memory counts for
// pure-Go engines too. The loop is locked to one OS thread, as the timed
// phases are.
func hold(j job.Job, v engine.Variant, rec *results.Record, loop *storeLoop) error {
	// Only the paths used: a slice of every store's path (10 MB for a
	// million stores) would be garbage collected between the snapshots
	// and show as memory freed by the held stores.
	dirs := make([]string, j.Hold)
	for i := range dirs {
		dirs[i] = job.StoreDir(j.Dir, i, j.Fanout)
	}
	// Made before the first snapshot, as dirs: live through both.
	openMs := make([]float64, j.Hold)
	open := make([]engine.Store, 0, j.Hold)
	defer func() {
		for _, s := range open {
			s.Close()
		}
	}()
	want := int64(j.Workload.Objects + j.Appended)
	var cg *memcg.Group
	if j.Cgroup != "" {
		g := memcg.Open(j.Cgroup)
		if err := g.Join(os.Getpid()); err != nil {
			return err
		}
		cg = &g
	}
	// With embeddings each held store also answers a knn query after its
	// count, so that the memory per open store is with its vector index
	// (or vectors) loaded, as an agent's store is after it recalled.
	k, err := newKNN(j.Workload, v)
	if err != nil {
		return err
	}
	var recall []float64
	if k != nil {
		recall = make([]float64, j.Hold)
	}
	warm := min(j.Hold, j.Stores-1)
	loop.at(warm)
	if err := openCountClose(v, job.StoreDir(j.Dir, warm, j.Fanout), warm, want, k); err != nil {
		return storeError(j, warm, "warm-up", err)
	}
	if cg != nil {
		// The held stores' pages are read by their opens below, so that
		// they are charged to this cgroup, as in a new container.
		for i, dir := range dirs {
			if err := measure.Evict(dir); err != nil {
				return storeError(j, i, "evict from the page cache", err)
			}
		}
	}
	before, err := snapshot()
	if err != nil {
		return err
	}
	limits, err := measure.ReadLimits()
	if err != nil {
		return err
	}
	availKB, err := measure.MemAvailableKB()
	if err != nil {
		return err
	}
	_, keysMax := freePthreadKeys()
	var cBefore memcg.Charge
	if cg != nil {
		if cBefore, err = cg.ReadSettled(); err != nil { // the eviction's effect in memory.stat
			return err
		}
	}
	var engineTime time.Duration // the opens, counts and knn, without the loop's yields
	err = loop.eachStore(j.Hold, nil, func(_, i int) error {
		t0 := time.Now()
		s, err := v.Open(dirs[i])
		t1 := time.Now()
		if err != nil {
			return storeError(j, i, "open", err)
		}
		openMs[i] = ms(t1.Sub(t0)) // i stores are open
		open = append(open, s)
		got, err := s.Count()
		if err != nil {
			return storeError(j, i, "count", err)
		}
		if got != want {
			return storeError(j, i, "count", fmt.Errorf("count returned %d notes, want %d", got, want))
		}
		if k != nil {
			t2 := time.Now()
			k.draw(holdSeed, i, int(want))
			t3 := time.Now()
			if err := k.run(s); err != nil {
				return storeError(j, i, string(job.QueryKNN), err)
			}
			engineTime += time.Since(t3)
			if recall[i], err = k.check(int(want)); err != nil {
				return storeError(j, i, string(job.QueryKNN), err)
			}
			k.emb = nil
			engineTime += t2.Sub(t0)
			return nil
		}
		engineTime += time.Since(t0)
		return nil
	})
	if err != nil {
		return err
	}
	after, err := snapshot()
	if err != nil {
		return err
	}
	var container *results.Container
	if cg != nil {
		cAfter, err := cg.ReadSettled()
		if err != nil {
			return err
		}
		container = &results.Container{Cgroup: cg.Path, BytesBefore: cBefore.Bytes, BytesAfter: cAfter.Bytes,
			FileBefore: cBefore.File, FileAfter: cAfter.File, AnonBefore: cBefore.Anon, AnonAfter: cAfter.Anon}
	}
	h := float64(j.Hold)
	rec.Hold = &results.Hold{
		Held:          j.Hold,
		RssKB:         float64(after.mem.RssKB-before.mem.RssKB) / h,
		AnonKB:        float64(after.mem.AnonKB-before.mem.AnonKB) / h,
		RssBeforeKB:   before.mem.RssKB,
		RssAfterKB:    after.mem.RssKB,
		AnonBeforeKB:  before.mem.AnonKB,
		AnonAfterKB:   after.mem.AnonKB,
		ThreadsBefore: before.threads,
		Threads:       after.threads,
		FDsBefore:     before.fds,
		FDs:           after.fds,

		GoroutinesBefore:      before.goroutines,
		Goroutines:            after.goroutines,
		MappingsBefore:        before.mappings,
		Mappings:              after.mappings,
		PthreadKeysFreeBefore: before.keysFree,
		PthreadKeysFree:       after.keysFree,
		PthreadKeysMax:        keysMax,
		Limits:                &limits,
		MemAvailableKB:        availKB,
		Container:             container,
		OpenMs:                openMs,
	}
	start := time.Now()
	for _, s := range open {
		if err := s.Close(); err != nil {
			open = nil
			return fmt.Errorf("close a held store: %w", err)
		}
	}
	open = nil
	rec.Hold.EngineS = (engineTime + time.Since(start)).Seconds()
	rec.Recall = recall
	return nil
}

// openCountClose opens, counts and closes store i in dir, untimed, with a
// knn query after the count when k is not nil.
func openCountClose(v engine.Variant, dir string, i int, want int64, k *knn) error {
	s, err := v.Open(dir)
	if err != nil {
		return err
	}
	got, err := s.Count()
	if err == nil && k != nil {
		k.draw(holdSeed, i, int(want))
		err = k.run(s)
	}
	if err == nil && k != nil {
		// Checked now, so that the check's buffers exist before the
		// first snapshot; the embedder is dropped, as after each held
		// store's check, so no store's embedder is live at either.
		_, err = k.check(int(want))
		k.emb = nil
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err == nil && got != want {
		err = fmt.Errorf("count returned %d notes, want %d", got, want)
	}
	return err
}

type procSnapshot struct {
	mem        measure.Memory
	threads    int
	fds        int
	goroutines int
	mappings   int
	keysFree   int // pthread keys still free; -1 when not known
}

// snapshot collects garbage, returns freed Go memory to the OS and reads
// the process' memory, threads, open files, goroutines, memory mappings
// and free pthread keys. The memory is read first: the others allocate.
func snapshot() (procSnapshot, error) {
	debug.FreeOSMemory() // a full collection first
	s := procSnapshot{goroutines: runtime.NumGoroutine()}
	var err error
	if s.mem, err = measure.ReadMemory(); err != nil {
		return s, err
	}
	if s.threads, err = measure.Threads(); err != nil {
		return s, err
	}
	if s.fds, err = measure.OpenFiles(); err != nil {
		return s, err
	}
	if s.mappings, err = measure.Mappings(); err != nil {
		return s, err
	}
	s.keysFree, _ = freePthreadKeys()
	return s, nil
}
