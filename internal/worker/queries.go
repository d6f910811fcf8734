package worker

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"manydb/internal/engine"
	"manydb/internal/measure"
	"manydb/internal/results"
	"manydb/internal/workload"
)

// The queries of an open run (--queries) and what each asks for.
const (
	QueryCount  = "count"  // the number of notes (the reference's query)
	QueryRecent = "recent" // the RecentN newest notes
	QueryGet    = "get"    // GetN notes by id, drawn per store from the run's seed
	QueryScan   = "scan"   // every note
	// QueryAppend is the write of a turn: one new note in its own transaction.
	QueryAppend = "append"

	RecentN = 20
	GetN    = 10

	readBack = 10 // stores whose append a turn run reads back itself
)

// queryNames lists the queries an open run can make, in their usual order.
func queryNames() []string { return []string{QueryCount, QueryRecent, QueryGet, QueryScan} }

// Cache modes of an open run (Job.Cache). The third, "drop", is the
// orchestrator's: it drops the kernel's caches before a worker whose
// stores it then opens warm-code-path.
const (
	CacheWarm = ""
	CacheCold = "cold"
	CacheDrop = "drop"
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
}

func newAnswers(total int) *answers {
	a := &answers{
		ids:    make([]int64, GetN),
		recent: make([]workload.Note, 0, RecentN),
		get:    make([]workload.Note, 0, GetN),
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

// run makes query name on s.
func (a *answers) run(name string, s engine.Store) error {
	var err error
	switch name {
	case QueryCount:
		a.count, err = s.Count()
	case QueryRecent:
		a.recent, err = s.Recent(RecentN, a.recent[:0])
	case QueryGet:
		a.get, err = s.Get(a.ids, a.get[:0])
	case QueryScan:
		a.scan = a.scan[:0]
		err = s.Scan(a.onNote)
	default:
		err = fmt.Errorf("unknown query %q", name)
	}
	return err
}

// check compares the answer of query name on store i with the workload,
// the store holding total notes (the workload's and the appended ones).
func (a *answers) check(spec workload.Spec, name string, i, total int) error {
	switch name {
	case QueryCount:
		if a.count != int64(total) {
			return fmt.Errorf("count returned %d notes, want %d", a.count, total)
		}
	case QueryRecent:
		return checkNotes(spec, i, a.recent, min(RecentN, total), func(k int) int64 { return int64(total - k) })
	case QueryGet:
		return checkNotes(spec, i, a.get, len(a.ids), func(k int) int64 { return a.ids[k] })
	case QueryScan:
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
func openRun(job Job, v engine.Variant, rec *results.Record, p *progress) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	dirs := storeDirs(job)
	order := Order(job.Stores, job.Seed)
	queries := job.queries()
	total := job.Workload.Objects + job.Appended
	n := job.Stores
	openMs, queryMs, closeMs, totalMs := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	perQuery := make([][]float64, len(queries))
	for q := range perQuery {
		perQuery[q] = make([]float64, n)
	}
	var resident []float64
	if job.Cache == CacheCold {
		resident = make([]float64, n)
	}
	if job.Cache == "" || job.Cache == CacheWarm {
		if job.Prewarm {
			for i, dir := range dirs {
				if err := measure.ReadAll(dir); err != nil {
					return storeError(job, i, "read into the page cache", err)
				}
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
	stamps := make([]time.Time, len(queries)+1)
	// One untimed pass over the run's last store first, so the engine's
	// one-time set-up in this fresh process is not in a sample.
	last := order[n-1]
	p.at(last)
	a.drawIDs(job.Seed, last, total)
	if err := visit(v, dirs[last], queries, a); err != nil {
		return storeError(job, last, "warm-up", err)
	}
	for k, i := range order {
		p.at(i)
		a.drawIDs(job.Seed, i, total)
		if resident != nil {
			r, err := evict(dirs[i])
			if err != nil {
				return storeError(job, i, "evict from the page cache", err)
			}
			resident[k] = r
		}
		t0 := time.Now()
		s, err := v.Open(dirs[i])
		t1 := time.Now()
		if err != nil {
			return storeError(job, i, "open", err)
		}
		for q, name := range queries {
			if err := a.run(name, s); err != nil {
				s.Close()
				return storeError(job, i, name, err)
			}
			stamps[q] = time.Now()
		}
		t2 := stamps[len(queries)-1]
		err = s.Close()
		t3 := time.Now()
		if err != nil {
			return storeError(job, i, "close", err)
		}
		for q, name := range queries {
			if err := a.check(job.Workload, name, i, total); err != nil {
				return storeError(job, i, name, err)
			}
			from := t1
			if q > 0 {
				from = stamps[q-1]
			}
			perQuery[q][k] = ms(stamps[q].Sub(from))
		}
		openMs[k], queryMs[k], closeMs[k], totalMs[k] = ms(t1.Sub(t0)), ms(t2.Sub(t1)), ms(t3.Sub(t2)), ms(t3.Sub(t0))
		p.step(k + 1)
	}
	rec.OpenMs, rec.QueryMs, rec.CloseMs, rec.TotalMs = openMs, queryMs, closeMs, totalMs
	rec.Cache, rec.Resident, rec.Appended = job.Cache, resident, job.Appended
	if !slices.Equal(queries, []string{QueryCount}) {
		rec.Queries = queries
		rec.QueriesMs = map[string][]float64{}
		for q, name := range queries {
			rec.QueriesMs[name] = perQuery[q]
		}
	}
	return nil
}

// visit opens the store in dir, makes the queries, closes it and checks
// the count, untimed (a warm-up).
func visit(v engine.Variant, dir string, queries []string, a *answers) error {
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

// turn runs one agent turn on every store, in the random order of the
// job's seed: open, the RecentN newest notes, append one note in its own
// transaction, close; each step and the whole span timed. The newest note
// read must be the one the previous turn appended (or the workload's last
// note before the first turn), so every append is read back by the next
// turn. The warm-up opens and reads the run's last store without
// appending to it.
func turn(job Job, v engine.Variant, rec *results.Record, p *progress) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	dirs := storeDirs(job)
	order := Order(job.Stores, job.Seed)
	total := job.Workload.Objects + job.Appended
	n := job.Stores
	openMs, recentMs, appendMs, closeMs, totalMs := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	a := newAnswers(total)
	last := order[n-1]
	p.at(last)
	if err := visit(v, dirs[last], []string{QueryRecent}, a); err != nil {
		return storeError(job, last, "warm-up", err)
	}
	for k, i := range order {
		p.at(i)
		note := job.Workload.TurnNote(i, job.Appended+1)
		t0 := time.Now()
		s, err := v.Open(dirs[i])
		t1 := time.Now()
		if err != nil {
			return storeError(job, i, "open", err)
		}
		a.recent, err = s.Recent(RecentN, a.recent[:0])
		t2 := time.Now()
		if err != nil {
			s.Close()
			return storeError(job, i, QueryRecent, err)
		}
		err = s.Append(note)
		t3 := time.Now()
		if err != nil {
			s.Close()
			return storeError(job, i, QueryAppend, err)
		}
		err = s.Close()
		t4 := time.Now()
		if err != nil {
			return storeError(job, i, "close", err)
		}
		if err := a.check(job.Workload, QueryRecent, i, total); err != nil {
			return storeError(job, i, QueryRecent, fmt.Errorf("the notes before turn %d: %w", job.Appended+1, err))
		}
		openMs[k], recentMs[k], appendMs[k] = ms(t1.Sub(t0)), ms(t2.Sub(t1)), ms(t3.Sub(t2))
		closeMs[k], totalMs[k] = ms(t4.Sub(t3)), ms(t4.Sub(t0))
		p.step(k + 1)
	}
	// The next turn run reads every append back first; the appends of this
	// run's first readBack stores are read back now as well (untimed), so
	// the last run's appends are checked too.
	for _, i := range order[:min(readBack, n)] {
		s, err := v.Open(dirs[i])
		if err != nil {
			return storeError(job, i, "open to read the append back", err)
		}
		a.recent, err = s.Recent(1, a.recent[:0])
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		if err == nil && len(a.recent) == 1 {
			err = job.Workload.Check(i, int64(total+1), a.recent[0])
		} else if err == nil {
			err = fmt.Errorf("recent returned %d notes, want 1", len(a.recent))
		}
		if err != nil {
			return storeError(job, i, "read the appended note back", err)
		}
	}
	rec.OpenMs, rec.CloseMs, rec.TotalMs = openMs, closeMs, totalMs
	rec.Queries = []string{QueryRecent, QueryAppend}
	rec.QueriesMs = map[string][]float64{QueryRecent: recentMs, QueryAppend: appendMs}
	rec.Appended = job.Appended
	return nil
}
