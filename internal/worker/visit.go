package worker

import (
	"fmt"
	"os"
	"time"

	"manydb/internal/engine"
	"manydb/internal/job"
)

// A visit is what every phase but create, space and profile does with a
// store: open it, make its steps one after another (queries, a knn, an
// append: answers.run) and close it, or keep it open (hold). One function
// makes every visit (visitor.visit), with the clock read before the open
// and after each engine call and nothing else in between; the answers are
// checked afterwards (visitor.check), outside the spans. The open runs,
// the turns, the hold and their warm-ups differ only in their steps and
// in which spans they keep.
type visitor struct {
	j job.Job
	v engine.Variant
	// open opens store i, whose directory is dir (opener).
	open func(i int, dir string) (engine.Store, error)
	a    *answers
	// stamps are the clock readings of the last visit: before the open,
	// after the open, after each of its steps and after the close.
	stamps []time.Time
	steps  int // the last visit's number of steps
	// during, when set, names what the checks' errors happened in (e.g.
	// "turn 3").
	during string
}

func newVisitor(j job.Job, v engine.Variant, a *answers) *visitor {
	// Run refused an unreadable delay before any visit.
	delay, _ := job.ParseTestOpenDelay(os.Getenv(job.TestOpenDelayEnv))
	return &visitor{j: j, v: v, open: withDelay(opener(v), delay), a: a}
}

// withDelay returns open with a busy wait of d before each open, inside
// the open's timed span (job.TestOpenDelayEnv, for tests of the A/B
// method only); open itself when d is 0.
func withDelay(open func(int, string) (engine.Store, error), d time.Duration) func(int, string) (engine.Store, error) {
	if d == 0 {
		return open
	}
	return func(i int, dir string) (engine.Store, error) {
		for start := time.Now(); time.Since(start) < d; {
		}
		return open(i, dir)
	}
}

// visit opens store i, whose directory is dir, makes steps on it and,
// unless keep, closes it. With keep it returns the open store. A failure
// is a *StoreError naming the call that failed; a store whose step failed
// is closed.
func (vis *visitor) visit(i int, dir string, steps []job.Query, keep bool) (engine.Store, error) {
	n := len(steps)
	if len(vis.stamps) < n+3 {
		vis.stamps = make([]time.Time, n+3)
	}
	vis.steps = n
	st := vis.stamps
	st[0] = time.Now()
	s, err := vis.open(i, dir)
	st[1] = time.Now()
	if err != nil {
		return nil, storeError(vis.j, i, "open", err)
	}
	for q, name := range steps {
		err = vis.a.run(name, s)
		st[q+2] = time.Now()
		if err != nil {
			s.Close()
			return nil, storeError(vis.j, i, string(name), err)
		}
	}
	if keep {
		return s, nil
	}
	err = s.Close()
	st[n+2] = time.Now()
	if err != nil {
		return nil, storeError(vis.j, i, "close", err)
	}
	return nil, nil
}

// check checks the answers of the last visit's steps on store i, which
// held total notes before them; the first wrong one is a *StoreError
// naming its step.
func (vis *visitor) check(i int, steps []job.Query, total int) error {
	for _, name := range steps {
		if err := vis.a.check(name, i, total); err != nil {
			if vis.during != "" {
				err = fmt.Errorf("%s: %w", vis.during, err)
			}
			return storeError(vis.j, i, string(name), err)
		}
	}
	return nil
}

// The spans of the last visit, in milliseconds (close and total only
// when the store was closed).

func (vis *visitor) openMs() float64 { return ms(vis.stamps[1].Sub(vis.stamps[0])) }

// stepMs is the span of step q alone.
func (vis *visitor) stepMs(q int) float64 { return ms(vis.stamps[q+2].Sub(vis.stamps[q+1])) }

// stepsMs is the span of all the steps, from the open's end.
func (vis *visitor) stepsMs() float64 { return ms(vis.stamps[vis.steps+1].Sub(vis.stamps[1])) }

func (vis *visitor) closeMs() float64 {
	n := vis.steps
	return ms(vis.stamps[n+2].Sub(vis.stamps[n+1]))
}

func (vis *visitor) totalMs() float64 { return ms(vis.stamps[vis.steps+2].Sub(vis.stamps[0])) }

// engineTime is the time in engine calls of the last visit, from before
// the open to after its last step (a kept store's visit).
func (vis *visitor) engineTime() time.Duration { return vis.stamps[vis.steps+1].Sub(vis.stamps[0]) }
