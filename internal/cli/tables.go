package cli

import (
	"context"
	"errors"
	"flag"
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

// tablesOptions are the flags and files of manydb tables.
type tablesOptions struct {
	format string
	files  []string
}

// formatNames are the names --format takes.
func formatNames() []string {
	var names []string
	for _, f := range tableFormats() {
		names = append(names, f.name)
	}
	return names
}

// AddFlags defines tables' flags in fs.
func (opt *tablesOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&opt.format, "format", "md", "output format: "+strings.Join(formatNames(), ", "))
}

// Validate checks the format and that files are named.
func (opt *tablesOptions) Validate() error {
	if !slices.Contains(formatNames(), opt.format) {
		return &job.InputError{Msg: fmt.Sprintf("tables: unknown --format %q: use %s", opt.format, strings.Join(formatNames(), ", "))}
	}
	if len(opt.files) == 0 {
		return &job.InputError{Msg: "tables: name at least one results file (e.g. manydb tables results.jsonl)"}
	}
	return nil
}

func tablesCmd(_ context.Context, args []string, o Options) error {
	var opt tablesOptions
	files, done, err := parseOptions("tables", tablesSynopsis, &opt, args, o)
	if done || err != nil {
		return err
	}
	opt.files = files
	if err := opt.Validate(); err != nil {
		return err
	}
	write := tableFormats()[slices.Index(formatNames(), opt.format)].write
	var recs []results.Record
	for _, file := range opt.files {
		r, err := readRecords("tables", file)
		if err != nil {
			return err
		}
		recs = append(recs, r...)
	}
	if opt.format != "md" { // md writes them under each table
		for _, w := range report.Duplicates(recs) {
			fmt.Fprintf(o.Stderr, "warning: %v (a results file edited or joined by hand?)\n", w)
		}
	}
	if err := write(o.Stdout, recs); errors.Is(err, report.ErrNoStudies) || errors.Is(err, report.ErrNoOverview) {
		return &job.InputError{Msg: fmt.Sprintf("tables: %s: %v", strings.Join(opt.files, ", "), err)}
	} else if err != nil {
		return err
	}
	return nil
}
