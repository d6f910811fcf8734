package cli

import (
	"errors"
	"fmt"

	"manydb/internal/orchestrate"
	"manydb/internal/report"
	"manydb/internal/results"
)

const tablesSynopsis = `manydb tables FILE...

Prints the reference study's tables from results files: one Markdown table
per study and setting, one column per variant in the order the study ran
them. Open figures pool the samples of all warm runs; when a phase was
recorded more than once, its last record counts.`

func tablesCmd(args []string, o Options) error {
	fs := newFlagSet("tables")
	if done, err := parse(fs, args, tablesSynopsis, o); done || err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return &orchestrate.InputError{Msg: "tables: name at least one results file (e.g. manydb tables results.jsonl)"}
	}
	var recs []results.Record
	for _, file := range fs.Args() {
		r, err := results.ReadFile(file)
		var syn *results.SyntaxError
		if errors.As(err, &syn) {
			return &orchestrate.InputError{Msg: "tables: " + syn.Error()}
		}
		if err != nil {
			return &orchestrate.InputError{Msg: fmt.Sprintf("tables: %v", err)}
		}
		if len(r) == 0 {
			return &orchestrate.InputError{Msg: fmt.Sprintf("tables: %s holds no manydb records", file)}
		}
		recs = append(recs, r...)
	}
	return report.Tables(o.Stdout, recs)
}
