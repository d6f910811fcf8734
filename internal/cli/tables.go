package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"manydb/internal/orchestrate"
	"manydb/internal/report"
	"manydb/internal/results"
)

const tablesSynopsis = `manydb tables [--format md|csv|json|gobench] FILE...

Prints the reference study's tables from results files: one Markdown table
per study and setting, one column per variant in the order the study ran
them. Open figures pool the samples of all warm runs; when a phase was
recorded more than once, its last record counts.

--format csv prints one line per figure (study, setting, variant, figure,
unit, number of values, median, min, max); json every figure with its
values (one per run for timings: the median of the run's per-store
samples; one for figures measured once); gobench one Go benchmark line per
value, so that 'benchstat old.txt new.txt' compares two results files.`

func tablesCmd(args []string, o Options) error {
	fs := newFlagSet("tables")
	format := fs.String("format", "md", "md, csv, json or gobench")
	if done, err := parse(fs, args, tablesSynopsis, o); done || err != nil {
		return err
	}
	if !slices.Contains(report.Formats, *format) {
		return &orchestrate.InputError{Msg: fmt.Sprintf("tables: --format %q: use %s", *format, strings.Join(report.Formats, ", "))}
	}
	if fs.NArg() == 0 {
		return &orchestrate.InputError{Msg: "tables: name at least one results file (e.g. manydb tables results.jsonl)"}
	}
	var recs []results.Record
	for _, file := range fs.Args() {
		r, err := readResults("tables", file)
		if err != nil {
			return err
		}
		recs = append(recs, r...)
	}
	return report.Write(o.Stdout, recs, *format)
}

// readResults reads a results file for command cmd; a file that cannot be
// read or holds no record is an input error.
func readResults(cmd, file string) ([]results.Record, error) {
	r, err := results.ReadFile(file)
	var syn *results.SyntaxError
	if errors.As(err, &syn) {
		return nil, &orchestrate.InputError{Msg: cmd + ": " + syn.Error()}
	}
	if err != nil {
		return nil, &orchestrate.InputError{Msg: fmt.Sprintf("%s: %v", cmd, err)}
	}
	if len(r) == 0 {
		return nil, &orchestrate.InputError{Msg: fmt.Sprintf("%s: %s holds no manydb records", cmd, file)}
	}
	return r, nil
}

const compareSynopsis = `manydb compare OLD NEW

Compares two results files figure by figure, as benchstat does: for every
figure both have (same setting, figure and variant), the old and new
median with its 95 % interval, the change, and whether it is significant
(Mann–Whitney U test, α = 0.05, from golang.org/x/perf/benchmath); "~"
when it is not. OLD and NEW may be FILE:variant to compare two variants
(e.g. a.jsonl:obx b.jsonl:obx_cached) or one variant of one file.

The samples are runs: each warm open run gives one value per figure (the
median of its per-store samples). Thousands of per-store samples would
make any drift of the machine "significant"; runs carry the drift. With
--runs 3 on each side no difference can be significant at α = 0.05 (the
U test needs at least 4 + 4): use --runs 5 or more, or several studies
(--fresh) in each file, whose runs are pooled. Memory, space and create
are one value per study: their change is shown with "one sample: no test"
unless each side holds several studies.`

func compareCmd(args []string, o Options) error {
	fs := newFlagSet("compare")
	if done, err := parse(fs, args, compareSynopsis, o); done || err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return &orchestrate.InputError{Msg: "compare: give two results files, OLD and NEW (each FILE or FILE:variant)"}
	}
	var sides [2]report.Side
	for i, arg := range fs.Args() {
		file, variant := arg, ""
		if f, v, ok := strings.Cut(arg, ":"); ok && !strings.Contains(v, "/") {
			file, variant = f, v
		}
		recs, err := readResults("compare", file)
		if err != nil {
			return err
		}
		sides[i] = report.Side{Name: arg, Variant: variant, Figures: report.Figures(recs)}
		if variant != "" && !slices.ContainsFunc(sides[i].Figures, func(f report.Figure) bool { return f.Variant == variant }) {
			return &orchestrate.InputError{Msg: fmt.Sprintf("compare: %s has no figures of variant %s", file, variant)}
		}
	}
	if (sides[0].Variant == "") != (sides[1].Variant == "") {
		return &orchestrate.InputError{Msg: "compare: name a variant on both sides (FILE:variant) or on neither"}
	}
	if _, err := report.Compare(o.Stdout, sides[0], sides[1]); err != nil {
		return &orchestrate.InputError{Msg: "compare: " + err.Error()}
	}
	return nil
}
