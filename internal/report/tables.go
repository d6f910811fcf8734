// Package report turns results records into the reference study's tables:
// one Markdown table per study and setting, one column per variant in the
// order the study ran them, with the reference's rows and number formats.
//
// Every figure is computed from the raw samples in the records (see
// internal/stats), so a table can be printed again from an old results file.
// Each figure is defined once, in the list figures (registry.go), which the
// tables, the HTML report, the sweeps, compare and the exports read.
//
// The model comes first and knows no renderer: collect.go groups the
// records into tables (a table per study and setting, a column per
// variant), registry.go computes each figure and row of a column, and
// figures.go collects the exported figures (CollectFigures). The views
// read it: tables.go, notes.go, sessions.go and serve.go write Markdown;
// html.go, page.go (the page's parts and plot helpers) and the chart
// files (overview.go, dotchart.go, cdf.go, nthopenchart.go,
// servechart.go, sweep.go) write the HTML report; compare.go and
// figures.go's exports (WriteCSV, WriteJSON, WriteGobench) write the
// rest. Number formatting lives in format.go. A test
// (internal/codeshape) keeps the files from leaning on each other in
// loops.
//
// The HTML report (html.go, overview.go) draws its charts with
// gonum.org/v1/plot into inline SVG, hand-writing none: the library draws
// horizontal dot charts with the variants named on the axis (NominalY),
// small multiples and scatters well, once its ticks are relabelled to read
// naturally (dotchart.go).
package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/settings"
)

// Tables writes one Markdown table per study and setting found in recs, in
// the order they first appear. When a phase appears more than once (a
// rerun), its last record counts.
func Tables(w io.Writer, recs []results.Record) error {
	recs, renamed := renameOldVariants(recs)
	tables := group(recs, renamed)
	profiles := groupProfiles(recs)
	if len(tables) == 0 && len(profiles) == 0 {
		return ErrNoStudies
	}
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		t.write(w)
	}
	writeSweeps(w, groupSweeps(recs))
	writeAgentSweeps(w, curves(groupAgentSweeps(recs)))
	writeProfiles(w, profiles, len(tables) > 0)
	return nil
}

// row is one line of a table: a figure (or a row that is no figure) and
// its label for the table's workload and stores held.
type row struct {
	label string
	fig   figure
}

// rows are the table's rows: each entry of figures the table shows, in
// that order.
func (t *table) rows() []row {
	var rows []row
	var holdRows []figure // the hold phase's rows, drawn once per hold count
	for _, f := range figures {
		switch {
		case f.when != nil && !f.when(t):
		case f.phase == job.PhaseServe: // serve's own tables show them (serve.go)
		case f.phase == job.PhaseHold && len(t.holds) > 1:
			if holdRows == nil {
				rows = append(rows, row{}) // where the blocks go
			}
			holdRows = append(holdRows, f)
		default:
			rows = append(rows, row{f.labelFor(t.objects, t.held), f})
		}
	}
	if holdRows == nil {
		return rows
	}
	// With several hold counts, a block of the hold rows per count, in
	// place of the first hold row.
	var blocks []row
	for _, h := range t.holds {
		for _, f := range holdRows {
			f.held = h
			blocks = append(blocks, row{f.labelFor(t.objects, h), f})
		}
	}
	at := slices.IndexFunc(rows, func(r row) bool { return r.label == "" })
	return slices.Concat(rows[:at], blocks, rows[at+1:])
}

// text is what a row shows in column c.
func (t *table) text(f figure, c *column) string {
	if f.text != nil {
		return f.text(t, c, f)
	}
	recs := t.recordsOf(f, c)
	switch {
	case len(recs) == 0 && f.phase == job.PhaseHold:
		return t.noHold(c, f)
	case len(recs) == 0 && f.cache != "" && c.naCache[f.cache] != "":
		return "n/a"
	case len(recs) == 0:
		return missing(c, f.phase)
	}
	if f.na != nil {
		if why := f.na(recs); why != "" {
			return why
		}
	}
	if f.perRun {
		return t.pooledText(f, c, recs)
	}
	v := f.value(recs[len(recs)-1])
	switch {
	case math.IsNaN(v):
		return missing(c, f.phase)
	case f.unit == "ms":
		return millis(v, 2)
	case f.unit == "KB":
		return thousands(v) + " KB"
	case f.unit == "µs":
		return micros(v)
	case f.unit == "mappings" || f.unit == "keys":
		return significant(v)
	case f.unit == "%":
		return natural(v, f.unit)
	}
	return thousands(v)
}

// pooledText is a figure of one value per run as a table shows it: stat
// over the stores of every run pooled, then its spread across runs, and
// † when a warm figure pools fewer runs than the study asked for.
func (t *table) pooledText(f figure, c *column, recs []*results.Record) string {
	xs := pooled(recs, f.samples)
	switch {
	case len(xs) == 0:
		return "–" // e.g. a count row when --queries left count out
	case f.unit == "%":
		return fmt.Sprintf("%.0f %%", f.stat(xs))
	}
	v := millis(f.stat(xs), 3) + spread(perRun(recs, f.samples, f.stat), 3)
	if f.phase == job.PhaseOpen && f.cache == "" && len(recs) < c.runs {
		v += " †"
	}
	return v
}

