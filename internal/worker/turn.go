package worker

import (
	"fmt"
	"time"

	"manydb/internal/datasource"
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
// appending to it. A turn run starts warm, as a warm open run does
// (warmBefore): the cold runs before it may have evicted the stores; the
// same sample's residency is recorded after it (warmAfter).
func turn(j job.Job, v engine.Variant, data datasource.Source, rec *results.Record, loop *storeLoop) error {
	dirs := storeDirs(j)
	fs, err := warmStart(j, v, dirs, rec, loop)
	if err != nil {
		return err
	}
	order := Order(j.Stores, j.Seed)
	total := j.Workload.Objects + j.Appended
	a := newAnswers(data, total)
	kq, err := newKNN(j, v, data)
	if err != nil {
		return err
	}
	if kq != nil {
		rec.KNNAsked = kq.asked()
	}
	steps := []job.Query{job.QueryRecent, job.QueryAppend}
	if kq != nil {
		a.knn, steps = kq, []job.Query{job.QueryKNN, job.QueryRecent, job.QueryAppend}
	}
	vis := newVisitor(j, v, a)
	spans := newSpans(j.Stores, steps, kq != nil)
	last := order[j.Stores-1]
	loop.at(last)
	if kq != nil {
		kq.drawNote(last, int64(total+1))
	}
	// A wrong answer is of the notes the turns before left.
	vis.during = fmt.Sprintf("the notes before turn %d", j.Appended+1)
	if err := warmUp(vis, loop, last, dirs[last], steps[:len(steps)-1], total); err != nil {
		return err
	}
	err = loop.eachStore(j.Stores, order, func(k, i int) error {
		t := time.Now()
		a.note = data.Turn(i, j.Appended+1)
		if kq != nil {
			kq.drawNote(i, a.note.ID)
		}
		spend(&loop.spent.DataS, t)
		if _, err := vis.visit(i, dirs[i], steps, false); err != nil {
			return err
		}
		t = time.Now()
		defer spend(&loop.spent.DataS, t)
		if err := vis.check(i, steps, total); err != nil {
			return err
		}
		spans.add(k, vis)
		return nil
	})
	if err != nil {
		return err
	}
	if err := warmAfter(j, fs, dirs, rec, loop); err != nil {
		return err
	}
	if err := readBackAppends(vis, loop, dirs, order[:min(readBack, j.Stores)], total+1); err != nil {
		return err
	}
	rec.OpenMs, rec.CloseMs, rec.TotalMs = spans.open, spans.close, spans.total
	rec.Queries, rec.QueriesMs, rec.Recall, rec.KNNReturned = steps, spans.perStep, spans.recall, spans.returned
	rec.Appended = j.Appended
	return nil
}

// readBackAppends reads back, untimed, the append of this turn run on the
// stores in order: their recent query must now start with note newest.
// The next turn run reads every append back first; these stores' are read
// back now as well, so that the last run's appends are checked too.
func readBackAppends(vis *visitor, loop *storeLoop, dirs []string, order []int, newest int) error {
	vis.during = "read the appended note back"
	defer spend(&loop.spent.UntimedS, time.Now())
	steps := []job.Query{job.QueryRecent}
	for _, i := range order {
		loop.at(i)
		if _, err := vis.visit(i, dirs[i], steps, false); err != nil {
			return err
		}
		if err := vis.check(i, steps, newest); err != nil {
			return err
		}
	}
	return nil
}
