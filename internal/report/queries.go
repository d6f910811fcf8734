package report

import (
	"fmt"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// notCold is the median residency above which a cold run is not shown as
// cold: eviction did not work on that filesystem.
const notCold = 0.05

// extraRows are the rows of issue 14's measurements, present only when a
// study made them: each query of --queries, the cold and drop open runs,
// and the turn runs.
func (t *table) extraRows() []row {
	var rows []row
	stat := func(recs func(c *cell) []*results.Record, phase job.Phase, pick func(r *results.Record) []float64, p func([]float64) float64) func(c *cell) string {
		return func(c *cell) string {
			var xs []float64
			for _, r := range recs(c) {
				xs = append(xs, pick(r)...)
			}
			if len(xs) == 0 {
				return missing(c, phase)
			}
			return millis(p(xs), 3) + spread(perRun(recs(c), pick, p), 3)
		}
	}
	warm := func(c *cell) []*results.Record { return c.opens }
	for _, q := range t.queries {
		if q == "count" {
			continue // the reference's row
		}
		pick := func(r *results.Record) []float64 { return r.QueriesMs[q] }
		rows = append(rows,
			row{queryLabels[q] + " (median)", stat(warm, job.PhaseOpen, pick, stats.Median)},
			row{"same, p99", stat(warm, job.PhaseOpen, pick, stats.P99)})
	}
	for _, m := range t.modes {
		recs := func(c *cell) []*results.Record { return c.cached[m] }
		cold := func(f func(c *cell) string) func(c *cell) string {
			return func(c *cell) string {
				if r := residency(c.cached[m]); r > notCold {
					return fmt.Sprintf("not cold (%.0f %% resident)", 100*r)
				}
				return f(c)
			}
		}
		open := func(r *results.Record) []float64 { return r.OpenMs }
		total := func(r *results.Record) []float64 { return r.TotalMs }
		rows = append(rows,
			row{fmt.Sprintf("Open, %s cache (median)", m), cold(stat(recs, job.PhaseOpen, open, stats.Median))},
			row{fmt.Sprintf("Open, query, close, %s cache (median)", m), cold(stat(recs, job.PhaseOpen, total, stats.Median))},
			row{"same, p99", cold(stat(recs, job.PhaseOpen, total, stats.P99))})
		if m == "cold" {
			rows = append(rows, row{"Store pages resident before a cold open (median)", func(c *cell) string {
				if len(c.cached[m]) == 0 {
					return missing(c, job.PhaseOpen)
				}
				return fmt.Sprintf("%.0f %%", 100*residency(c.cached[m]))
			}})
		}
	}
	if t.turned {
		turns := func(c *cell) []*results.Record { return c.turns }
		step := func(name job.Query) func(r *results.Record) []float64 {
			return func(r *results.Record) []float64 { return r.QueriesMs[name] }
		}
		total := func(r *results.Record) []float64 { return r.TotalMs }
		rows = append(rows,
			row{"Turn runs pooled", func(c *cell) string { return pooledRuns(c, c.turns, c.failedTurn, c.turnRuns) }},
			row{"Turn: open, recent, append, close (median)", stat(turns, job.PhaseTurn, total, stats.Median)},
			row{"same, p99", stat(turns, job.PhaseTurn, total, stats.P99)},
			row{"Turn: recent (median)", stat(turns, job.PhaseTurn, step("recent"), stats.Median)},
			row{"Turn: append, own transaction (median)", stat(turns, job.PhaseTurn, step("append"), stats.Median)},
			row{"same, p99", stat(turns, job.PhaseTurn, step("append"), stats.P99)},
		)
	}
	return rows
}

// residency is the median fraction of store pages resident before the
// opens of recs (0 when they recorded none: drop runs).
func residency(recs []*results.Record) float64 {
	var xs []float64
	for _, r := range recs {
		xs = append(xs, r.Resident...)
	}
	if len(xs) == 0 {
		return 0
	}
	return stats.Median(xs)
}

// queryLabels name the queries' rows as the reference names its rows.
var queryLabels = map[job.Query]string{
	"recent": "Recent 20 notes",
	"get":    "Get 10 notes by id",
	"scan":   "Scan all notes",
}
