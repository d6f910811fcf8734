package worker

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"manydb/internal/datasource"
	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// openRun opens every store once, in the random order of the job's seed,
// makes the job's queries one after another and closes it, timing each
// step and the whole span, after one untimed warm-up. Every answer is
// checked after the store is closed. In a cold run each store's files are
// evicted from the page cache just before its open, outside the span, and
// how much stayed resident is recorded; the run stops, n/a, at the first
// window of stores that stayed (coldRun.judge).
func openRun(j job.Job, v engine.Variant, data datasource.Source, rec *results.Record, loop *storeLoop) error {
	dirs := storeDirs(j)
	order := Order(j.Stores, j.Seed)
	queries := j.QueriesOrCount()
	total := j.Workload.Objects + j.Appended
	fs, err := warmStart(j, v, dirs, rec, loop)
	if err != nil {
		return err
	}
	a := newAnswers(data, total)
	if slices.Contains(queries, job.QueryKNN) {
		k, err := newKNN(j, v, data)
		if err != nil {
			return err
		}
		a.knn, rec.KNNAsked = k, k.asked()
	}
	vis := newVisitor(j, v, a)
	spans := newSpans(j.Stores, queries, a.knn != nil)
	var cold *coldRun
	if j.Cache == job.CacheCold {
		cold = &coldRun{j: j, fs: fs, resident: make([]float64, j.Stores), spent: &loop.spent}
	}
	// One untimed visit of the run's last store first, so the engine's
	// one-time set-up in this fresh process is not in a sample.
	last := order[j.Stores-1]
	loop.at(last)
	a.draw(j.Seed, last, total)
	if err := warmUp(vis, loop, last, dirs[last], queries, total); err != nil {
		return err
	}
	err = loop.eachStore(j.Stores, order, func(k, i int) error {
		t := time.Now()
		a.draw(j.Seed, i, total)
		spend(&loop.spent.DataS, t)
		if cold != nil {
			if err := cold.evict(k, i, dirs[i]); err != nil {
				return err
			}
		}
		if _, err := vis.visit(i, dirs[i], queries, false); err != nil {
			return err
		}
		t = time.Now()
		defer spend(&loop.spent.DataS, t)
		if err := vis.check(i, queries, total); err != nil {
			return err
		}
		spans.add(k, vis)
		if cold != nil {
			return cold.judge(k)
		}
		return nil
	})
	var nc *notColdError
	if errors.As(err, &nc) {
		// Not cold: the run is n/a, its samples so far kept in the record.
		rec.Status, rec.Error = results.StatusNotApplicable, nc.Error()
		spans.truncate(nc.visited)
		cold.resident = cold.resident[:nc.visited]
		err = nil
	} else if err == nil {
		err = warmAfter(j, fs, dirs, rec, loop)
	}
	if err != nil {
		return err
	}
	rec.OpenMs, rec.QueryMs, rec.CloseMs, rec.TotalMs = spans.open, spans.steps, spans.close, spans.total
	rec.Cache, rec.Appended = j.Cache, j.Appended
	if cold != nil {
		rec.Resident = cold.resident
	}
	rec.Recall, rec.KNNReturned = spans.recall, spans.returned
	if !slices.Equal(queries, []job.Query{job.QueryCount}) {
		rec.Queries, rec.QueriesMs = queries, spans.perStep
	}
	return nil
}

// warmStart lists the stores' files once (listedFiles, its time the
// run's page cache work) and starts the run warm (warmBefore); it returns
// the run's filer.
func warmStart(j job.Job, v engine.Variant, dirs []string, rec *results.Record, loop *storeLoop) (filer, error) {
	t := time.Now()
	fs, err := listedFiles(v, dirs)
	spend(&loop.spent.CacheS, t)
	if err != nil {
		return nil, err
	}
	return fs, warmBefore(j, fs, dirs, rec, loop)
}

