package worker

import (
	"fmt"
	"math/rand/v2"

	"manydb/internal/datasource"
	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/workload"
)

// answers holds what the steps of one visit need and what its queries
// returned; its buffers are reused from store to store, so no step
// allocates them in a timed span.
type answers struct {
	data   datasource.Source // what the answers are checked against
	count  int64
	ids    []int64
	recent []workload.Note
	get    []workload.Note
	scan   []workload.Note
	onNote func(workload.Note) // appends to scan; made once
	knn    *knn                // nil without embeddings
	recall float64             // of the last knn answer checked
	note   workload.Note       // what the append step writes
}

func newAnswers(data datasource.Source, total int) *answers {
	a := &answers{
		data:   data,
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

// run makes step name (a query, or the append of a.note) on s.
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
	case job.QueryAppend:
		err = s.Append(a.note)
	default:
		err = fmt.Errorf("unknown query %q", name)
	}
	return err
}

// check compares the answer of query name on store i with the data
// source, the store holding total notes (the workload's and the appended
// ones). An append has no answer: the next visit's recent reads it back.
func (a *answers) check(name job.Query, i, total int) error {
	switch name {
	case job.QueryCount:
		if a.count != int64(total) {
			return fmt.Errorf("count returned %d notes, want %d", a.count, total)
		}
	case job.QueryRecent:
		return checkNotes(a.data, i, a.recent, min(job.RecentN, total), func(k int) int64 { return int64(total - k) })
	case job.QueryGet:
		return checkNotes(a.data, i, a.get, len(a.ids), func(k int) int64 { return a.ids[k] })
	case job.QueryScan:
		return checkNotes(a.data, i, a.scan, total, func(k int) int64 { return int64(k + 1) })
	case job.QueryKNN:
		r, err := a.knn.check(total)
		a.recall = r
		return err
	}
	return nil
}

// checkNotes checks that got holds n notes, the k-th being note id(k).
func checkNotes(data datasource.Source, i int, got []workload.Note, n int, id func(k int) int64) error {
	if len(got) != n {
		return fmt.Errorf("%d notes returned, want %d", len(got), n)
	}
	for k, note := range got {
		if err := data.Check(i, id(k), note); err != nil {
			return fmt.Errorf("returned note %d: %w", k, err)
		}
	}
	return nil
}
