package report

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"manydb/internal/results"
)

// ErrNoOverview is returned by WriteOverview for records that hold only
// studies the overview leaves out: serve studies and profiles, which have
// their own tables.
var ErrNoOverview = errors.New("the overview shows studies of manydb run, and these records hold only serve studies or profiles: manydb tables (--format md) and manydb report show them")

// WriteOverview writes the report's overview in Markdown: per workload
// and setting, one row per variant with the figures the registry marks
// inOverview (each as the tables compute it, without its spread), the
// fastest first. Where the seed (the reference study, docs/reference.md)
// has the figure, its value follows in brackets. The README's results
// table is this output for the results of record.
func WriteOverview(w io.Writer, recs []results.Record) error {
	recs, renamed := renameOldVariants(recs)
	tables := group(recs, renamed)
	ovs := overviews(tables)
	switch {
	case len(ovs) == 0 && (len(tables) > 0 || len(groupProfiles(recs)) > 0):
		return ErrNoOverview
	case len(ovs) == 0:
		return ErrNoStudies
	}
	seed := seedFigures()
	for i, o := range ovs {
		var settings []string // in the order the tables of the workload have them
		for _, t := range tables {
			if t.workload == o.workload && t.study == o.study && !t.served && !slices.Contains(settings, t.setting) {
				settings = append(settings, t.setting)
			}
		}
		for j, setting := range settings {
			if i > 0 || j > 0 {
				fmt.Fprintln(w)
			}
			o.writeMarkdown(w, setting, seed, len(ovs) > 1)
		}
	}
	return nil
}

// writeMarkdown writes the rows of one setting as a Markdown table.
// named, the study is named before them (when there are several).
func (o *overview) writeMarkdown(w io.Writer, setting string, seed map[seedKey]float64, named bool) {
	if named {
		fmt.Fprintf(w, "Study %s. ", o.study)
	}
	fmt.Fprintf(w, "Workload %s; setting %s.\n\n", o.workload, setting)
	heads := []string{"variant"}
	for _, l := range o.labels {
		heads = append(heads, header(l))
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(heads, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat(" --- |", len(heads)))
	for _, r := range o.rows {
		if r.setting != setting {
			continue
		}
		cells := []string{"`" + mdEscape(strings.TrimSuffix(r.label, " · "+setting)) + "`"}
		for k, c := range r.cells {
			text := mdEscape(c.text)
			if v, ok := seed[seedKey{setting, r.variant, o.figs[k].name}]; ok && seedApplies(r.table, o.figs[k].name) {
				text += " (" + natural(v, o.figs[k].unit) + ")"
			}
			cells = append(cells, text)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	for _, n := range o.notApplied {
		if n.setting == setting {
			fmt.Fprintf(w, "\n%s\n", mdEscape(n.String()))
		}
	}
	if s := o.notWarmNote(setting); s != "" {
		fmt.Fprintf(w, "\n%s\n", mdEscape(s))
	}
}

// mdEscape keeps text from records (variant names, reasons) from breaking
// a Markdown table: a | would end the cell, a newline the row.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "`", "'").Replace(s)
}
