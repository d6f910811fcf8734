package advise

import (
	"cmp"
	"slices"
	"strings"
)

// A Table is figures of the records per variant: a column per figure, a
// row per variant, setting and layout, each cell the figure's median.
type Table struct {
	Columns []Column   `json:"columns"`
	Rows    []TableRow `json:"rows"`
	// Dims is the values per embedding of the notes its figures are of;
	// 0: notes without embeddings.
	Dims int `json:"dims,omitempty"`
}

// A Column is one figure of a Table and its heading.
type Column struct {
	Figure string `json:"figure"`
	Head   string `json:"head"`
}

// A TableRow is one variant's cells, one per column.
type TableRow struct {
	Key
	Cells []Number `json:"cells"`
}

// layoutColumns are the figures of the layouts' table.
func layoutColumns() []Column {
	return []Column{
		{"create", "create per agent"}, {"open-query-close", "warm: open, queries, close p50"}, {"open-query-close-p99", "warm p99"},
		{"cold-open-query-close", "cold p50"}, {"turn", "turn p50"}, {"turn-p99", "turn p99"}, {"turn-append", "its append alone p50"},
		{"anon-per-open-store", "anonymous memory per active agent"}, {"container-per-open-store", "charged per active agent"},
		{"space-per-store", "disk per agent"}, {"export-agent", "export an agent"}, {"delete-agent", "delete an agent"}, {"delete-freed", "disk given back"},
	}
}

// perStoreColumns are the figures of the per-store table (with
// embeddings also the knn's).
func perStoreColumns(dims int) []Column {
	cols := []Column{
		{"create", "create p50"}, {"open-query-close", "warm: open, queries, close p50"}, {"open-query-close-p99", "warm p99"},
		{"cold-open", "cold open p50"}, {"turn-p99", "turn p99"},
		{"anon-per-open-store", "anonymous memory per open store"}, {"container-per-open-store", "charged per open store"}, {"space-per-store", "disk per store"},
	}
	if dims > 0 {
		cols = append(cols, Column{"knn-p99", "knn p99"}, Column{"recall", "recall@10"})
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
		if !e.Layout.Shared() {
			continue
		}
		for _, per := range evs {
			if per.Variant == e.Variant && !per.Layout.Shared() && !slices.Contains(rows, per) {
				rows = append(rows, per)
			}
		}
		rows = append(rows, e)
	}
	t := newTable(layoutColumns(), rows, 0)
	if len(t.Columns) == 0 && s.Dims > 0 {
		t = newTable(append(layoutColumns(), Column{"knn-p99", "knn p99"}, Column{"recall", "recall@10"}), rows, s.Dims)
		t.Dims = s.Dims
	}
	if len(t.Columns) == 0 {
		t.Rows = nil // no figure to show
	}
	return t
}

// perStore is the table of every variant in a store of its own, the
// lowest warm p99 first.
func perStore(s Scenario, evs []*Evidence) Table {
	var rows []*Evidence
	for _, e := range evs {
		if !e.Layout.Shared() {
			rows = append(rows, e)
		}
	}
	t := newTable(perStoreColumns(s.Dims), rows, s.Dims)
	if k := slices.IndexFunc(t.Columns, func(c Column) bool { return c.Figure == "open-query-close-p99" }); k >= 0 {
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

// grid is the table as the answer writes it, each row named by name.
func (t Table) grid(name func(TableRow) string) grid {
	g := grid{head: []string{"variant"}}
	for _, c := range t.Columns {
		g.head = append(g.head, c.Head)
	}
	for _, r := range t.Rows {
		row := []string{name(r)}
		for _, n := range r.Cells {
			row = append(row, n.Text())
		}
		g.rows = append(g.rows, row)
	}
	return g
}

// layoutName names a row with its layout: "sqlite_capi per agent",
// "sqlite_capi shared".
func layoutName(r TableRow) string {
	name := r.Name()
	if !r.Layout.Shared() {
		name = strings.Replace(name, r.Variant, r.Variant+" per agent", 1)
	}
	return name
}
