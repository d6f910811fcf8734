package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"manydb/internal/workload"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"manydb/internal/advise"
	"manydb/internal/job"
	"manydb/internal/report"
	"manydb/internal/results"
)

const reportSynopsis = `manydb report -o report.html FILE...

Writes one self-contained HTML page from results files (nothing loaded
from elsewhere; one inline script sorts the overview), readable on a
phone (a viewport; tables scroll in their own box, charts scale). It
opens with an overview per workload: a chart of p99 against memory per
open store on log–log axes, a dot per row named beside it and the
frontier (what no other beats on both) drawn, one chart per machine;
and a row per variant with the figures that decide
(create, open-query-close p50 and p99, cold open, turn, memory per open
store, space), each with its spread across runs, and a dot chart per
figure, one colour per engine family (a log axis where the values span
more than ten times; a value at or below zero, which it cannot show,
named under it; a memory below zero reads "≈ 0", unranked). Then per study and setting the
reference table, each timing figure with its spread across runs (the
range of the per-run values, or a 95 % interval from 6 runs on), the
distributions per store (CDFs, a panel per engine family), the load during
the study, the environment of every session that recorded the table, and
what differed between sessions. Charts are drawn by gonum.org/v1/plot as
inline SVG. Files from several machines
(host, CPU, cores, memory) get a column per variant and machine. A serve
study adds the same chart of p99 against memory per agent (the worker's
peak resident memory over the study's agents), a dot per variant and
pool size, then p99 latency and peak memory against the pool size; a sweep
(run --stores 100,1000,…) each figure against the number of stores.
The page's title names what the records are about: written into a
record directory (a folder with a README.md, as make results writes), the
README's first heading, with links to the README and tables.md under it;
else the records' variants, store counts and days. Under the title: the
machines, the manydb commits that measured and the one that drew.
The page never replaces one of the inputs or another results file, and
replaces another existing file only when it is a page manydb report wrote
(or is empty), unless --force. An input may be gzip-compressed
(results.jsonl.gz, as make results keeps them).`

// reportOptions are the flags and files of manydb report.
type reportOptions struct {
	out   string
	force bool
	files []string
}

// AddFlags defines report's flags in fs.
func (opt *reportOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&opt.out, "o", "", "the HTML file to write (required)")
	fs.BoolVar(&opt.force, "force", false, "replace an existing -o that is not a page manydb report wrote (never an input or a results file)")
}

// Validate checks that the output and files are named, and that the
// output replaces no records.
func (opt *reportOptions) Validate() error {
	if opt.out == "" || len(opt.files) == 0 {
		return &job.InputError{Msg: "report: name the output and at least one results file (e.g. manydb report -o report.html results.jsonl)"}
	}
	return checkReportOut(opt.out, opt.files, opt.force)
}

func reportCmd(_ context.Context, args []string, o Options) error {
	var opt reportOptions
	files, done, err := parseOptions("report", reportSynopsis, &opt, args, o)
	if done || err != nil {
		return err
	}
	opt.files = files
	if err := opt.Validate(); err != nil {
		return err
	}
	var recs []results.Record
	for _, file := range opt.files {
		r, err := readRecords("report", file)
		if err != nil {
			return err
		}
		recs = append(recs, r...)
	}
	var b bytes.Buffer
	page := reportPage(opt.out, opt.files, recs)
	page.Record, page.Drawn = recordDir(filepath.Dir(opt.out)), o.Version
	if err := report.WritePage(&b, recs, page); errors.Is(err, report.ErrNoStudies) {
		return &job.InputError{Msg: fmt.Sprintf("report: %s: %v", strings.Join(opt.files, ", "), err)}
	} else if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := os.WriteFile(opt.out, b.Bytes(), 0o644); err != nil {
		return &job.InputError{Msg: fmt.Sprintf("report: cannot write -o %s (%v): name a file you can write", opt.out, errors.Unwrap(err))}
	}
	fmt.Fprintln(o.Stdout, opt.out)
	return nil
}

