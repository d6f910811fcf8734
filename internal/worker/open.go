package worker

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/results"
	"manydb/internal/workload"
)

// answers holds what the queries of one store returned; its buffers are
// reused from store to store, so no query allocates them in a timed span.
type answers struct {
	count  int64
	ids    []int64
	recent []workload.Note
	get    []workload.Note
	scan   []workload.Note
	onNote func(workload.Note) // appends to scan; made once
	knn    *knn                // nil without embeddings
	recall float64             // of the last knn answer checked
}

func newAnswers(total int) *answers {
	a := &answers{
		ids:    make([]int64, job.GetN),
		recent: make([]workload.Note, 0, job.RecentN),
		get:    make([]workload.Note, 0, job.GetN),
		scan:   make([]workload.Note, 0, total),
	}
	a.onNote = func(n workload.Note) { a.scan = append(a.scan, n) }
	return a
}

// drawIDs picks the ids of store i's get query for a run's seed: GetN ids
// from 1 to total, from a PCG seeded with (seed, i+1).
func (a *answers) drawIDs(seed uint64, i, total int) {
	r := rand.New(rand.NewPCG(seed, uint64(i)+1))
	for k := range a.ids {
		a.ids[k] = 1 + r.Int64N(int64(total))
	}
}

// draw picks store i's get ids and knn query for a run's seed.
func (a *answers) draw(seed uint64, i, total int) {
	a.drawIDs(seed, i, total)
	if a.knn != nil {
		a.knn.draw(seed, i, total)
	}
}

// run makes query name on s.
func (a *answers) run(name job.Query, s engine.Store) error {
	var err error
	switch name {
	case job.QueryCount:
		a.count, err = s.Count()
	case job.QueryRecent:
		a.recent, err = s.Recent(job.RecentN, a.recent[:0])
	case job.QueryGet:
		a.get, err = s.Get(a.ids, a.get[:0])
	case job.QueryScan:
		a.scan = a.scan[:0]
		err = s.Scan(a.onNote)
	case job.QueryKNN:
		if a.knn == nil {
			return fmt.Errorf("knn without embeddings (--dims)")
		}
		err = a.knn.run(s)
	default:
		err = fmt.Errorf("unknown query %q", name)
	}
	return err
}

// check compares the answer of query name on store i with the workload,
// the store holding total notes (the workload's and the appended ones).
func (a *answers) check(spec workload.Spec, name job.Query, i, total int) error {
	switch name {
	case job.QueryCount:
		if a.count != int64(total) {
			return fmt.Errorf("count returned %d notes, want %d", a.count, total)
		}
	case job.QueryRecent:
		return checkNotes(spec, i, a.recent, min(job.RecentN, total), func(k int) int64 { return int64(total - k) })
	case job.QueryGet:
		return checkNotes(spec, i, a.get, len(a.ids), func(k int) int64 { return a.ids[k] })
	case job.QueryScan:
		if err := checkNotes(spec, i, a.scan, total, func(k int) int64 { return int64(k + 1) }); err != nil {
			return err
		}
		bytes := 0
		for _, n := range a.scan {
			bytes += len(n.Text)
		}
		if bytes != total*spec.TextLen {
			return fmt.Errorf("scan read %d bytes of text, want %d", bytes, total*spec.TextLen)
		}
	case job.QueryKNN:
		r, err := a.knn.check(total)
		a.recall = r
		return err
	}
	return nil
}

// checkNotes checks that got holds n notes, the k-th being note id(k).
func checkNotes(spec workload.Spec, i int, got []workload.Note, n int, id func(k int) int64) error {
	if len(got) != n {
		return fmt.Errorf("%d notes returned, want %d", len(got), n)
	}
	for k, note := range got {
		if err := spec.Check(i, id(k), note); err != nil {
			return fmt.Errorf("returned note %d: %w", k, err)
		}
	}
	return nil
}

