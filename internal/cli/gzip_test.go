package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandsReadGzip: tables, report and compare read a results file
// compressed with gzip as they read the plain file.
func TestCommandsReadGzip(t *testing.T) {
	dir := t.TempDir()
	study, err := os.ReadFile("../report/testdata/study.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	plain, gz := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "r.jsonl.gz")
	if err := os.WriteFile(plain, study, 0o644); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(study)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		o, out, errOut := options(t)
		if err := Run(context.Background(), args, o); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut)
		}
		return out.String()
	}
	if want, got := run("tables", plain), run("tables", gz); got != want || got == "" {
		t.Errorf("tables of the .gz:\n%s\nwant (of the plain file):\n%s", got, want)
	}
	run("report", "-o", filepath.Join(dir, "r.html"), gz)
	if b, err := os.ReadFile(filepath.Join(dir, "r.html")); err != nil || !bytes.Contains(b, []byte("<html")) {
		t.Errorf("report of the .gz wrote no page (%v)", err)
	}
	run("compare", plain, gz)
	if out := run("compare", "--per-study", plain, gz); !strings.Contains(out, "unit of the test: a study") {
		t.Errorf("compare --per-study:\n%s\nwant a study as the unit", out)
	}
}

// TestDuplicateWarnings: a file read twice has each cell twice; every
// format warns of it, naming the file and line of the record used: md
// under its table, the others on stderr.
func TestDuplicateWarnings(t *testing.T) {
	file := "../report/testdata/study.jsonl"
	for _, format := range []string{"md", "overview", "csv", "json", "gobench"} {
		o, out, errOut := options(t)
		if err := Run(context.Background(), []string{"tables", "--format", format, file, file}, o); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		warned := errOut.String()
		if format == "md" {
			warned = out.String()
		}
		if !strings.Contains(strings.ToLower(warned), "warning: ") || !strings.Contains(warned, file+":") {
			t.Errorf("%s: no warning naming %s:LINE:\nstdout %.300s\nstderr %.300s", format, file, out.String(), errOut.String())
		}
	}
}
