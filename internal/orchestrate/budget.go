package orchestrate

import (
	"fmt"
	"time"

	"manydb/internal/job"
	"manydb/internal/results"
)

// engineSeconds sums a record's timed engine spans: creates, visits
// (open, queries, close; a turn), the hold's, the delete phase's exports
// and deletes, and serve's recorded requests (their wall time).
func engineSeconds(r results.Record) float64 {
	var ms float64
	for _, xs := range [][]float64{r.CreateMs, r.TotalMs, r.ExportMs, r.DeleteMs} {
		for _, x := range xs {
			ms += x
		}
	}
	if r.Hold != nil {
		ms += r.Hold.EngineS * 1000
	}
	if r.Serve != nil {
		ms += r.Serve.WallS * 1000
	}
	return ms / 1000
}

// writeEnd records where the session's time went, and says it on Log.
func (s *study) writeEnd() error {
	if err := s.trash.emptyNow(&s.budget); err != nil {
		return fmt.Errorf("remove the stores of the last variants: %w", err)
	}
	b := s.budget
	b.Wall = time.Since(s.start).Seconds()
	if s.sweepID != "" {
		// The studies of a sweep share the session: each counts the time
		// of its own phases.
		b.Wall = s.spent.Seconds()
	}
	fmt.Fprintln(s.Log, budgetLine(s.id, b, s.Gate))
	return s.w.Append(results.Record{Study: s.id, Phase: job.PhaseEnd, Status: results.StatusOK,
		Workload: s.Workload, Stores: s.Stores, Sweep: s.sweepID, Started: s.start.UTC(), WallS: b.Wall, WaitS: b.Wait, EngineS: b.Engine, Budget: &b})
}

// countWorkerTime adds a worker's time to the time budget: a rebuild's
// (a resumed study's stores made again, its turns replayed) as rebuild, a
// failed worker's as failed, else the engine's and the workers'.
func (s *study) countWorkerTime(res workerResult, rec results.Record, rebuild bool) {
	switch {
	case rebuild:
		s.budget.Rebuild += res.seconds
	case res.err == nil:
		s.budget.Engine += engineSeconds(rec)
		s.budget.Workers += res.seconds
		if w := rec.WorkerTime; w != nil {
			if s.budget.InWorkers == nil {
				s.budget.InWorkers = &results.WorkerTime{}
			}
			s.budget.InWorkers.Add(*w)
			s.budget.Accounted += res.seconds
		}
	default:
		s.budget.Failed += res.seconds
	}
}

// budgetLine is the study's summary of where its time went: the wait
// for the gate, the engine's calls, the waits in the workers, manydb's own work
// and its parts (results.Budget.OwnS).
func budgetLine(id string, b results.Budget, gate Gate) string {
	pct := func(x float64) float64 { return 100 * x / b.Wall }
	line := fmt.Sprintf("study %s: %.0f s: %.0f s waiting for %s", id, b.Wall, b.Wait, gate.waitsFor())
	if b.WaitIOStallS > 0 || b.WaitCPUStallS > 0 {
		line += fmt.Sprintf(" (a task waited for the disk during %.0f s of it, for the CPU during %.0f s)", b.WaitIOStallS, b.WaitCPUStallS)
	}
	line += fmt.Sprintf(", %.0f s inside engine calls", b.EngineS())
	own := b.OwnS()
	if w := b.InWorkers; w != nil {
		line += fmt.Sprintf(" (%.1f s of them untimed: connecting, warm-ups, read-backs), %.1f s waiting for memory statistics and split holds",
			w.UntimedS, w.SettleS+w.ReleaseS)
		// The rest of the workers' time: their store loops, progress
		// lines and records (and all of a worker's that kept no account).
		loops := own - b.StartS() - w.DataS - w.CacheS - w.MemoryS - b.Cleanup - b.OrchestratorS()
		starts := fmt.Sprintf("%.1f s starting and ending workers", b.StartS())
		if w.SpawnS > 0 {
			starts += fmt.Sprintf(" (%.1f s of it before their runs)", w.SpawnS)
		}
		line += fmt.Sprintf("; manydb's own work %.1f s (%.2f %%): %s, %.1f s notes and answers, "+
			"%.1f s page cache, %.1f s memory snapshots, %.1f s removing stores, %.1f s the workers' store loops "+
			"(%.1f s of them yielding to Go's scheduler), %.1f s the orchestrator",
			own, pct(own), starts, w.DataS, w.CacheS, w.MemoryS, b.Cleanup, loops, w.YieldS, b.OrchestratorS())
	} else {
		line += fmt.Sprintf("; manydb's own work %.1f s (%.2f %%), %.1f s of it removing stores", own, pct(own), b.Cleanup)
	}
	if b.CleanupOverlapped >= 0.05 {
		line += fmt.Sprintf("; removing stores also took %.1f s while the study waited for %s", b.CleanupOverlapped, gate.waitsFor())
	}
	if b.Failed > 0 {
		line += fmt.Sprintf("; %.1f s (%.1f %%) in workers that failed", b.Failed, pct(b.Failed))
	}
	if b.Rebuild > 0 {
		line += fmt.Sprintf("; %.1f s (%.1f %%) in workers remaking a resumed study's stores (not recorded)", b.Rebuild, pct(b.Rebuild))
	}
	return line
}
