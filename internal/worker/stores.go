package worker

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"time"

	"manydb/internal/job"
)

// progress prints "progress DONE TOTAL" lines at most every half second,
// knows the store being worked on, to name it if the engine panics, and
// lets the phase's goroutine yield between stores (see yieldEvery).
type progress struct {
	w       io.Writer
	total   int
	last    time.Time
	yielded time.Time
	yield   func() // runtime.Gosched; a counter in tests
	store   int    // index of the store being worked on; -1 before the first
}

// yieldEvery is how long a phase's goroutine runs before step lets Go's
// scheduler take it off its thread and put it back (runtime.Gosched),
// between timed spans. A goroutine that is never rescheduled looks to Go's
// sysmon like one hogging its time slice: after 10 ms sysmon sends its
// thread a preemption signal and takes its P while the engine is inside a
// C call; sysmon then sleeps until the engine's thread wakes it (a futex
// call) on a later C call, and polls every 20 µs for a while after. None
// of that happens in a C program making the same calls. Yielding more
// often than every 10 ms keeps it from starting; a locked goroutine's
// yield hands its thread over twice, so it is not done after every store
// (docs/benchmarks.md, "Go's scheduler").
const yieldEvery = 5 * time.Millisecond

// at records that store i is being worked on; it is called outside timed
// spans.
func (p *progress) at(i int) { p.store = i }

func newProgress(j job.Job, stderr io.Writer) *progress {
	now := time.Now()
	p := &progress{last: now, yielded: now, yield: runtime.Gosched, store: -1}
	if j.Progress {
		p.w, p.total = stderr, j.Stores
	}
	return p
}

// step reports that done stores are finished and yields when yieldEvery
// has passed; it is called between timed spans and costs a clock read.
func (p *progress) step(done int) {
	now := time.Now()
	if now.Sub(p.yielded) >= yieldEvery {
		p.yield()
		p.yielded = time.Now()
	}
	if p.w == nil || done%64 != 0 {
		return
	}
	if now.Sub(p.last) >= 500*time.Millisecond {
		p.last = now
		fmt.Fprintf(p.w, "%s%d %d\n", job.ProgressPrefix, done, p.total)
	}
}

// ms converts a duration to milliseconds.
func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// Order returns the order in which a run visits n stores: a permutation
// from math/rand/v2's PCG seeded with (seed, 0).
func Order(n int, seed uint64) []int {
	return rand.New(rand.NewPCG(seed, 0)).Perm(n)
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