// warmBefore, in a warm run (an open run of the warm cache, a turn run,
// serve without a memory limit), reads every store's files into the page
// cache first when the job says so (Prewarm) and records the residency of
// a sample of the stores before the run; with Prewarm it reads them
// again while results.PrewarmAgain says so (the sample below
// results.WarmResident, at most results.PrewarmPasses times in all, and
// not when the files are larger than the memory available).
func warmBefore(j job.Job, fs filer, dirs []string, rec *results.Record, loop *storeLoop) error {
	if j.Cache != "" && j.Cache != job.CacheWarm {
		return nil
	}
	start := time.Now()
	defer spend(&loop.spent.CacheS, start)
	for pass := 1; ; pass++ {
		var read, avail int64
		if j.Prewarm {
			if kb, err := measure.MemAvailableKB(); err == nil {
				avail = kb << 10
			}
			n, err := readStores(j, fs, dirs, loop)
			if err != nil {
				return err
			}
			read = n
			rec.Prewarmed, rec.PrewarmS = true, time.Since(start).Seconds()
		}
		r, err := sampleResidency(fs, distinct(dirs), results.ResidencySample)
		if err != nil {
			return sampleError(j, "page cache residency before the run", err)
		}
		rec.ResidentBefore = &r
		if !j.Prewarm || !results.PrewarmAgain(pass, r, read, avail) {
			if pass > 1 {
				rec.PrewarmPasses = pass
			}
			return nil
		}
	}
}

// readStores reads the data of every file of the stores in dirs into the
// page cache (a sparse file's holes are not read), spread over the
// machine's cores (spread), and returns how many bytes it read.
func readStores(j job.Job, fs filer, dirs []string, loop *storeLoop) (int64, error) {
	dirs = distinct(dirs)
	readers := make([]*measure.CacheReader, lanes(len(dirs)))
	totals := make([]int64, len(readers))
	for g := range readers {
		r, err := measure.NewCacheReader()
		if err != nil {
			return 0, err
		}
		defer r.Close()
		readers[g] = r
	}
	err := spread(len(dirs), func(g, i int) error {
		files, err := fs(dirs[i])
		var n int64
		if err == nil {
			n, err = readers[g].Read(files)
		}
		if err != nil {
			return storeError(j, i, "read into the page cache", err)
		}
		totals[g] += n
		if g == 0 {
			loop.progress.report(0, time.Now()) // the watchdog's heartbeat
		}
		return nil
	})
	var total int64
	for _, n := range totals {
		total += n
	}
	return total, err
}

// warmAfter, after a warm run (one warmBefore sampled), records the
// residency of the same sample of stores.
func warmAfter(j job.Job, fs filer, dirs []string, rec *results.Record, loop *storeLoop) error {
	if rec.ResidentBefore == nil {
		return nil
	}
	defer spend(&loop.spent.CacheS, time.Now())
	r, err := sampleResidency(fs, distinct(dirs), results.ResidencySample)
	if err != nil {
		return sampleError(j, "page cache residency after the run", err)
	}
	rec.ResidentAfter = &r
	return nil
}

// warmUp makes an untimed visit of store i, the steps checked, before a
// phase's first timed one: the engine's one-time set-up in a fresh
// process (libraries, shared caches) is then in no sample.
func warmUp(vis *visitor, loop *storeLoop, i int, dir string, steps []job.Query, total int) error {
	defer spend(&loop.spent.UntimedS, time.Now())
	if _, err := vis.visit(i, dir, steps, false); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	if err := vis.check(i, steps, total); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return nil
}

// spans are the timed spans of a phase's visits, one sample per store in
// the order visited.
type spans struct {
	open, steps, close, total []float64
	perStep                   map[job.Query][]float64
	recall                    []float64 // with a knn step: each answer's recall
	returned                  []int     // and the ids it held
	names                     []job.Query
}

// newSpans makes room for n visits of the steps names.
func newSpans(n int, names []job.Query, knn bool) *spans {
	s := &spans{open: make([]float64, n), steps: make([]float64, n), close: make([]float64, n),
		total: make([]float64, n), perStep: map[job.Query][]float64{}, names: names}
	for _, name := range names {
		s.perStep[name] = make([]float64, n)
	}
	if knn {
		s.recall, s.returned = make([]float64, n), make([]int, n)
	}
	return s
}

