package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
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
}