// recordsOf returns the records figure f is computed from in column c:
// of a hold figure, the column's hold of the row's count (holdRecord);
// else the last record of each run of its phase and cache mode.
func (t *table) recordsOf(f figure, c *column) []*results.Record {
	if f.phase != job.PhaseHold {
		return c.records(f.phase, f.cache)
	}
	if r := t.holdRecord(c, f); r != nil {
		return []*results.Record{r}
	}
	return nil
}

func (t *table) write(w io.Writer) {
	if t.served {
		t.writeServe(w)
		return
	}
	fmt.Fprintf(w, "## %s\n\n", t.title())
	fmt.Fprintf(w, "Workload %s. Open figures pool the warm runs counted in the row \"Warm open runs pooled\" (each run: all stores in random order).\n\n", t.workload)
	if s := t.sessionsLine(); s != "" {
		fmt.Fprintf(w, "%s\n\n", s)
	}
	fmt.Fprintf(w, "| |%s|\n", " "+strings.Join(t.variants, " | ")+" ")
	fmt.Fprintf(w, "| --- |%s\n", strings.Repeat(" --- |", len(t.variants)))
	for _, r := range t.rows() {
		vals := make([]string, len(t.variants))
		for i, v := range t.variants {
			vals[i] = t.text(r.fig, t.columns[v])
		}
		fmt.Fprintf(w, "| %s | %s |\n", r.label, strings.Join(vals, " | "))
	}
	fmt.Fprintln(w)
	t.writeNotes(w)
}

// writeNotes writes the lines below a table: what its marks mean, the
// load, the malloc variables, the versions and the environment.
func (t *table) writeNotes(w io.Writer) {
	t.writeDuplicates(w)
	if t.poolsFewer() {
		fmt.Fprintf(w, "†: pools fewer warm runs than %s (see \"Warm open runs pooled\"); rerun the same command to redo failed runs.\n", t.runsAsked())
	}
	if len(t.failures) > 0 {
		fmt.Fprintf(w, "Failed and not redone: %s.\n", strings.Join(t.failures, "; "))
	}
	if s := t.spreadNote(); s != "" {
		fmt.Fprintln(w, s)
	}
	for _, s := range []string{t.notWarmNote(), t.skippedServeNote()} {
		if s != "" {
			fmt.Fprintln(w, s)
		}
	}
	if s := t.skippedHoldsNote(); s != "" {
		fmt.Fprintln(w, s)
	}
	if s := t.oomNote(); s != "" {
		fmt.Fprintln(w, s)
	}
	t.writeNA(w)
	if len(t.queries) > 0 {
		fmt.Fprintf(w, "Open, query, close spans the queries %s, in that order; each query's row times it alone.\n", job.JoinNames(t.queries, ", "))
	}
	if t.turned {
		fmt.Fprintln(w, "Turn rows: one agent turn per store and run (open, the 20 newest notes, one note appended in its own transaction, close), after the space phase.")
	}
	if len(t.loud) > 0 {
		fmt.Fprintf(w, "The load rose to --max-load or above during: %s.\n", strings.Join(t.loud, ", "))
	}
	if vars := t.mallocVars(); vars != "" {
		fmt.Fprintf(w, "The workers ran with %s from manydb's environment.\n", vars)
	}
	t.writeRenamed(w)
	fmt.Fprintf(w, "Versions: %s.\n", t.versions())
	t.writeEngineOptions(w)
	t.writeSessions(w)
}

// mallocVars lists the glibc malloc variables the table's workers saw that
// their setting did not set (passed on from the user's environment); the
// record's other process entries (engine_thread, yield_every, thp_enabled)
// are not variables.
func (t *table) mallocVars() string {
	own := map[string]bool{}
	if set, ok := settings.Lookup(t.setting); ok {
		for _, kv := range set.Env {
			name, _, _ := strings.Cut(kv, "=")
			own[name] = true
		}
	}
	seen := map[string]bool{}
	var vars []string
	for _, v := range t.variants {
		for _, r := range t.columns[v].all {
			for name, val := range r.Process {
				if !slices.Contains(results.MallocVars(), name) || own[name] || seen[name+"="+val] {
					continue
				}
				seen[name+"="+val] = true
				vars = append(vars, name+"="+val)
			}
		}
	}
	sort.Strings(vars)
	return strings.Join(vars, ", ")
}

// poolsFewer tells whether a column with open figures pools fewer runs than
// the study asked for.
func (t *table) poolsFewer() bool {
	for _, c := range t.columns {
		if n := len(c.opens()); n > 0 && n < c.runs {
			return true
		}
	}
	return false
}

// runsAsked says how many warm runs the table's studies asked for: "the
// study's 5", or "its study asked for" when they differ.
func (t *table) runsAsked() string {
	for _, c := range t.columns {
		if len(c.opens()) > 0 && c.runs != t.runs {
			return "its study asked for"
		}
	}
	return fmt.Sprintf("the study's %d", t.runs)
}

// skippedHoldsNote says which hold counts were skipped before they
// started, in which column, and why (their records say): "" when none.
func (t *table) skippedHoldsNote() string {
	var parts []string
	for _, v := range t.variants {
		c := t.columns[v]
		for _, h := range t.holds {
			if why, ok := c.skippedHolds[h]; ok {
				parts = append(parts, fmt.Sprintf("%s at %s open: %s", v, thousands(float64(h)), why))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Holds skipped before they started: " + strings.Join(parts, "; ") + "."
}
