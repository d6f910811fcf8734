package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/serve"
)

// runServeWorkers runs a serve step split over wj.Procs worker processes
// (--procs), side by side, as the processes of one machine serve their
// agents: each serves the requests of the one sequence for its own
// agents (job.Job.AgentRange) with its share of the pool and of the
// goroutines, so that the traffic is one process' split K ways. It
// returns their merged result (mergeServes); the first to fail ends the
// others, and the step fails naming it.
func (c *cell) runServeWorkers(ctx context.Context, label string, wj job.Job) workerResult {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	k := wj.Procs
	parts, args := make([]workerResult, k), make([][]string, k)
	progress := newSplitProgress(k, c.Bar.Set)
	var wg sync.WaitGroup
	for p := range k {
		pj := servePart(wj, p)
		args[p] = pj.Args()
		w := c.workerCmd(fmt.Sprintf("%s (process %d of %d)", label, p+1, k), args[p], pj, progress.of(p))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if parts[p] = runWorker(ctx, w); parts[p].err != nil {
				cancel() // the others stop: the step failed
			}
		}()
	}
	wg.Wait()
	if p := firstFailed(parts); p >= 0 {
		res := parts[p]
		lo, hi := partJob(wj, p).AgentRange()
		res.err = fmt.Errorf("process %d of %d (agents %d to %d): %w", p+1, k, lo, hi-1, res.err)
		res.args = args[p]
		return res
	}
	res := mergeServeResults(parts)
	res.seconds = time.Since(start).Seconds()
	return res
}

// firstFailed is the first process that failed on its own, not because
// the others' failure ended it (or, when all were ended, the first); -1
// when none failed.
func firstFailed(parts []workerResult) int {
	ended := -1
	for p, res := range parts {
		switch {
		case res.err == nil:
		case !errors.Is(res.err, context.Canceled):
			return p
		case ended < 0:
			ended = p
		}
	}
	return ended
}

// partJob is process p's job of a split step wj.
func partJob(wj job.Job, p int) job.Job {
	wj.Proc = p
	return wj
}

// servePart is process p's job of the split serve step wj: its agents,
// and its share of the pool and of the goroutines (job.Split).
func servePart(wj job.Job, p int) job.Job {
	j := partJob(wj, p)
	lo, hi := job.Split(wj.Serve.Pool, wj.Procs, p)
	j.Serve.Pool = hi - lo
	lo, hi = job.Split(wj.Serve.Concurrency, wj.Procs, p)
	j.Serve.Concurrency = hi - lo
	return j
}

// splitProgress adds up the progress lines of a split step's processes
// for one bar.
type splitProgress struct {
	mu          sync.Mutex
	done, total []int
	set         func(done, total int)
}

func newSplitProgress(k int, set func(done, total int)) *splitProgress {
	return &splitProgress{done: make([]int, k), total: make([]int, k), set: set}
}

// of is process p's progress callback.
func (s *splitProgress) of(p int) func(done, total int) {
	return func(done, total int) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.done[p], s.total[p] = done, total
		var d, t int
		for i := range s.done {
			d, t = d+s.done[i], t+s.total[i]
		}
		s.set(d, t)
	}
}

// mergeServeResults is the result of a split serve step from its
// processes' results: the first one's record with the serve step of all
// (mergeServes), with the retries of all.
func mergeServeResults(parts []workerResult) workerResult {
	rec := parts[0].rec
	rec.Retries = sumRetries(parts)
	serves := make([]results.Serve, len(parts))
	times := make([]*results.WorkerTime, len(parts))
	res := workerResult{}
	for p, part := range parts {
		if part.rec.Serve == nil {
			return workerResult{err: fmt.Errorf("process %d of %d: its record has no serve step", p+1, len(parts))}
		}
		serves[p], times[p] = *part.rec.Serve, part.rec.WorkerTime
		res.longestGap = max(res.longestGap, part.longestGap)
		rec.ResidentBefore = lowest(rec.ResidentBefore, part.rec.ResidentBefore)
		rec.ResidentAfter = lowest(rec.ResidentAfter, part.rec.ResidentAfter)
		rec.PrewarmS = max(rec.PrewarmS, part.rec.PrewarmS)
	}
	s, err := mergeServes(serves)
	if err != nil {
		return workerResult{err: err}
	}
	rec.Serve = s
	rec.WorkerTime = results.MergeServeTimes(times)
	res.rec = rec
	return res
}

// lowest is the lower of two residencies (nil: not sampled): a split
// step is warm only if every process' agents were.
func lowest(a, b *float64) *float64 {
	switch {
	case a == nil:
		return b
	case b == nil || *a <= *b:
		return a
	}
	return b
}

// mergeServes is the serve step of several processes from each one's:
// requests, hits, opens, closes, pool, goroutines and the most stores
// open summed; the latency of every request of every process (the HDR
// histograms merged) and its percentiles; the longest wall time; memory,
// threads and files summed sample by sample (each process samples every
// SampleMs from its own start, and they start together); Procs keeps
// each process' own figures.
func mergeServes(parts []results.Serve) (*results.Serve, error) {
	first := parts[0]
	s := &results.Serve{Zipf: first.Zipf, Seed: first.Seed, PoolTimeS: first.PoolTimeS, SampleMs: first.SampleMs}
	all := serve.NewHistogram()
	for p, part := range parts {
		h, err := hdrhistogram.Decode(part.Histogram)
		if err != nil {
			return nil, fmt.Errorf("process %d of %d: its latency histogram: %w", p+1, len(parts), err)
		}
		all.Merge(h)
		s.Pool, s.Requests, s.Warmup, s.Concurrency = s.Pool+part.Pool, s.Requests+part.Requests, s.Warmup+part.Warmup, s.Concurrency+part.Concurrency
		s.Hits, s.LRUHits, s.Opens, s.Closes, s.MaxOpen = s.Hits+part.Hits, s.LRUHits+part.LRUHits, s.Opens+part.Opens, s.Closes+part.Closes, s.MaxOpen+part.MaxOpen
		s.StoppedEarly, s.Done = s.StoppedEarly || part.StoppedEarly, s.Done+part.Served()
		s.WallS, s.BaseRssKB, s.ServerProcesses = max(s.WallS, part.WallS), s.BaseRssKB+part.BaseRssKB, max(s.ServerProcesses, part.ServerProcesses)
		s.RssKB, s.AnonKB = sumSamples(s.RssKB, part.RssKB), sumSamples(s.AnonKB, part.AnonKB)
		s.Threads, s.FDs = sumSamples(s.Threads, part.Threads), sumSamples(s.FDs, part.FDs)
	}
	if !s.StoppedEarly {
		s.Done = 0
	}
	if err := serve.RecordLatency(s, all); err != nil {
		return nil, err
	}
	s.Procs = slices.Clone(parts)
	for p := range s.Procs {
		s.Procs[p].Histogram, s.Procs[p].RssKB, s.Procs[p].AnonKB, s.Procs[p].Threads, s.Procs[p].FDs = nil, nil, nil, nil, nil
	}
	return s, nil
}

// sumSamples adds the samples of b to those of a, sample by sample; the
// shorter one's last sample stands for its later ones.
func sumSamples[T int | int64](a, b []T) []T {
	n := max(len(a), len(b))
	if len(a) == 0 || len(b) == 0 {
		return append(slices.Clone(a), b...)
	}
	out := make([]T, n)
	for i := range out {
		out[i] = a[min(i, len(a)-1)] + b[min(i, len(b)-1)]
	}
	return out
}
