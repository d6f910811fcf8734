package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
)

// TestReportKeepsResultsFiles: report -o refuses an output that is one of
// its inputs or another results file (exit 2, both kept, --force or not),
// and a file that is not a page manydb report wrote unless --force; it
// replaces an older page and an empty file.
func TestReportKeepsResultsFiles(t *testing.T) {
	dir := t.TempDir()
	study, err := os.ReadFile("../report/testdata/study.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	older, err := os.ReadFile("../../docs/results/2026-12-04-lean/report.html")
	if err != nil {
		t.Fatal(err)
	}
	in, other, page := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "other.jsonl"), filepath.Join(dir, "page.html")
	mine, empty := filepath.Join(dir, "keep.txt"), filepath.Join(dir, "empty.html")
	for f, b := range map[string][]byte{in: study, other: study, page: older, mine: []byte("mine\n"), empty: nil} {
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
		kept []byte
	}{
		{[]string{"-o", in}, "is the input", study},
		{[]string{"-o", other}, "is a results file", study},
		{[]string{"--force", "-o", other}, "is a results file", study},
		{[]string{"-o", mine}, "exists and is not a page manydb report wrote: name another output, or give --force to replace it", []byte("mine\n")},
	} {
		o, _, _ := options(t)
		out := tt.args[len(tt.args)-1]
		err := Run(context.Background(), append(append([]string{"report"}, tt.args...), in), o)
		var input *job.InputError
		if !errors.As(err, &input) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("report %v: err = %v, want an input error saying it %s", tt.args, err, tt.want)
		}
		if b, _ := os.ReadFile(out); !bytes.Equal(b, tt.kept) {
			t.Errorf("report %v changed %s", tt.args, filepath.Base(out))
		}
	}
	for _, args := range [][]string{{"-o", page}, {"-o", empty}, {"--force", "-o", mine}} {
		o, _, _ := options(t)
		if err := Run(context.Background(), append(append([]string{"report"}, args...), in), o); err != nil {
			t.Fatalf("report %v: %v", args, err)
		}
		if b, _ := os.ReadFile(args[len(args)-1]); !strings.Contains(string(b), "drawn by manydb") {
			t.Errorf("report %v did not replace it", args)
		}
	}
}

// A file with no study in it is bad input for tables and report alike:
// exit 2, the same line naming the file (issue 31, case 12).
func TestNoStudyIsBadInputForTablesAndReport(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "env-only.jsonl")
	env := `{"schema":2,"study":"s1","phase":"env","status":"ok","workload":{"name":"small","objects":10,"text_len":40},"stores":1,"started":"2026-12-04T00:00:00Z"}` + "\n"
	if err := os.WriteFile(file, []byte(env), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"tables", file}, {"report", "-o", filepath.Join(dir, "r.html"), file}} {
		o, _, _ := options(t)
		err := Run(context.Background(), args, o)
		if code := ExitCode(err); code != 2 || !strings.Contains(fmt.Sprint(err), file+": no study records found") {
			t.Errorf("%s: exit %d, err %v; want exit 2 naming %s", args[0], code, err, file)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.html")); err == nil {
		t.Errorf("report wrote a page without a study")
	}
}

// A file of serve records only has no overview: tables --format overview
// says why in one line and exits 2, while tables --format md shows it.
func TestOverviewOfServeOnlyIsBadInput(t *testing.T) {
	file := filepath.Join("..", "report", "testdata", "serve.jsonl")
	o, _, _ := options(t)
	err := Run(context.Background(), []string{"tables", "--format", "overview", file}, o)
	if code := ExitCode(err); code != 2 || !strings.Contains(fmt.Sprint(err), "only serve studies or profiles") {
		t.Errorf("overview of serve records: exit %d, err %v; want exit 2 saying the file holds serve studies only", code, err)
	}
	o, _, _ = options(t)
	if err := Run(context.Background(), []string{"tables", "--format", "md", file}, o); err != nil {
		t.Errorf("tables of serve records: %v", err)
	}
}

// TestReportLeadsWithAdvise: the page opens with manydb advise's answer
// for its default scenario with the records' agents (their stores) from
// the page's records, and links the records by their path from the
// page.
func TestReportLeadsWithAdvise(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "data", "serve.jsonl")
	if err := os.MkdirAll(filepath.Dir(in), 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../report/testdata/serve.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, src, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "pages", "r.html")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	o, _, errOut := options(t)
	if err := Run(context.Background(), []string{"report", "-o", out, in}, o); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Which variant, and how many stores kept open: the answer of these records",
		"Scenario: 60 agents of 1,000 notes", // the records' 60 stores, not advise's 10,000
		"manydb advise with its defaults and --agents 60, the records",
		`<a href="../data/serve.jsonl">serve.jsonl</a>`,
	} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestRecordDir: a folder with a README.md is a record directory, titled
// by the README's first heading (without its code marks), linking the
// README and tables.md; a folder without one is none.
func TestRecordDir(t *testing.T) {
	dir := t.TempDir()
	if rec := recordDir(dir); rec.Title != "" || len(rec.Links) != 0 {
		t.Errorf("a folder without a README: %+v, want none", rec)
	}
	readme := "Intro\n# Past one process: `bbolt` at 100,000 stores\n\n# Later\n"
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tables.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rec := recordDir(dir)
	if want := "Past one process: bbolt at 100,000 stores"; rec.Title != want {
		t.Errorf("title %q, want %q", rec.Title, want)
	}
	if got := fmt.Sprint(rec.Links); got != "[{README README.md} {tables tables.md}]" {
		t.Errorf("links %s, want the README and tables.md", got)
	}
}

// TestFirstMachineOnly: the lead of records from two machines is advise's
// answer over the first machine's records, and says so; one machine's
// records are the lead's whole.
func TestFirstMachineOnly(t *testing.T) {
	recs, err := results.ReadFile("../report/testdata/machines.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first, note := firstMachine(recs)
	if len(first) == 0 || len(first) >= len(recs) {
		t.Fatalf("%d of %d records kept, want the first machine's", len(first), len(recs))
	}
	for _, r := range first {
		if !strings.HasSuffix(r.Study, "laptop") {
			t.Errorf("kept a record of study %s, want laptop's only", r.Study)
		}
	}
	if !strings.Contains(note, "2 machines") || !strings.Contains(note, "server") || !strings.Contains(note, "over the first one's records only, so that it ranks no figures of two machines together") {
		t.Errorf("note %q", note)
	}
	if again, note := firstMachine(first); len(again) != len(first) || note != "" {
		t.Errorf("one machine: kept %d of %d, note %q; want all, no note", len(again), len(first), note)
	}
}
