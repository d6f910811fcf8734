package advise

import (
	"cmp"
	"slices"

	"manydb/internal/job"
	"manydb/internal/report"
	"manydb/internal/results"
)

// layoutColumns are the figures of the layouts' table.
func layoutColumns() []Column {
	return []Column{
		{report.FigureCreate, "create per agent"}, {report.FigureOpenQueryClose, "warm: open, queries, close p50"}, {report.FigureOpenQueryCloseP99, "warm p99"},
		{report.FigureColdOpenQueryClose, "cold p50"}, {report.FigureTurn, "turn p50"}, {report.FigureTurnP99, "turn p99"}, {report.FigureTurnAppend, "its append alone p50"},
		{report.FigureAnonPerOpenStore, "anonymous memory per active agent"}, {report.FigureContainerPerOpenStore, "charged per active agent"},
		{report.FigureSpacePerStore, "disk per agent"}, {report.FigureExportAgent, "export an agent"}, {report.FigureDeleteAgent, "delete an agent"}, {report.FigureDeleteFreed, "disk given back"},
	}
}

// perStoreColumns are the figures of the per-store table (with
// embeddings also the knn's).
func perStoreColumns(dims int) []Column {
	cols := []Column{
		{report.FigureCreate, "create p50"}, {report.FigureOpenQueryClose, "warm: open, queries, close p50"}, {report.FigureOpenQueryCloseP99, "warm p99"},
		{report.FigureColdOpen, "cold open p50"}, {report.FigureTurnP99, "turn p99"},
		{report.FigureAnonPerOpenStore, "anonymous memory per open store"}, {report.FigureContainerPerOpenStore, "charged per open store"}, {report.FigureSpacePerStore, "disk per store"},
	}
	if dims > 0 {
		cols = append(cols, vectorColumns()...)
	}
	return cols
}

// layouts is the table of every variant the records hold in the shared
// layout: its stores per agent (under each setting) and then its shared
// store; of the records without embeddings or, when they hold none and
// the scenario has embeddings, of those with them (and the knn's
// figures).
func layouts(s Scenario, evs []*Evidence) Table {
	var rows []*Evidence
	for _, e := range evs {
		if e.Layout.Stores() == job.OwnStores {
			continue
		}
		for _, per := range evs {
			if per.Variant == e.Variant && per.Layout.Stores() == job.OwnStores && !slices.Contains(rows, per) {
				rows = append(rows, per)
			}
		}
		rows = append(rows, e)
	}
	t := newTable(layoutColumns(), rows, 0)
	if len(t.Columns) == 0 && s.Dims > 0 {
		t = newTable(append(layoutColumns(), vectorColumns()...), rows, s.Dims)
		t.Dims = s.Dims
	}
	if len(t.Columns) == 0 {
		t.Rows = nil // no figure to show
	}
	return t
}

// pairedRecords are the records a layouts table compares: those of the
// files that hold a shared store of their variant, so that a variant's
// two layouts come from the same studies (their queries, machine and
// build); its per-agent records of other studies are left out.
func pairedRecords(recs []results.Record) []results.Record {
	type fileVariant struct{ file, variant string }
	shared := map[fileVariant]bool{}
	for _, r := range recs {
		if r.Layout.Stores() == job.OneStore {
			shared[fileVariant{r.File, r.Variant}] = true
		}
	}
	var out []results.Record
	for _, r := range recs {
		if shared[fileVariant{r.File, r.Variant}] {
			out = append(out, r)
		}
	}
	return out
}

// perStore is the table of every variant in a store of its own, the
// lowest warm p99 first.
func perStore(s Scenario, evs []*Evidence) Table {
	var rows []*Evidence
	for _, e := range evs {
		if e.Layout.Stores() == job.OwnStores {
			rows = append(rows, e)
		}
	}
	t := newTable(perStoreColumns(s.Dims), rows, s.Dims)
	if k := slices.IndexFunc(t.Columns, func(c Column) bool { return c.Figure == report.FigureOpenQueryCloseP99 }); k >= 0 {
		slices.SortStableFunc(t.Rows, func(a, b TableRow) int { return byValue(a.Cells[k], b.Cells[k]) })
	}
	return t
}

// byValue orders numbers from the smallest, those without a value last.
func byValue(a, b Number) int {
	switch {
	case !a.known() && !b.known():
		return 0
	case !a.known():
		return 1
	case !b.known():
		return -1
	}
	return cmp.Compare(a.Value, b.Value)
}

// newTable is the table of cols for the evidence rows (with embeddings
// of dims values, their figures), leaving out a column no row has.
func newTable(cols []Column, rows []*Evidence, dims int) Table {
	var t Table
	for _, e := range rows {
		r := TableRow{Key: e.Key}
		for _, c := range cols {
			n := e.base(c.Figure, -1)
			if dims > 0 {
				n = e.vec(c.Figure)
			}
			r.Cells = append(r.Cells, n)
		}
		t.Rows = append(t.Rows, r)
	}
	for k := len(cols) - 1; k >= 0; k-- {
		if slices.ContainsFunc(t.Rows, func(r TableRow) bool { return r.Cells[k].known() }) {
			continue
		}
		cols = slices.Delete(slices.Clone(cols), k, k+1)
		for i := range t.Rows {
			t.Rows[i].Cells = slices.Delete(t.Rows[i].Cells, k, k+1)
		}
	}
	t.Columns = cols
	return t
}

// vectorColumns are a table's columns of the knn query: its p99, and
// recall@10's mean with its tail (the 5th percentile, the answers that
// found none of the 10), which a mean hides.
func vectorColumns() []Column {
	return []Column{{report.FigureKNNP99, "knn p99"}, {report.FigureRecall, "recall@10"},
		{report.FigureRecallP5, "recall@10 p5"}, {report.FigureRecallNone, "found none of 10"}}
}
