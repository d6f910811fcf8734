package report

import (
	"math"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// The n-th open: the hold phase times each held store's open alone, store
// i opened with i stores already open (results.Hold.OpenMs). SQLite's unix
// VFS walks a list of every open file on each open (findInodeInfo), so an
// open may grow with the stores already open. Its figures (registry.go)
// are the median open of the first and of the last 10 % of the held
// stores and the growth per 1,000 stores open; its chart is one small
// panel per variant (openGrowthGroup).

const (
	// heldEdge is the share of the held stores at each end whose opens
	// the first and last figures take the median of.
	heldEdge = 0.1
	// growthBins is the number of bins of consecutive opens that the
	// growth is fitted to and the chart draws.
	growthBins = 50
)

// heldOpens picks a hold record's open samples, nil when it has none
// (records made before they were recorded).
func heldOpens(r *results.Record) []float64 {
	if r.Hold == nil {
		return nil
	}
	return r.Hold.OpenMs
}

// openFit fits the open time in ms against the stores already open,
// xs[i] being the open made with i stores open: the Theil–Sen line
// through the medians of growthBins bins of consecutive opens.
//
// Why not least squares over the samples: open times are skewed to the
// right, and a few slow opens (a garbage collection, a page fault, the
// scheduler, another process) pull a least-squares slope by as much as
// the growth being looked for. The median of each bin drops the tail
// within the bin, and Theil–Sen over the bins' medians (the median of
// the slopes between every two bins) ignores the few bins that a burst of
// noise still moves: it is the slope of the typical open. 50 bins are 20
// opens per bin at 1,000 held stores and 1,225 slopes to take the median
// of; with fewer than 50 opens each open is its own bin.
func openFit(xs []float64) (slope, intercept float64) {
	bx, by := binMedians(xs, growthBins)
	return stats.TheilSen(bx, by)
}

// heldOpenEdge is the median open, in µs, of the first 10 % of a hold's
// opens, or of the last 10 % when last is set (at least one open each);
// NaN for a record without open samples.
func heldOpenEdge(last bool) func(r *results.Record) float64 {
	return func(r *results.Record) float64 {
		xs := heldOpens(r)
		if len(xs) == 0 {
			return math.NaN()
		}
		k := max(1, int(math.Round(heldEdge*float64(len(xs)))))
		if last {
			return 1000 * stats.Median(xs[len(xs)-k:])
		}
		return 1000 * stats.Median(xs[:k])
	}
}

// openGrowth is the growth of a hold's open time with the stores already
// open, in µs per 1,000 stores open (openFit); NaN for a record with
// fewer than two open samples.
func openGrowth(r *results.Record) float64 {
	slope, _ := openFit(heldOpens(r))
	return slope * 1000 * 1000 // ms per store open → µs per 1,000 stores open
}

// openGrowthInProcess is, for a hold split over processes (--procs), the
// median over its processes of each one's open growth against its own
// open stores (openFit of its samples); NaN otherwise.
func openGrowthInProcess(r *results.Record) float64 {
	var slopes []float64
	for _, xs := range processOpens(r) {
		if len(xs) >= 2 {
			slope, _ := openFit(xs)
			slopes = append(slopes, slope*1000*1000)
		}
	}
	if len(slopes) == 0 {
		return math.NaN()
	}
	return stats.Median(slopes)
}

// processOpens splits the opens of a hold split over processes
// (--procs) into each process' own, in their order: process k's sample i
// was made with i of its own stores open. Nil for a hold in one process,
// or one whose samples do not cover its stores.
func processOpens(r *results.Record) [][]float64 {
	xs := heldOpens(r)
	if r.Hold == nil || len(r.Hold.Procs) < 2 || len(xs) != r.Hold.Held {
		return nil
	}
	var parts [][]float64
	lo := 0
	for _, p := range r.Hold.Procs { // their holds add up to the hold's (results.checkProcs)
		parts = append(parts, xs[lo:lo+p.Held])
		lo += p.Held
	}
	return parts
}

// timedHeldOpens tells whether a column's hold phase timed its opens:
// the table shows the rows of the n-th open only then.
func (t *table) timedHeldOpens() bool {
	for _, c := range t.columns {
		for _, r := range c.records(job.PhaseHold, "") {
			if len(heldOpens(r)) > 0 {
				return true
			}
		}
	}
	return false
}

// binMedians splits xs (sample i at x = i) into at most bins bins of
// consecutive samples of nearly equal size, and returns each bin's
// centre and the median of its samples.
func binMedians(xs []float64, bins int) (x, y []float64) {
	n := len(xs)
	bins = min(bins, n)
	for b := range bins {
		lo, hi := b*n/bins, (b+1)*n/bins
		x = append(x, float64(lo+hi-1)/2)
		y = append(y, stats.Median(xs[lo:hi]))
	}
	return x, y
}
