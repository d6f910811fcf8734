package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// An overview is the top of the report for one study of one workload:
// one row per variant (per variant and setting when the study ran
// several settings), one column per figure the registry marks overview,
// and a decision chart per figure.
type overview struct {
	workload   string
	study      string
	figs       []figure // the overview figures some row has a value of
	labels     []string // each figure's label standing alone
	rows       []overviewRow
	notApplied []notApplied // the rows the overview leaves out
}

// notApplied names the variants a setting does not apply to, whose rows
// would say n/a in every cell, and why: a malloc setting and pure-Go
// engines, or lean and engines without options for many open stores.
type notApplied struct{ setting, variants, why string }

// notAppliedOf is what table t's setting does not apply to, with why.
func notAppliedOf(t *table) []notApplied {
	var out []notApplied
	na := t.notApplicable()
	if na.malloc != "" {
		out = append(out, notApplied{t.setting, na.malloc, "the setting changes the C allocator (malloc) only, and they do not allocate with it"})
	}
	for _, g := range []struct {
		what string
		why  grouped
	}{
		{"the lean setting has no engine option ", na.lean},
		{"the wal setting has no journal mode to set ", na.wal},
		{"no knn search ", na.vectors},
		{"not in the shared layout ", na.shared},
		{"no cold cache ", na.cold},
	} {
		if why := g.why.String(); why != "" {
			out = append(out, notApplied{t.setting, "", g.what + why})
		}
	}
	return out
}

// String is the sentence the report shows below the overview.
func (n notApplied) String() string {
	if n.variants == "" {
		return fmt.Sprintf("Not shown under setting %s (n/a): %s.", n.setting, n.why)
	}
	return fmt.Sprintf("Not shown under setting %s: %s (n/a: %s).", n.setting, n.variants, n.why)
}

// An overviewRow is one column of a table, seen as a row of the overview.
type overviewRow struct {
	label string // the variant, "· setting" and "· study" when needed
	// variant and setting of the row, and the table it is a column of
	variant, setting string
	table            *table
	col              *column // the row's column of table
	family           family
	cells            []cell // one per figure of the overview
}

// A cell is one figure of one row: its value and its spread across runs.
type cell struct {
	value    float64 // NaN when there is none
	lo, hi   float64 // the spread across runs, when spread
	spread   bool
	interval bool   // the spread is a 95 % interval, not a range
	text     string // the value as it reads, or why there is none
}

// overviewFigures are the figures the registry marks overview, in its
// order, and each one's label standing alone for a table's workload.
func overviewFigures(objects, held int) ([]figure, []string) {
	var figs []figure
	var labels []string
	for _, f := range figures {
		if f.uses&inOverview != 0 {
			figs = append(figs, f)
			labels = append(labels, f.title(objects, held))
		}
	}
	return figs, labels
}

// shownFigures keeps the figures that some table shows (a figure with a
// when, such as knn's, only where a study made it), with their labels.
func shownFigures(tables []*table, figs []figure, labels []string) ([]figure, []string) {
	var keptFigs []figure
	var keptLabels []string
	for i, f := range figs {
		shown := f.when == nil
		for _, t := range tables {
			shown = shown || f.when(t)
		}
		if shown {
			keptFigs = append(keptFigs, f)
			keptLabels = append(keptLabels, labels[i])
		}
	}
	return keptFigs, keptLabels
}

// overviews builds one overview per study and workload of the tables
// (serve studies have their own chart), in the order they appear.
func overviews(tables []*table) []*overview {
	type key struct{ workload, study string }
	var order []key
	by := map[key][]*table{}
	for _, t := range tables {
		if t.served {
			continue
		}
		k := key{t.workload, t.study}
		if by[k] == nil {
			order = append(order, k)
		}
		by[k] = append(by[k], t)
	}
	var out []*overview
	for _, k := range order {
		out = append(out, newOverview(by[k]))
	}
	return out
}

