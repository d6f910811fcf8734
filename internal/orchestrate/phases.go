package orchestrate

import (
	"slices"

	"manydb/internal/job"
)

// phase is one worker run.
type phase struct {
	name  job.Phase
	run   int           // open, turn: 1..Runs or 1..Turns; serve: 1..len(Pools)×len(Ladder())
	cache job.CacheMode // open: warm, cold or drop
	pool  int           // serve: the pool size
	rate  float64       // serve: requests per second (0: the closed loop)
	hold  int           // hold: the stores held open
	// replay is set on a phase that only brings stores made again to the
	// state the phases after it expect: the create of a rebuild, and the
	// turn runs recorded before (their cells stand; nothing is recorded).
	replay bool
}

// phases are a variant's phases in order: create, the open runs of each
// cache mode, hold, space (the reference's phases) and the turn runs,
// which change the stores and so come last; in a study of a layout that
// deletes agents (job.DeletePhase) the delete, which removes agents,
// after them.
func (s *study) phases() []phase {
	ps := []phase{{name: job.PhaseCreate}}
	if s.Serve != nil {
		ps = append(ps, s.holdPhases()...)
		return append(ps, s.servePhases()...)
	}
	for _, name := range s.cacheModes() {
		c, _ := job.CacheModeNamed(name) // checked by Config.Validate
		for r := 1; r <= s.Runs; r++ {
			ps = append(ps, phase{name: job.PhaseOpen, run: r, cache: c})
		}
	}
	ps = append(ps, s.holdPhases()...)
	ps = append(ps, phase{name: job.PhaseSpace})
	for r := 1; r <= s.Turns; r++ {
		ps = append(ps, phase{name: job.PhaseTurn, run: r})
	}
	if job.DeletePhase(s.Layouts) && !s.NoDelete {
		ps = append(ps, phase{name: job.PhaseDelete})
	}
	return ps
}

// servePhases are the serve steps: each pool size at each rate of the
// ladder in turn (runs 1, 2, …; without a ladder, one run per pool size).
func (s *study) servePhases() []phase {
	var ps []phase
	for _, pool := range s.Serve.Pools {
		for _, rate := range s.Serve.Ladder() {
			ps = append(ps, phase{name: job.PhaseServe, run: len(ps) + 1, pool: pool, rate: rate})
		}
	}
	return ps
}

// holdPhases are the hold phases: one (run 0, the reference's) or, with
// several hold counts, one per count, smallest first (runs 1, 2, …).
func (s *study) holdPhases() []phase {
	holds := s.Holds
	if len(holds) == 0 {
		holds = []int{s.Hold}
	}
	if len(holds) == 1 {
		return []phase{{name: job.PhaseHold, hold: holds[0]}}
	}
	ps := make([]phase, len(holds))
	for i, h := range holds {
		ps[i] = phase{name: job.PhaseHold, run: i + 1, hold: h}
	}
	return ps
}

// replayTurns returns todo with the turn runs before its first turn run
// (recorded already) inserted before it as replays: stores made again
// hold no appended note, and turn run k expects the k−1 notes of the runs
// before it. A delete left with no turn run before it gets every turn run
// replayed: it exports the notes they appended.
func (s *study) replayTurns(todo []phase) []phase {
	i := slices.IndexFunc(todo, func(p phase) bool { return p.name == job.PhaseTurn || p.name == job.PhaseDelete })
	if i < 0 {
		return todo
	}
	next := todo[i].run // the first turn run left
	if todo[i].name == job.PhaseDelete {
		next = s.Turns + 1
	}
	var out []phase
	out = append(out, todo[:i]...)
	for run := 1; run < next; run++ {
		out = append(out, phase{name: job.PhaseTurn, run: run, replay: true})
	}
	return append(out, todo[i:]...)
}
