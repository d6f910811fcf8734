package worker

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/memcg"
	"manydb/internal/results"
	"manydb/internal/workload"
)

// create makes every store: one span per store from before mkdir to after
// close (open the new store with its schema, write all notes in one
// transaction, close). The notes are generated before the span.
func create(j job.Job, v engine.Variant, rec *results.Record, p *progress) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	dirs := storeDirs(j)
	notes := make([]workload.Note, j.Workload.Objects)
	samples := make([]float64, j.Stores)
	start := time.Now()
	for i, dir := range dirs {
		p.at(i)
		j.Workload.Fill(i, notes)
		if j.Fanout > 0 {
			// The layout's parent directories are made outside the span:
			// the span times the store's own directory, as in the flat
			// layout.
			if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
				return storeError(j, i, "mkdir the layout's directories", err)
			}
		}
		t0 := time.Now()
		if err := os.Mkdir(dir, 0o755); err != nil {
			return storeError(j, i, "mkdir", err)
		}
		s, err := v.Create(dir)
		if err != nil {
			return storeError(j, i, "create", err)
		}
		if err := s.Insert(notes); err != nil {
			s.Close()
			return storeError(j, i, fmt.Sprintf("insert %d notes", len(notes)), err)
		}
		if err := s.Close(); err != nil {
			return storeError(j, i, "close", err)
		}
		samples[i] = ms(time.Since(t0))
		p.step(i + 1)
	}
	rec.WallS = time.Since(start).Seconds()
	rec.CreateMs = samples
	return nil
}

// Order returns the order in which a run visits n stores: a permutation
// from math/rand/v2's PCG seeded with (seed, 0).
func Order(n int, seed uint64) []int {
	return rand.New(rand.NewPCG(seed, 0)).Perm(n)
}

// hold opens the first job.Hold stores, counts each and keeps them all
// open, then reports (after − before) / held of the process' memory. Before
// the first snapshot one store is opened, counted and closed: the first
// store outside the held set, or the last store when all are held, so one-time set-up of the engine
// (library initialisation, shared caches) is not counted per store; both
// snapshots follow a garbage collection that returns freed Go memory to
// the OS, so only live memory counts for pure-Go engines too. The loop is
// locked to one OS thread, as the timed phases are.
func hold(j job.Job, v engine.Variant, rec *results.Record, p *progress) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// Only the paths used: a slice of every store's path (10 MB for a
	// million stores) would be garbage collected between the snapshots
	// and show as memory freed by the held stores.
	dirs := make([]string, j.Hold)
	for i := range dirs {
		dirs[i] = job.StoreDir(j.Dir, i, j.Fanout)
	}
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
	warm := min(j.Hold, j.Stores-1)
	p.at(warm)
	if err := openCountClose(v, job.StoreDir(j.Dir, warm, j.Fanout), want); err != nil {
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
	var cBefore memcg.Charge
	if cg != nil {
		if cBefore, err = cg.ReadSettled(); err != nil { // the eviction's effect in memory.stat
			return err
		}
	}
	var engineTime time.Duration // the opens and counts, without step's yields
	for i, dir := range dirs {
		p.at(i)
		t0 := time.Now()
		s, err := v.Open(dir)
		if err != nil {
			return storeError(j, i, "open", err)
		}
		open = append(open, s)
		got, err := s.Count()
		if err != nil {
			return storeError(j, i, "count", err)
		}
		if got != want {
			return storeError(j, i, "count", fmt.Errorf("count returned %d notes, want %d", got, want))
		}
		engineTime += time.Since(t0)
		p.step(i + 1)
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

		GoroutinesBefore: before.goroutines,
		Goroutines:       after.goroutines,
		Container:        container,
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
	return nil
}

// openCountClose opens, counts and closes one store, untimed.
func openCountClose(v engine.Variant, dir string, want int64) error {
	s, err := v.Open(dir)
	if err != nil {
		return err
	}
	got, err := s.Count()
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
}

// snapshot collects garbage, returns freed Go memory to the OS and reads
// the process' memory, threads, open files and goroutines.
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
	s.fds, err = measure.OpenFiles()
	return s, err
}

// space measures each store's files on disk.
func space(j job.Job, v engine.Variant, rec *results.Record, p *progress) error {
	rec.Bytes = make([]int64, j.Stores)
	rec.ApparentBytes = make([]int64, j.Stores)
	var files []string
	for i, dir := range storeDirs(j) {
		p.at(i)
		s, err := measure.DirSpace(dir)
		if err != nil {
			return storeError(j, i, "measure space", err)
		}
		rec.Bytes[i], rec.ApparentBytes[i] = s.Bytes, s.ApparentBytes
		files = append(files, s.Files...)
		p.step(i + 1)
	}
	rec.Files = uniqueSorted(files)
	return nil
}

// StoreError is the failure of one store: its index, its directory, the
// step that failed and the engine's error (or the panic it raised).
type StoreError struct {
	Index int
	Dir   string
	Step  string
	Err   error
}

func (e *StoreError) Error() string {
	return fmt.Sprintf("store %d (%s): %s: %v", e.Index, e.Dir, e.Step, e.Err)
}

func (e *StoreError) Unwrap() error { return e.Err }

func storeError(j job.Job, i int, step string, err error) error {
	return &StoreError{Index: i, Dir: job.StoreDir(j.Dir, i, j.Fanout), Step: step, Err: err}
}

func storeDirs(j job.Job) []string {
	dirs := make([]string, j.Stores)
	for i := range dirs {
		dirs[i] = job.StoreDir(j.Dir, i, j.Fanout)
	}
	return dirs
}
