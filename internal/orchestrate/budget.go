package orchestrate

import (
	"fmt"
	"time"

	"manydb/internal/job"
	"manydb/internal/results"
)

// engineSeconds sums a record's timed engine spans: creates, visits
// (open, queries, close; a turn), the hold's, and the delete phase's
// exports and deletes.
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
	return ms / 1000
}

// writeEnd records where the session's time went, and says it on Log.
func (s *study) writeEnd() error {
	b := s.budget
	b.Wall = time.Since(s.start).Seconds()
	if s.sweepID != "" {
		// The studies of a sweep share the session: each counts the time
		// of its own phases.
		b.Wall = s.spent.Seconds()
	}
	pct := func(x float64) float64 { return 100 * x / b.Wall }
	inWorkers := b.Workers - b.Engine
	other := b.Wall - b.Wait - b.Workers - b.Failed - b.Cleanup - b.Rebuild
	fmt.Fprintf(s.Log, "study %s: %.0f s: %.0f s waiting for the load, %.0f s inside engine calls, "+
		"%.1f s (%.1f %%) in the workers outside engine calls (start, notes, warm-ups, snapshots), "+
		"%.1f s (%.1f %%) removing stores, %.1f s (%.1f %%) in workers that failed, %s%.1f s (%.1f %%) other\n",
		s.id, b.Wall, b.Wait, b.Engine, inWorkers, pct(inWorkers), b.Cleanup, pct(b.Cleanup), b.Failed, pct(b.Failed), rebuildText(b), other, pct(other))
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
	default:
		s.budget.Failed += res.seconds
	}
}

// rebuildText is the summary's part for the workers that remade a resumed
// study's stores ("" when none did).
func rebuildText(b results.Budget) string {
	if b.Rebuild == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f s (%.1f %%) in workers remaking a resumed study's stores (not recorded), ", b.Rebuild, 100*b.Rebuild/b.Wall)
}
