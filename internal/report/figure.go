package report

import (
	"strings"

	"manydb/internal/job"
	"manydb/internal/results"
)

// The figure type: what one figure of the registry is, and how its label,
// title and value are made from it.

// use says where else than in the tables a figure appears.
type use uint8

const (
	exported  use = 1 << iota // compare and the csv, json and gobench exports
	swept                     // the sweep tables and charts
	runSpread                 // Figures.Spread: the interquartile range of a run
	drawn                     // the report's charts: its samples per store as a CDF
	// overview: a column of the report's overview (one row per variant)
	// and a decision chart; a p99 figure joins the chart of its base.
	inOverview
)

// A figure is one thing measured of a variant: its name, its label, its
// unit, the records it comes from and how to compute it from them. The
// list figures is the one place a figure is defined; the tables, the HTML
// report, the sweeps, compare and the exports all read it.
type figure struct {
	// name is the machine name compare, the exports and the sweep charts
	// use: "open-query-close". "" for a table row that is no figure.
	name string
	// label is the row's label in the tables, the report and the sweeps;
	// {objects} stands for the objects per store, {held} for the stores
	// held. A row that qualifies another figure, its base, reads "same,
	// …": "same, p99" for its base at another statistic (sameAt).
	label string
	// base, when set, is the name of the figure this row qualifies, whose
	// row stands above it; statistic is, for a figure of its base's
	// samples at another statistic, that statistic's name ("p99").
	base, statistic string
	unit            string        // ms, µs, KB, stores/s or %
	phase           job.Phase     // the phase whose records give the figure
	cache           job.CacheMode // their cache mode (open runs: warm, cold, drop)
	// perRun: one value per run, stat over the samples of one store each
	// in the run's record; else one value per study, value of its record.
	// samples are also what the report draws of a drawn figure.
	perRun  bool
	samples func(r *results.Record) []float64
	stat    func(xs []float64) float64
	// value is NaN when the record has no value (a space record without
	// bytes): the tables show it as –, the charts leave it out.
	value func(r *results.Record) float64
	// na, when set, says why a column's records of the figure have no
	// value to show ("" when they have one): "n/a (needs a memory cgroup)".
	na func(recs []*results.Record) string
	// when, when set, says whether a table shows the row: rows of a
	// measurement a study made or not (--queries, --cache, --turns).
	when func(t *table) bool
	// text, for a table row that is no figure, is its text in a column
	// (given the row's figure: its held).
	text func(t *table, c *column, f figure) string
	// held, for a hold phase's figure in a table of several hold counts,
	// is the hold count of its row; 0: the table's (table.held).
	held int
	uses use
}

// level is the count a hold or serve figure's value of r is of: the
// stores held, or the pool size (levelText names it); false for another
// figure, or a record without the phase's part.
func (f figure) level(r *results.Record) (n int, ok bool) {
	switch {
	case f.phase == job.PhaseHold && r.Hold != nil:
		return r.Hold.Held, true
	case f.phase == job.PhaseServe && r.Serve != nil:
		return r.Serve.Pool, true
	}
	return 0, false
}

// levelText names a level of f: "1,000 held", "pool of 100".
func (f figure) levelText(n int) string {
	if f.phase == job.PhaseServe {
		return "pool of " + thousands(float64(n))
	}
	return thousands(float64(n)) + " held"
}

// sameAt is base's samples at another statistic, named name: its row
// reads "same, STATISTIC" under its base's, with uses of its own.
func sameAt(base figure, name, statistic string, stat func([]float64) float64, uses use) figure {
	f := base
	f.name, f.label, f.base, f.statistic, f.stat, f.uses = name, "same, "+statistic, base.name, statistic, stat, uses
	return f
}

// labelFor is the figure's label for a workload of objects per store and
// held stores.
func (f figure) labelFor(objects, held int) string {
	return strings.NewReplacer("{objects}", thousands(float64(objects)), "{held}", thousands(float64(held))).Replace(f.label)
}

// of computes the figure from one record: its value for a run (stat over
// its samples) or for a study; NaN when the record has none.
func (f figure) of(r *results.Record) float64 {
	if f.perRun {
		return f.stat(f.samples(r))
	}
	return f.value(r)
}

// is tells whether the figure comes from records of r's phase and cache mode.
func (f figure) is(r *results.Record) bool {
	return f.name != "" && f.phase == r.Phase && f.cache == r.Cache
}
