package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"manydb/internal/job"
	"manydb/internal/report"
	"manydb/internal/results"
)

const compareSynopsis = `manydb compare OLD NEW

Compares two results files figure by figure, in benchstat's layout: old,
new, the change in percent and whether it is significant (Mann–Whitney U
test at α = 0.05 from golang.org/x/perf/benchmath, with p-value and sample
counts; ~ when not significant). OLD and NEW are files, FILE:VARIANT or
FILE:VARIANT@SETTING (e.g. r.jsonl:obx@default r.jsonl:obx@mmap-threshold),
and VARIANT may name one layout as the tables' columns do (r.jsonl:"sqlite
shared", or "sqlite per-agent"); a variant, layout or setting the file has
no records of is refused, naming what it has.
A file may be gzip-compressed (r.jsonl.gz, as make results keeps them).

The unit of the test is a warm open run (its median over the stores), pooled
over the studies of one store count in a file: at least 4 runs a side are
needed to find a change (manydb run --runs 5, or several studies).
Single-valued figures (create, memory, space: one per study) show their
change untested. Like is compared with like: a sweep's studies per store
count, memory per number of stores held; sides with no store count in
common are refused. A cell recorded twice is named in a warning.

The runs of one study share its machine, load and page cache, so two
studies of one build differ more than two runs of one study do. To tell
two builds apart, make their studies in turn, pool each build's in a file
(cat a1.jsonl a2.jsonl ... > a.jsonl) and compare with --per-study: a
study is then the unit (the median of its runs), and at least 4 studies
a side are needed. manydb ab makes such rounds itself and says per figure
whether B is the same as A, different, or not yet known.`

// compareOptions are the flags and files of manydb compare.
type compareOptions struct {
	perStudy bool
	files    []string // OLD and NEW
}

// AddFlags defines compare's flags in fs.
func (opt *compareOptions) AddFlags(fs *flag.FlagSet) {
	fs.BoolVar(&opt.perStudy, "per-study", false, "test one value per study (the median of its runs) instead of one per run")
}

// Validate checks that two files are named.
func (opt *compareOptions) Validate() error {
	if len(opt.files) != 2 {
		return &job.InputError{Msg: "compare: name two results files, OLD and NEW (e.g. manydb compare old.jsonl new.jsonl)"}
	}
	return nil
}

func compareCmd(_ context.Context, args []string, o Options) error {
	var opt compareOptions
	files, done, err := parseOptions("compare", compareSynopsis, &opt, args, o)
	if done || err != nil {
		return err
	}
	opt.files = files
	if err := opt.Validate(); err != nil {
		return err
	}
	var sides [2]report.Side
	for i, arg := range opt.files {
		file, sel := arg, ""
		if _, err := os.Stat(arg); err != nil {
			if f, s, ok := strings.Cut(arg, ":"); ok {
				file, sel = f, s
			}
		}
		side, err := compareSide(arg, sel)
		if err != nil {
			return err
		}
		if side.Records, err = readRecords("compare", file); err != nil {
			return err
		}
		sides[i] = side
	}
	compare := report.Compare
	if opt.perStudy {
		compare = report.ComparePerStudy
	}
	if err := compare(o.Stdout, sides[0], sides[1]); err != nil {
		return &job.InputError{Msg: "compare: " + err.Error()}
	}
	return nil
}

// compareSide is the side of a comparison named arg whose selection is
// sel: VARIANT, with a layout after a space ("sqlite shared"), and
// @SETTING, each optional.
func compareSide(arg, sel string) (report.Side, error) {
	variant, setting, _ := strings.Cut(sel, "@")
	side := report.Side{Name: arg, Variant: variant, Setting: setting}
	if v, name, ok := strings.Cut(strings.TrimSpace(variant), " "); ok {
		layouts, err := job.ParseLayouts(strings.TrimSpace(name))
		if err != nil || len(layouts) != 1 {
			return side, &job.InputError{Msg: fmt.Sprintf("compare: %s: a variant's layout is one of %s (e.g. \"%s shared\")", arg, strings.Join(job.LayoutNames(job.Layouts()), ", "), v)}
		}
		side.Variant, side.Layouts = v, layouts
	}
	return side, nil
}

// readRecords reads one results file for command cmd; a file that is
// missing, malformed or empty is an InputError.
func readRecords(cmd, file string) ([]results.Record, error) {
	if st, err := os.Stat(file); err == nil && st.IsDir() {
		return nil, &job.InputError{Msg: fmt.Sprintf("%s: %s is a directory: name a results file (e.g. %s)", cmd, file, filepath.Join(file, "results.jsonl"))}
	}
	r, err := results.ReadFile(file)
	var syn *results.SyntaxError
	if errors.As(err, &syn) {
		return nil, &job.InputError{Msg: cmd + ": " + syn.Error()}
	}
	if err != nil {
		return nil, &job.InputError{Msg: fmt.Sprintf("%s: %v", cmd, err)}
	}
	if len(r) == 0 {
		return nil, &job.InputError{Msg: fmt.Sprintf("%s: %s holds no manydb records", cmd, file)}
	}
	return r, nil
}
