package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"manydb/internal/job"
	"manydb/internal/results"
)

// runHoldWorkers runs a hold split over wj.Procs worker processes
// (--procs), each holding its own range of agents (job.Job.HeldRange),
// and returns their merged result. The processes open their shares one
// after another: each opens and measures its stores, says so
// (job.HeldLine) and keeps them open while the next one starts, so that
// no two processes' opens share the CPU and the n-th open of the merged
// record is made with n stores open in all. Once all hold their stores
// they are released one at a time (the ladder, the closes, the record).
// The first to fail ends the others, and the step fails naming it.
func (c *cell) runHoldWorkers(ctx context.Context, label string, wj job.Job) workerResult {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	procs := make([]*holdProc, 0, wj.Procs)
	defer func() { // every process ended before the phase's record is written
		cancel()
		for _, p := range procs {
			p.finish()
		}
	}()
	for k := range wj.Procs {
		p := c.startHoldProc(ctx, label, wj, k)
		procs = append(procs, p)
		if res, ok := p.awaitHeld(); !ok {
			return p.failed(res)
		}
	}
	parts := make([]workerResult, len(procs))
	for k, p := range procs {
		if parts[k] = p.finish(); parts[k].err != nil {
			return p.failed(parts[k])
		}
	}
	res := mergeHoldResults(parts)
	res.seconds = time.Since(start).Seconds() // the processes overlap: their wall time, not their sum
	return res
}

// holdProc is one worker process of a split hold.
type holdProc struct {
	k, procs int
	lo, hi   int // the stores it holds: lo…hi-1
	args     []string
	held     chan struct{} // closed when it holds its stores
	heldOnce sync.Once
	release  chan struct{} // closed to let it go on
	relOnce  sync.Once
	done     chan workerResult
	res      *workerResult // its result, once received
}

// startHoldProc starts process k of wj's split hold. Its progress moves
// the phase's bar until it holds its stores; after that its heartbeat
// lines (job.HeldLine) only feed its watchdog.
func (c *cell) startHoldProc(ctx context.Context, label string, wj job.Job, k int) *holdProc {
	pj := partJob(wj, k)
	lo, hi := pj.HeldRange()
	p := &holdProc{k: k, procs: wj.Procs, lo: lo, hi: hi, args: pj.Args(), held: make(chan struct{}),
		release: make(chan struct{}), done: make(chan workerResult, 1)}
	w := c.workerCmd(fmt.Sprintf("%s (process %d of %d)", label, k+1, wj.Procs), p.args, pj, func(done, _ int) {
		if !p.holds() {
			c.Bar.Set(lo+done, wj.Hold)
		}
	})
	w.release = p.release
	w.onHeld = func() {
		p.heldOnce.Do(func() { close(p.held) })
	}
	go func() { p.done <- runWorker(ctx, w) }()
	return p
}

// holds tells whether the process said it holds its stores.
func (p *holdProc) holds() bool {
	select {
	case <-p.held:
		return true
	default:
		return false
	}
}

// awaitHeld waits until the process holds its stores (true), or returns
// its result when it ended before.
func (p *holdProc) awaitHeld() (workerResult, bool) {
	select {
	case <-p.held:
		return workerResult{}, true
	case res := <-p.done:
		p.res = &res
		if res.err == nil {
			res.err = errors.New("the worker ended without holding its stores")
		}
		return res, false
	}
}

// finish lets the process go on and returns its result once it ended.
func (p *holdProc) finish() workerResult {
	p.relOnce.Do(func() { close(p.release) })
	if p.res == nil {
		res := <-p.done
		p.res = &res
	}
	return *p.res
}

// failed is the phase's result when this process failed: its error,
// naming the process and its stores, and its command line.
func (p *holdProc) failed(res workerResult) workerResult {
	res.err = fmt.Errorf("process %d of %d (stores %d to %d): %w", p.k+1, p.procs, p.lo, p.hi-1, res.err)
	res.args = p.args
	return res
}

// mergeHoldResults is the result of a split hold from its processes'
// results, in store order: the first one's record with the hold of all
// (results.MergeHolds), the recall of every held store and the retries
// of all.
func mergeHoldResults(parts []workerResult) workerResult {
	rec := parts[0].rec
	rec.Retries = sumRetries(parts)
	holds := make([]results.Hold, len(parts))
	var recall [][]float64
	var returned [][]int
	times := make([]*results.WorkerTime, len(parts))
	res := workerResult{}
	for k, p := range parts {
		if p.rec.Hold == nil {
			return workerResult{err: fmt.Errorf("process %d of %d: its record has no hold", k+1, len(parts))}
		}
		holds[k], times[k] = *p.rec.Hold, p.rec.WorkerTime
		recall, returned = append(recall, p.rec.Recall), append(returned, p.rec.KNNReturned)
		res.longestGap = max(res.longestGap, p.longestGap)
	}
	hold, err := results.MergeHolds(holds)
	if err != nil {
		return workerResult{err: err}
	}
	rec.Hold, rec.Recall, rec.KNNReturned = hold, slices.Concat(recall...), slices.Concat(returned...)
	rec.WorkerTime = results.MergeHoldTimes(times)
	res.rec = rec
	return res
}

// noteHold adds to a hold's figures (nil for another phase) why it has
// no container figure and which limit set its processes (--procs auto).
func (c *cell) noteHold(h *results.Hold, p phase, cgroupNA string) {
	if h == nil {
		return
	}
	if h.Container == nil {
		h.ContainerNA = cgroupNA
	}
	if c.AutoProcs {
		_, h.ProcsChosenBy = c.holdProcs(p)
	}
}

// holdProcs is how many worker processes hold phase p's stores are split
// over: --procs, or with --procs auto the fewest whose per-process limits
// hold them, from this variant's hold before it in the study
// (results.Hold.ProcsFor), and how that was chosen (auto only: nil
// otherwise). 0 when not even one store fits a process.
func (c *cell) holdProcs(p phase) (int, *results.ProcsChoice) {
	if !c.AutoProcs {
		return max(c.Procs, 1), nil
	}
	var before *results.Hold // none: the first hold, in one process
	if h, ok := c.held[c.key()]; ok {
		before = &h
	}
	k, choice := before.ProcsFor(p.hold, autoHeadroom)
	return k, &choice
}

// cannotSplit is why a hold is skipped when --procs auto finds that no
// process can hold one of its stores.
func (c *cell) cannotSplit(p phase) string {
	_, choice := c.holdProcs(p)
	return fmt.Sprintf("--procs auto: a process cannot hold one store within %.0f %% of its limit of %.0f %s (%.2f per store)",
		100*choice.Headroom, choice.Most, choice.Limit, choice.PerStore)
}
