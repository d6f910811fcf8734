package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/orchestrate"
)

// TestReportKeepsResultsFiles: report -o refuses an output that is one of
// its inputs or another results file (exit 2, both kept), and replaces an
// older page.
func TestReportKeepsResultsFiles(t *testing.T) {
	dir := t.TempDir()
	study, err := os.ReadFile("../report/testdata/study.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	in, other, page := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "other.jsonl"), filepath.Join(dir, "page.html")
	for _, f := range []string{in, other} {
		if err := os.WriteFile(f, study, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(page, []byte("<html>old</html>"), 0o644)
	for _, tt := range []struct{ out, want string }{{in, "is the input"}, {other, "is a results file"}} {
		o, _, _ := options(t)
		err := Run(context.Background(), []string{"report", "-o", tt.out, in}, o)
		var input *orchestrate.InputError
		if !errors.As(err, &input) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("report -o %s: err = %v, want an input error saying it %s", filepath.Base(tt.out), err, tt.want)
		}
		if b, _ := os.ReadFile(tt.out); string(b) != string(study) {
			t.Errorf("report -o %s changed it", filepath.Base(tt.out))
		}
	}
	o, _, _ := options(t)
	if err := Run(context.Background(), []string{"report", "-o", page, in}, o); err != nil {
		t.Fatalf("report -o page.html: %v", err)
	}
	if b, _ := os.ReadFile(page); !strings.Contains(string(b), "manydb report") {
		t.Errorf("the older page was not replaced")
	}
}
