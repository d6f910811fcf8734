package worker

import (
	"fmt"
	"time"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
)

// readBack is how many stores a turn run reads back its append itself.
const readBack = 10

// turn runs one agent turn on every store, in the random order of the
// job's seed: open, the RecentN newest notes, append one note in its own
// transaction, close; each step and the whole span timed. With
// embeddings a turn recalls before it reads: the knn query for the
// embedding of the note it is about to append comes first, its answer
// checked (and its recall recorded) after the close. The newest note
// read must be the one the previous turn appended (or the workload's last
// note before the first turn), so every append is read back by the next
// turn. The warm-up opens and reads the run's last store without
// appending to it.
func turn(j job.Job, v engine.Variant, rec *results.Record, loop *storeLoop) error {
	dirs := storeDirs(j)
	order := Order(j.Stores, j.Seed)
	total := j.Workload.Objects + j.Appended
	n := j.Stores
	openMs, recentMs, appendMs, closeMs, totalMs := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	a := newAnswers(total)
	k, err := newKNN(j.Workload, v)
	if err != nil {
		return err
	}
	var knnMs, recall []float64
	if k != nil {
		a.knn, knnMs, recall = k, make([]float64, n), make([]float64, n)
	}
	last := order[n-1]
	loop.at(last)
	warmup := []job.Query{job.QueryRecent}
	if a.knn != nil {
		a.knn.drawNote(last, int64(total+1))
		warmup = []job.Query{job.QueryKNN, job.QueryRecent}
	}
	if err := visit(v, dirs[last], warmup, a); err != nil {
		return storeError(j, last, "warm-up", err)
	}
	err = loop.eachStore(n, order, func(k, i int) error {
		note := j.Workload.TurnNote(i, j.Appended+1)
		if a.knn != nil {
			a.knn.drawNote(i, note.ID)
		}
		t0 := time.Now()
		s, err := v.Open(dirs[i])
		t1 := time.Now()
		if err != nil {
			return storeError(j, i, "open", err)
		}
		tk := t1 // the knn's end: the recent's start
		if a.knn != nil {
			err = a.knn.run(s)
			tk = time.Now()
			if err != nil {
				s.Close()
				return storeError(j, i, string(job.QueryKNN), err)
			}
		}
		a.recent, err = s.Recent(job.RecentN, a.recent[:0])
		t2 := time.Now()
		if err != nil {
			s.Close()
			return storeError(j, i, string(job.QueryRecent), err)
		}
		err = s.Append(note)
		t3 := time.Now()
		if err != nil {
			s.Close()
			return storeError(j, i, string(job.QueryAppend), err)
		}
		err = s.Close()
		t4 := time.Now()
		if err != nil {
			return storeError(j, i, "close", err)
		}
		if err := a.check(j.Workload, job.QueryRecent, i, total); err != nil {
			return storeError(j, i, string(job.QueryRecent), fmt.Errorf("the notes before turn %d: %w", j.Appended+1, err))
		}
		if a.knn != nil {
			r, err := a.knn.check(total)
			if err != nil {
				return storeError(j, i, string(job.QueryKNN), fmt.Errorf("turn %d: %w", j.Appended+1, err))
			}
			knnMs[k], recall[k] = ms(tk.Sub(t1)), r
		}
		openMs[k], recentMs[k], appendMs[k] = ms(t1.Sub(t0)), ms(t2.Sub(tk)), ms(t3.Sub(t2))
		closeMs[k], totalMs[k] = ms(t4.Sub(t3)), ms(t4.Sub(t0))
		return nil
	})
	if err != nil {
		return err
	}
	// The next turn run reads every append back first; the appends of this
	// run's first readBack stores are read back now as well (untimed), so
	// the last run's appends are checked too.
	for _, i := range order[:min(readBack, n)] {
		loop.at(i)
		s, err := v.Open(dirs[i])
		if err != nil {
			return storeError(j, i, "open to read the append back", err)
		}
		a.recent, err = s.Recent(1, a.recent[:0])
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		if err == nil && len(a.recent) == 1 {
			err = j.Workload.Check(i, int64(total+1), a.recent[0])
		} else if err == nil {
			err = fmt.Errorf("recent returned %d notes, want 1", len(a.recent))
		}
		if err != nil {
			return storeError(j, i, "read the appended note back", err)
		}
	}
	rec.OpenMs, rec.CloseMs, rec.TotalMs = openMs, closeMs, totalMs
	rec.Queries = []job.Query{job.QueryRecent, job.QueryAppend}
	rec.QueriesMs = map[job.Query][]float64{job.QueryRecent: recentMs, job.QueryAppend: appendMs}
	if a.knn != nil {
		rec.Queries = append([]job.Query{job.QueryKNN}, rec.Queries...)
		rec.QueriesMs[job.QueryKNN] = knnMs
		rec.Recall = recall
	}
	rec.Appended = j.Appended
	return nil
}