// checkReportOut refuses an output that is one of the inputs or an
// existing results file, where the page would replace records, and,
// unless force, an existing file that is neither empty nor a page manydb
// report wrote.
func checkReportOut(out string, inputs []string, force bool) error {
	st, err := os.Stat(out)
	if err != nil {
		return nil // a new file (or one WriteFile will report on)
	}
	if st.IsDir() {
		return &job.InputError{Msg: fmt.Sprintf("report: -o %s is a directory: name an HTML file (e.g. %s)", out, filepath.Join(out, "report.html"))}
	}
	for _, in := range inputs {
		if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
			return &job.InputError{Msg: fmt.Sprintf("report: -o %s is the input %s: name another output", out, in)}
		}
	}
	f, err := os.Open(out)
	if err != nil {
		return nil
	}
	defer f.Close()
	if results.NewReader(f, out).Next() {
		return &job.InputError{Msg: fmt.Sprintf("report: -o %s is a results file: name another output", out)}
	}
	head := make([]byte, 8<<10)
	n, _ := f.ReadAt(head, 0)
	if !force && n > 0 && !report.IsPage(head[:n]) {
		return &job.InputError{Msg: fmt.Sprintf("report: -o %s exists and is not a page manydb report wrote: name another output, or give --force to replace it", out)}
	}
	return nil
}

// dataText names a real data set the lead's embeddings come from ("" for
// the synthetic ones): advise reads only the first data set's records.
func dataText(d workload.Data) string {
	if d.Name == "" {
		return ""
	}
	return " from --data " + d.Name + " (the first data set of the records; the others are not in this answer)"
}

// reportPage is the report's lead, manydb advise's answer for its
// default scenario with the records' agents (their stores) from the
// records, and the links to the records from
// the page at out.
func reportPage(out string, files []string, recs []results.Record) report.Page {
	var p report.Page
	recs, machine := firstMachine(recs)
	s := advise.Default()
	s.Dims = reportDims(recs)
	how := "manydb advise with its defaults"
	if n := advise.RecordsAgents(recs); n > 0 && n != s.Agents {
		s.Agents = n
		how += fmt.Sprintf(" and --agents %d, the records' stores", n)
	}
	if a, err := advise.FromRecords(s, recs, files); err == nil {
		if w, ok := advise.VectorWorkload(recs, s.Dims); ok {
			how += fmt.Sprintf(" and --dims %d, the records' embeddings%s%s", s.Dims, dataText(w.Data), report.TopicsText(w))
		}
		lead := a.Lead(how)
		if machine != "" {
			lead.Paragraphs = slices.Insert(lead.Paragraphs, 2, machine)
		}
		p.Lead = &lead
	}
	for _, f := range files {
		href, err := relative(filepath.Dir(out), f)
		if err != nil {
			href = f
		}
		p.Files = append(p.Files, report.Link{Name: filepath.Base(f), Href: filepath.ToSlash(href)})
	}
	return p
}

// firstMachine is recs of the first machine they name, and what the
// lead says of the others ("" when they name one machine): advise never
// ranks figures of two machines together (manydb advise itself reads
// the records it is given, whatever their machines).
func firstMachine(recs []results.Record) ([]results.Record, string) {
	parts, machines := report.ByMachine(recs)
	if len(parts) < 2 {
		return recs, ""
	}
	return parts[0], fmt.Sprintf("The records of this page come from %d machines; this answer is over the first one's records only, so that it ranks no figures of two machines together. The tables below hold the others' too: %s.",
		len(parts), strings.Join(machines[1:], "; "))
}

// recordDir is the record directory dir, when it is one (it holds a
// README.md): the page takes its title from the README's first heading
// and links the README and, when there is one, tables.md. A zero Record
// when dir holds no README.
func recordDir(dir string) report.Record {
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		return report.Record{}
	}
	rec := report.Record{Links: []report.Link{{Name: "README", Href: "README.md"}}}
	for _, line := range strings.Split(string(readme), "\n") {
		if title, ok := strings.CutPrefix(line, "# "); ok {
			rec.Title = strings.ReplaceAll(strings.TrimSpace(title), "`", "")
			break
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "tables.md")); err == nil {
		rec.Links = append(rec.Links, report.Link{Name: "tables", Href: "tables.md"})
	}
	return rec
}

// relative is the path of file from dir, both made absolute first.
func relative(dir, file string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	f, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	return filepath.Rel(d, f)
}

// reportDims is the embedding size the report's lead asks about: none
// when some record was made without embeddings, else the first record's.
func reportDims(recs []results.Record) int {
	dims := -1
	for _, r := range recs {
		if r.Phase == job.PhaseEnv || r.Phase == job.PhaseEnd {
			continue
		}
		if r.Workload.Dims == 0 {
			return 0
		}
		if dims < 0 {
			dims = r.Workload.Dims
		}
	}
	return max(dims, 0)
}
