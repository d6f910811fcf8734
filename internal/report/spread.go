package report

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// perRun is one value per run: stat over the samples pick takes from each
// record (records without samples are left out).
func perRun(recs []*results.Record, pick func(r *results.Record) []float64, stat func([]float64) float64) []float64 {
	var vals []float64
	for _, r := range recs {
		if xs := pick(r); len(xs) > 0 {
			vals = append(vals, stat(xs))
		}
	}
	return vals
}

// hasInterval tells whether benchmath gives a finite 95 % interval of the
// median of n values (assuming nothing about their distribution): 6
// values or more at this confidence.
func hasInterval(n int) bool {
	if n < 2 {
		return false
	}
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	thr := benchmath.DefaultThresholds
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(xs, &thr), confidence)
	return !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0)
}

// spread is what a table shows after a figure that has one value per
// run: " [lo–hi]", the 95 % interval of the median of the per-run values
// (golang.org/x/perf/benchmath, as compare), when there are enough runs
// for one; else " (lo–hi)", the range of the per-run values; "" for fewer
// than two runs (one run has no spread across runs).
func spread(vals []float64, decimals int) string {
	lo, hi, interval, ok := spreadBounds(vals)
	switch {
	case !ok:
		return ""
	case interval:
		return fmt.Sprintf(" [%.*f–%.*f]", decimals, lo, decimals, hi)
	}
	return fmt.Sprintf(" (%.*f–%.*f)", decimals, lo, decimals, hi)
}

// spreadBounds is the spread of per-run values that spread writes: the
// 95 % interval of their median when there are enough of them for one
// (interval), else their range; ok is false for fewer than two values.
func spreadBounds(vals []float64) (lo, hi float64, interval, ok bool) {
	if len(vals) < 2 {
		return 0, 0, false, false
	}
	if hasInterval(len(vals)) {
		thr := benchmath.DefaultThresholds
		s := benchmath.AssumeNothing.Summary(benchmath.NewSample(slices.Clone(vals), &thr), confidence)
		return s.Lo, s.Hi, true, true
	}
	return stats.Min(vals), stats.Max(vals), false, true
}

// spreadKinds tells which spreads the table's columns carry: ranges of
// per-run values (2 to 5 runs) and 95 % intervals (6 runs or more).
func (t *table) spreadKinds() (ranges, intervals bool) {
	for _, c := range t.columns {
		groups := [][]*results.Record{c.opens(), c.turns()}
		for _, m := range t.modes {
			groups = append(groups, c.records(job.PhaseOpen, m))
		}
		for _, g := range groups {
			switch {
			case len(g) < 2:
			case hasInterval(len(g)):
				intervals = true
			default:
				ranges = true
			}
		}
	}
	return ranges, intervals
}

// spreadNote is the footnote that says what the brackets and parentheses
// after a timing figure hold; "" when no column has either.
func (t *table) spreadNote() string {
	ranges, intervals := t.spreadKinds()
	var s string
	if ranges {
		s = "(a–b) after a timing figure: the range of its per-run values (each run's median, or p99, over its stores)"
	}
	if intervals {
		if s != "" {
			s += "; "
		}
		s += fmt.Sprintf("[a–b]: the %.0f %% interval of the median of its per-run values (golang.org/x/perf/benchmath, no distribution assumed; 6 runs or more)", confidence*100)
	}
	if s == "" {
		return ""
	}
	return s + "; a figure of one run has neither."
}