// add keeps the spans of vis's last visit (and its knn's recall) as the
// k-th sample.
func (s *spans) add(k int, vis *visitor) {
	s.open[k], s.steps[k], s.close[k], s.total[k] = vis.openMs(), vis.stepsMs(), vis.closeMs(), vis.totalMs()
	for q, name := range s.names {
		s.perStep[name][k] = vis.stepMs(q)
	}
	if s.recall != nil {
		s.recall[k], s.returned[k] = vis.a.recall, len(vis.a.knn.ids)
	}
}

// truncate keeps the first n visits' samples.
func (s *spans) truncate(n int) {
	s.open, s.steps, s.close, s.total = s.open[:n], s.steps[:n], s.close[:n], s.total[:n]
	for name, xs := range s.perStep {
		s.perStep[name] = xs[:n]
	}
	if s.recall != nil {
		s.recall, s.returned = s.recall[:n], s.returned[:n]
	}
}

// sampleResidency returns the fraction of the file pages of up to k of
// the stores in dirs, evenly spaced, that are in the page cache
// (measure.ResidentFiles: nothing is read in), spread over the machine's
// cores.
func sampleResidency(fs filer, dirs []string, k int) (float64, error) {
	n := len(dirs)
	k = min(k, n)
	sums := make([]measure.Residency, lanes(k))
	err := spread(k, func(g, j int) error {
		files, err := fs(dirs[j*n/k])
		if err != nil {
			return &sampledError{j * n / k, err}
		}
		r, err := measure.ResidentFiles(files)
		if err != nil {
			return &sampledError{j * n / k, err}
		}
		sums[g].Add(r)
		return nil
	})
	var sum measure.Residency
	for _, r := range sums {
		sum.Add(r)
	}
	return sum.Fraction(), err
}

// coldRun evicts each store's files from the page cache before its open
// in a cold run, and keeps the share of their pages that stayed.
type coldRun struct {
	j        job.Job
	fs       filer
	resident []float64           // per store, in the order visited
	spent    *results.WorkerTime // the worker's account, whose CacheS the evictions add to
}

// evict evicts store i, the k-th visited, whose directory is dir.
func (c *coldRun) evict(k, i int, dir string) error {
	defer spend(&c.spent.CacheS, time.Now())
	r, err := evict(c.fs, dir)
	if err != nil {
		return storeError(c.j, i, "evict from the page cache", err)
	}
	c.resident[k] = r
	return nil
}

// judge, after the k-th store's visit, returns a *notColdError when k
// ends a window of results.ColdProbe stores (not the run's last) whose
// median share that stayed is above results.NotColdAbove.
func (c *coldRun) judge(k int) error {
	n := k + 1
	if n%results.ColdProbe != 0 || n == len(c.resident) {
		return nil
	}
	if m := stats.Median(c.resident[n-results.ColdProbe : n]); m > results.NotColdAbove {
		return &notColdError{resident: m, visited: n}
	}
	return nil
}

// notColdError stops a cold run whose stores stay in the page cache.
type notColdError struct {
	resident float64 // the median share that stayed in the last window
	visited  int     // stores visited
}

func (e *notColdError) Error() string {
	return fmt.Sprintf("not cold: after %d stores, %.0f %% of the last %d stores' pages stayed in the page cache after eviction "+
		"(the worker maps them, or the filesystem keeps them); the run stopped there", e.visited, 100*e.resident, results.ColdProbe)
}

// evict drops the store's files from the page cache, each synced first
// (measure.SyncEvictFiles), and returns the fraction of their pages still
// resident.
func evict(fs filer, dir string) (float64, error) {
	files, err := fs(dir)
	if err != nil {
		return 0, err
	}
	if err := measure.SyncEvictFiles(files); err != nil {
		return 0, err
	}
	r, err := measure.ResidentFiles(files)
	return r.Fraction(), err
}

// sampledError is the error of sampleResidency on the store at index.
type sampledError struct {
	index int
	err   error
}

func (e *sampledError) Error() string { return e.err.Error() }
func (e *sampledError) Unwrap() error { return e.err }

// sampleError is the error of a residency sample in a phase of job j
// (step says which): a store's error names the store.
func sampleError(j job.Job, step string, err error) error {
	var se *sampledError
	if errors.As(err, &se) {
		return storeError(j, se.index, step, se.err)
	}
	return fmt.Errorf("%s: %w", step, err)
}