// openRun opens every store once, in the random order of the job's seed,
// makes the job's queries one after another and closes it, timing each
// step and the whole span, after one untimed warm-up. Every answer is
// checked after the store is closed. In a cold run each store's files are
// evicted from the page cache just before its open, outside the span, and
// how much stayed resident is recorded.
func openRun(j job.Job, v engine.Variant, rec *results.Record, loop *storeLoop) error {
	dirs := storeDirs(j)
	order := Order(j.Stores, j.Seed)
	queries := j.QueriesOrCount()
	total := j.Workload.Objects + j.Appended
	n := j.Stores
	openMs, queryMs, closeMs, totalMs := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	perQuery := make([][]float64, len(queries))
	for q := range perQuery {
		perQuery[q] = make([]float64, n)
	}
	var resident []float64
	if j.Cache == job.CacheCold {
		resident = make([]float64, n)
	}
	if j.Cache == "" || j.Cache == job.CacheWarm {
		if j.Prewarm {
			for i, dir := range dirs {
				if err := measure.ReadAll(dir); err != nil {
					return storeError(j, i, "read into the page cache", err)
				}
				loop.progress.report(0, time.Now()) // the watchdog's heartbeat
			}
			rec.Prewarmed = true
		}
		r, err := sampleResidency(dirs, results.ResidencySample)
		if err != nil {
			return fmt.Errorf("page cache residency before the run: %w", err)
		}
		rec.ResidentBefore = &r
	}
	a := newAnswers(total)
	var recall []float64
	if slices.Contains(queries, job.QueryKNN) {
		k, err := newKNN(j.Workload, v)
		if err != nil {
			return err
		}
		a.knn, recall = k, make([]float64, n)
	}
	stamps := make([]time.Time, len(queries)+1)
	// One untimed pass over the run's last store first, so the engine's
	// one-time set-up in this fresh process is not in a sample.
	last := order[n-1]
	loop.at(last)
	a.draw(j.Seed, last, total)
	if err := visit(v, dirs[last], queries, a); err != nil {
		return storeError(j, last, "warm-up", err)
	}
	err := loop.eachStore(n, order, func(k, i int) error {
		a.draw(j.Seed, i, total)
		if resident != nil {
			r, err := evict(dirs[i])
			if err != nil {
				return storeError(j, i, "evict from the page cache", err)
			}
			resident[k] = r
		}
		t0 := time.Now()
		s, err := v.Open(dirs[i])
		t1 := time.Now()
		if err != nil {
			return storeError(j, i, "open", err)
		}
		for q, name := range queries {
			if err := a.run(name, s); err != nil {
				s.Close()
				return storeError(j, i, string(name), err)
			}
			stamps[q] = time.Now()
		}
		t2 := stamps[len(queries)-1]
		err = s.Close()
		t3 := time.Now()
		if err != nil {
			return storeError(j, i, "close", err)
		}
		for q, name := range queries {
			if err := a.check(j.Workload, name, i, total); err != nil {
				return storeError(j, i, string(name), err)
			}
			from := t1
			if q > 0 {
				from = stamps[q-1]
			}
			perQuery[q][k] = ms(stamps[q].Sub(from))
		}
		if recall != nil {
			recall[k] = a.recall
		}
		openMs[k], queryMs[k], closeMs[k], totalMs[k] = ms(t1.Sub(t0)), ms(t2.Sub(t1)), ms(t3.Sub(t2)), ms(t3.Sub(t0))
		return nil
	})
	if err != nil {
		return err
	}
	rec.OpenMs, rec.QueryMs, rec.CloseMs, rec.TotalMs = openMs, queryMs, closeMs, totalMs
	rec.Cache, rec.Resident, rec.Appended, rec.Recall = j.Cache, resident, j.Appended, recall
	if !slices.Equal(queries, []job.Query{job.QueryCount}) {
		rec.Queries = queries
		rec.QueriesMs = map[job.Query][]float64{}
		for q, name := range queries {
			rec.QueriesMs[name] = perQuery[q]
		}
	}
	return nil
}

// visit opens the store in dir, makes the queries, closes it and checks
// the count, untimed (a warm-up).
func visit(v engine.Variant, dir string, queries []job.Query, a *answers) error {
	s, err := v.Open(dir)
	if err != nil {
		return err
	}
	for _, name := range queries {
		if err := a.run(name, s); err != nil {
			s.Close()
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return s.Close()
}

// sampleResidency returns the fraction of the file pages of up to k of
// the stores in dirs, evenly spaced, that are in the page cache (mincore
// on a read-only mapping: nothing is read in).
func sampleResidency(dirs []string, k int) (float64, error) {
	n := len(dirs)
	k = min(k, n)
	var sum measure.Residency
	for j := range k {
		r, err := measure.Resident(dirs[j*n/k])
		if err != nil {
			return 0, err
		}
		sum.Pages += r.Pages
		sum.Resident += r.Resident
		sum.Allocated += r.Allocated
	}
	return sum.Fraction(), nil
}

// evict drops the store's files from the page cache and returns the
// fraction of their pages still resident.
func evict(dir string) (float64, error) {
	if err := measure.Evict(dir); err != nil {
		return 0, err
	}
	r, err := measure.Resident(dir)
	return r.Fraction(), err
}