// newOverview is the overview of tables of one workload: a row per
// column of each table, sorted by the first figure that has one value
// per run (open, query, close), the rows without it last.
func newOverview(tables []*table) *overview {
	figs, labels := overviewFigures(tables[0].objects, tables[0].held)
	figs, labels = shownFigures(tables, figs, labels)
	o := &overview{workload: tables[0].workload, study: tables[0].study}
	settings, studies := distinct(tables, func(t *table) string { return t.setting }), distinct(tables, func(t *table) string { return t.study })
	for _, t := range tables {
		o.notApplied = append(o.notApplied, notAppliedOf(t)...)
		for _, col := range t.variants {
			c := t.columns[col]
			if c.na {
				continue // every cell would say n/a
			}
			label := col
			if settings > 1 {
				label += " · " + t.setting
			}
			if studies > 1 {
				label += " · " + t.study
			}
			row := overviewRow{label: label, family: familyOf(c.variant), variant: c.variant, setting: t.setting, table: t, col: c}
			for _, f := range figs {
				row.cells = append(row.cells, cellOf(f, t, c))
			}
			o.rows = append(o.rows, row)
		}
	}
	// keep the figures some row has a value of
	for i := len(figs) - 1; i >= 0; i-- {
		if !slices.ContainsFunc(o.rows, func(r overviewRow) bool { return !math.IsNaN(r.cells[i].value) }) {
			figs, labels = slices.Delete(figs, i, i+1), slices.Delete(labels, i, i+1)
			for k := range o.rows {
				o.rows[k].cells = slices.Delete(o.rows[k].cells, i, i+1)
			}
		}
	}
	o.figs, o.labels = figs, labels
	if key := slices.IndexFunc(figs, func(f figure) bool { return f.perRun }); key >= 0 {
		slices.SortStableFunc(o.rows, func(a, b overviewRow) int { return byValue(a.cells[key].value, b.cells[key].value) })
	}
	return o
}

// byValue orders values from the smallest, NaN last.
func byValue(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	case math.IsNaN(b):
		return -1
	}
	return cmp.Compare(a, b)
}

// distinct counts the different values key gives the tables.
func distinct(tables []*table, key func(t *table) string) int {
	seen := map[string]bool{}
	for _, t := range tables {
		seen[key(t)] = true
	}
	return len(seen)
}

// cellOf computes figure f for column c of table t as the table does
// (stat over the pooled stores of every run, or the value of the last
// record), with the spread of its per-run values; without a value, its
// text is the table's reason (n/a, failed, –).
func cellOf(f figure, t *table, c *column) cell {
	none := cell{value: math.NaN(), text: t.text(f, c)}
	recs := t.recordsOf(f, c)
	if len(recs) == 0 || (f.na != nil && f.na(recs) != "") {
		return none
	}
	if !f.perRun {
		v := f.value(recs[len(recs)-1])
		if math.IsNaN(v) {
			return none
		}
		return cell{value: v, text: natural(v, f.unit)}
	}
	xs := pooled(recs, f.samples)
	if len(xs) == 0 {
		return none
	}
	v := f.stat(xs)
	out := cell{value: v, text: natural(v, f.unit)}
	out.lo, out.hi, out.interval, out.spread = spreadBounds(perRun(recs, f.samples, f.stat))
	return out
}

// spreadText writes a cell's spread as the overview shows it below the
// value: "[0.21–0.25]" for an interval, "(0.21–0.25)" for a range.
func (c cell) spreadText(unit string) string {
	if !c.spread {
		return ""
	}
	s := significant(c.lo) + "–" + significant(c.hi)
	if c.interval {
		return "[" + s + "]"
	}
	return "(" + s + ")"
}

// header is a column's header: the label without "(median)", which a
// "p50" says instead.
func header(label string) string {
	if base, ok := strings.CutSuffix(label, " (median)"); ok {
		return base + ", p50"
	}
	return label
}

// sortValue is what the sort script compares: the value, "" for none.
func sortValue(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return fmt.Sprintf("%g", v)
}

// notWarmNote names the overview's rows of setting whose warm runs were
// not warm (notWarm): their figures include reads from disk.
func (o *overview) notWarmNote(setting string) string {
	var rows []string
	for _, r := range o.rows {
		if r.setting != setting || r.col == nil {
			continue
		}
		var runs []string
		for _, rec := range r.col.warmRuns() {
			if what := notWarm(rec); what != "" {
				runs = append(runs, what)
			}
		}
		if len(runs) > 0 {
			rows = append(rows, r.label+": "+strings.Join(runs, ", "))
		}
	}
	if len(rows) == 0 {
		return ""
	}
	return fmt.Sprintf("Not warm (below %.0f %% of the sampled store pages in the page cache before or after the run; its figures include reads from disk): %s.", 100*WarmResident, strings.Join(rows, "; "))
}

// settings are the settings of the overview's rows, in their order.
func (o *overview) settings() []string {
	var out []string
	for _, r := range o.rows {
		if !slices.Contains(out, r.setting) {
			out = append(out, r.setting)
		}
	}
	return out
}
