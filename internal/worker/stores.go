package worker

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"time"

	"manydb/internal/job"
	"manydb/internal/results"
)

// storeLoop is the loop every phase but serve runs over its stores
// (eachStore). It knows the store being worked on, which RunJob names if
// the engine panics, reports progress and yields between stores.
type storeLoop struct {
	store    int // index of the store being worked on; -1 before the first
	status   status
	progress progress
	yielder  yielder
	// stderr gets the worker's lines to the orchestrator (job.HeldLine);
	// stdin is where the orchestrator releases a waiting hold worker.
	stderr io.Writer
	stdin  io.Reader
	// spent is the worker's account of its time outside the timed spans.
	spent results.WorkerTime
}

// spend adds the time since t0 to part of the worker's account (a field
// of storeLoop.spent).
func spend(part *float64, t0 time.Time) { *part += time.Since(t0).Seconds() }

func newStoreLoop(j job.Job, stderr io.Writer) *storeLoop {
	now := time.Now()
	l := &storeLoop{store: -1, progress: progress{last: now}, stderr: stderr, stdin: os.Stdin}
	l.yielder = yielder{last: now, yield: runtime.Gosched, spent: &l.spent.YieldS}
	if j.Progress {
		l.progress.w = stderr
		l.progress.total, _ = j.Units()
	}
	return l
}

// eachStore calls work for n stores, one after another: the k-th is
// store i = order[k], or i = k when order is nil. Before each call it
// marks the store as the one being worked on; after it, it notes it
// done, reports progress and yields between stores. It stops at work's first error.
// The timed spans are work's own: the loop adds nothing inside them.
func (l *storeLoop) eachStore(n int, order []int, work func(k, i int) error) error {
	for k := range n {
		i := k
		if order != nil {
			i = order[k]
		}
		l.at(i)
		if err := work(k, i); err != nil {
			return err
		}
		l.status.done(k + 1)
		now := time.Now()
		l.progress.report(k+1, now)
		l.yielder.betweenStores(now)
	}
	return nil
}

// at records that store i is being worked on, for a visit outside
// eachStore (a warm-up, a read-back); it is called outside timed spans.
func (l *storeLoop) at(i int) {
	l.store = i
	l.status.at(i)
}

// progress prints "progress DONE TOTAL" lines, at most every
// progressEvery. The orchestrator's watchdog takes them as the worker's
// heartbeat: a line follows the first store that ends progressEvery or
// more after the last line, so a worker that goes on finishing stores is
// never silent for much longer than its slowest store.
type progress struct {
	w     io.Writer // nil: no progress lines
	total int
	last  time.Time
}

// progressEvery is the least time between two progress lines.
const progressEvery = 500 * time.Millisecond

// report says, at now, that done stores are finished; it prints a line
// when progressEvery has passed since the last. It is called between
// timed spans, with the clock read the loop makes there anyway.
func (p *progress) report(done int, now time.Time) {
	if p.w == nil || now.Sub(p.last) < progressEvery {
		return
	}
	p.last = now
	p.line(done, p.total)
}

// line prints one progress line: done of total.
func (p *progress) line(done, total int) {
	fmt.Fprintf(p.w, "%s%d %d\n", job.ProgressPrefix, done, total)
}

// yielder lets a phase's goroutine be rescheduled between stores, so that
// Go's sysmon does not take its processor while the engine is in a C call
// (docs/benchmarks.md, "Go's scheduler: the phase yields between stores").
type yielder struct {
	last  time.Time // the last yield, or the loop's start
	yield func()    // runtime.Gosched; a counter in tests
	spent *float64  // the seconds the yields took (the worker's YieldS)
}

// yieldEvery is how long a phase's goroutine runs between yields: less
// than the 10 ms after which sysmon acts, yet not after every store, as a
// yield costs about as much as a fast engine's open (docs/benchmarks.md).
const yieldEvery = 5 * time.Millisecond

// betweenStores yields when yieldEvery has passed since the last yield,
// now being the time, and adds how long the yield took to spent; it is
// called between timed spans.
func (y *yielder) betweenStores(now time.Time) {
	if now.Sub(y.last) >= yieldEvery {
		y.yield()
		y.last = time.Now()
		*y.spent += y.last.Sub(now).Seconds()
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
	return &StoreError{Index: i, Dir: storeDir(j, i), Step: step, Err: err}
}

func storeDirs(j job.Job) []string {
	dirs := make([]string, j.Stores)
	for i := range dirs {
		dirs[i] = storeDir(j, i)
	}
	return dirs
}
