package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"manydb/internal/orchestrate"
	"manydb/internal/report"
	"manydb/internal/results"
)

const tablesSynopsis = `manydb tables [--format md|csv|json|gobench] FILE...

Prints the reference study's tables from results files: one Markdown table
per study and setting, one column per variant in the order the study ran
them. Open figures pool the samples of all warm runs; when a phase was
recorded more than once, its last record counts. A file may be
gzip-compressed (results.jsonl.gz, as make results keeps them).

--format csv writes one row per value (variant, setting, figure, unit, n,
value); --format json writes every variant's figures (one value per warm run for
open, query, close and total; one per study for create, memory and space)
as JSON; --format gobench writes them as Go benchmark lines, so that
'benchstat old.txt new.txt' reads manydb results.`

func tablesCmd(_ context.Context, args []string, o Options) error {
	fs := newFlagSet("tables")
	format := fs.String("format", "md", "output format: md, csv, json or gobench")
	if done, err := parse(fs, args, tablesSynopsis, o); done || err != nil {
		return err
	}
	switch *format {
	case "md", "csv", "json", "gobench":
	default:
		return &orchestrate.InputError{Msg: fmt.Sprintf("tables: unknown --format %q: use md, csv, json or gobench", *format)}
	}
	if fs.NArg() == 0 {
		return &orchestrate.InputError{Msg: "tables: name at least one results file (e.g. manydb tables results.jsonl)"}
	}
	var recs []results.Record
	for _, file := range fs.Args() {
		r, err := readRecords("tables", file)
		if err != nil {
			return err
		}
		recs = append(recs, r...)
	}
	if err := writeTables(o.Stdout, *format, recs); errors.Is(err, report.ErrNoStudies) {
		return &orchestrate.InputError{Msg: fmt.Sprintf("tables: %s: %v", strings.Join(fs.Args(), ", "), err)}
	} else if err != nil {
		return err
	}
	return nil
}

// writeTables writes recs to w in format (md, csv, json or gobench).
func writeTables(w io.Writer, format string, recs []results.Record) error {
	switch format {
	case "csv":
		return report.WriteCSV(w, recs)
	case "json":
		return report.WriteJSON(w, recs)
	case "gobench":
		return report.WriteGobench(w, recs)
	}
	return report.Tables(w, recs)
}
