package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/results"
)

// withCopies writes a copy of the results file in to a temporary file
// with the lines named appended again (a file edited by hand), reads it
// and returns its records and the line of each appended copy.
func withCopies(t *testing.T, in string, lines ...int) ([]results.Record, map[int]int) {
	t.Helper()
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	orig := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	out := append([]string(nil), orig...)
	copyAt := map[int]int{}
	for _, n := range lines {
		out = append(out, orig[n-1])
		copyAt[n] = len(out)
	}
	name := filepath.Join(t.TempDir(), filepath.Base(in))
	if err := os.WriteFile(name, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return recs, copyAt
}

// TestDuplicatesWarned: a cell recorded twice (a file edited or joined by
// hand) is named in the tables' notes, the report and compare, with the
// line of the record used, for every phase: create, open runs of each
// cache mode, hold, space, turn, serve and profile.
func TestDuplicatesWarned(t *testing.T) {
	// queries.jsonl: 2 create, 4 open run 2, 6 cold open run 2, 7 hold,
	// 8 space, 10 turn run 2, all of fake in study 20261203T090000Z-queries
	recs, at := withCopies(t, "testdata/queries.jsonl", 2, 4, 6, 7, 8, 10)
	study := recs[0].Study
	want := map[int]string{2: "fake create", 4: "fake open run 2", 6: "fake open cold run 2", 7: "fake hold", 8: "fake space", 10: "fake turn run 2"}
	warning := func(line int) string {
		return fmt.Sprintf("study %s, setting default: %s has 2 records, one expected; the last one, %s:%d, is used", study, want[line], recs[0].File, at[line])
	}
	var tables, page, cmp bytes.Buffer
	if err := Tables(&tables, recs); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, recs); err != nil {
		t.Fatal(err)
	}
	orig, err := results.ReadFile("testdata/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := Compare(&cmp, Side{Name: "edited", Records: recs}, Side{Name: "orig", Records: orig}); err != nil {
		t.Fatal(err)
	}
	for line := range want {
		if !strings.Contains(tables.String(), "Warning: "+warning(line)) {
			t.Errorf("tables lack the warning %q:\n%s", warning(line), tables.String())
		}
		if !strings.Contains(page.String(), warning(line)) {
			t.Errorf("report lacks the warning %q", warning(line))
		}
		if !strings.Contains(cmp.String(), "old: warning: "+warning(line)) {
			t.Errorf("compare lacks the warning %q:\n%s", warning(line), cmp.String())
		}
	}
	if strings.Contains(cmp.String(), "new: warning") {
		t.Errorf("compare warns of the unedited file:\n%s", cmp.String())
	}

	for _, tt := range []struct{ file, what string }{
		{"testdata/serve.jsonl", "sqlite serve pool 10 run 2"},
		{"testdata/profile.jsonl", "sqlite profile on disk"},
	} {
		line := map[string]int{"testdata/serve.jsonl": 5, "testdata/profile.jsonl": 2}[tt.file]
		recs, at := withCopies(t, tt.file, line)
		var got bytes.Buffer
		if err := Tables(&got, recs); err != nil {
			t.Fatal(err)
		}
		w := fmt.Sprintf("Warning: study %s, setting %s: %s has 2 records, one expected; the last one, %s:%d, is used",
			recs[line-1].Study, recs[line-1].Setting, tt.what, recs[0].File, at[line])
		if !strings.Contains(got.String(), w) {
			t.Errorf("%s: tables lack the warning %q:\n%s", tt.file, w, got.String())
		}
	}
}

// TestNoDuplicateWarnings: a failed run redone, as manydb does it, warns of
// nothing.
func TestNoDuplicateWarnings(t *testing.T) {
	for _, f := range []string{"testdata/failed.jsonl", "testdata/resumed.jsonl", "testdata/study.jsonl", "testdata/sweep.jsonl"} {
		recs, err := results.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := Tables(&got, recs); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(got.String(), "Warning:") {
			t.Errorf("%s: a warning:\n%s", f, got.String())
		}
	}
}
