package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"manydb/internal/job"
	"manydb/internal/report"
	"manydb/internal/results"
)

const tablesSynopsis = `manydb tables [--format md|overview|csv|json|gobench] FILE...

Prints the reference study's tables from results files: one Markdown table
per study and setting, one column per variant in the order the study ran
them. Open figures pool the samples of all warm runs; when a phase was
recorded more than once, its last record counts. A file may be
gzip-compressed (results.jsonl.gz, as make results keeps them).

--format overview writes the report's overview in Markdown: per workload
and setting a row per variant with the figures that decide, fastest
first, and the reference study's figure in brackets where it has one (the
README's results table); --format csv writes one row per value (variant,
setting, figure, unit, n, value); --format json writes every variant's
figures (one value per warm run for open, query, close and total; one per
study for create, memory and space) as JSON; --format gobench writes them
as Go benchmark lines, so that 'benchstat old.txt new.txt' reads manydb
results.`

// tableFormats are the formats of manydb tables and what writes each.
func tableFormats() []struct {
	name  string
	write func(io.Writer, []results.Record) error
} {
	return []struct {
		name  string
		write func(io.Writer, []results.Record) error
	}{
		{"md", report.Tables},
		{"overview", report.WriteOverview},
		{"csv", report.WriteCSV},
		{"json", report.WriteJSON},
		{"gobench", report.WriteGobench},
	}
}

func tablesCmd(_ context.Context, args []string, o Options) error {
	fs := newFlagSet("tables")
	var names []string
	for _, f := range tableFormats() {
		names = append(names, f.name)
	}
	format := fs.String("format", "md", "output format: "+strings.Join(names, ", "))
	if done, err := parse(fs, args, tablesSynopsis, o); done || err != nil {
		return err
	}
	i := slices.Index(names, *format)
	if i < 0 {
		return &job.InputError{Msg: fmt.Sprintf("tables: unknown --format %q: use %s", *format, strings.Join(names, ", "))}
	}
	write := tableFormats()[i].write
	if fs.NArg() == 0 {
		return &job.InputError{Msg: "tables: name at least one results file (e.g. manydb tables results.jsonl)"}
	}
	var recs []results.Record
	for _, file := range fs.Args() {
		r, err := readRecords("tables", file)
		if err != nil {
			return err
		}
		recs = append(recs, r...)
	}
	if *format != "md" { // md writes them under each table
		for _, w := range report.Duplicates(recs) {
			fmt.Fprintf(o.Stderr, "warning: %v (a results file edited or joined by hand?)\n", w)
		}
	}
	if err := write(o.Stdout, recs); errors.Is(err, report.ErrNoStudies) || errors.Is(err, report.ErrNoOverview) {
		return &job.InputError{Msg: fmt.Sprintf("tables: %s: %v", strings.Join(fs.Args(), ", "), err)}
	} else if err != nil {
		return err
	}
	return nil
}
