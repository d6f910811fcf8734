package orchestrate

import (
	"fmt"
	"io"
	"time"

	"manydb/internal/job"
)

// sessionETA estimates when a run's session ends: the wall time so far in
// this session over the phases it has done, times the phases left. Phases
// differ in length (a create takes longer than an open run), but every
// variant has the same mix, so after the first variant the estimate holds
// to within the variants' differences. Cells recorded by an earlier
// session are not counted.
type sessionETA struct {
	log   io.Writer
	start time.Time
	total int // phases this session has to do
	done  int // of them, done (or failed) so far
}

// newSessionETA counts the phases the studies have left to do.
func newSessionETA(c Config, studies []*study) *sessionETA {
	e := &sessionETA{log: c.Log, start: time.Now()}
	for _, w := range c.cells() {
		for _, s := range studies {
			e.total += s.pendingPhases(w)
		}
	}
	return e
}

// pendingPhases is the number of phases of variant v under set that are
// not recorded yet (what study.variant will run).
func (s *study) pendingPhases(w where) int {
	if why := s.notApplicable(w); why != "" {
		if s.done[cellKey{w.key(), job.PhaseCreate, 0, ""}] {
			return 0
		}
		return 1
	}
	n := 0
	for _, p := range s.phases() {
		if !s.done[cellKey{w.key(), p.name, p.run, p.cache}] {
			n++
		}
	}
	return n
}

// finished notes that n more phases ended and, when any were, prints the
// estimate: "ETA 1h2m3s: 40 of 120 phases done in 20m0s this session".
func (e *sessionETA) finished(n int) {
	if n == 0 || e.total == 0 {
		return
	}
	e.done += n
	line := e.line(time.Since(e.start))
	fmt.Fprintln(e.log, line)
}

// line is the estimate after elapsed.
func (e *sessionETA) line(elapsed time.Duration) string {
	left := time.Duration(float64(elapsed) / float64(e.done) * float64(e.total-e.done))
	return fmt.Sprintf("ETA %s: %d of %d phases done in %s this session (the mean time per phase so far, times the phases left)",
		left.Round(time.Second), e.done, e.total, elapsed.Round(time.Second))
}
