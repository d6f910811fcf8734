package report

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
)

// The Markdown overview of a study: a table per setting in the study's
// order, a row per variant, the seed's figure in brackets for the large
// workload (golden: go test ./internal/report -update rewrites it).
func TestWriteOverviewGolden(t *testing.T) {
	recs, err := results.ReadFile("testdata/study.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteOverview(&b, recs); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	checkGolden(t, "testdata/study.overview.golden", []byte(got))
	for _, want := range []string{
		"setting default.", "setting mmap-threshold.",
		"| `sqlite` | 26.6 ms (26.6 ms) |", // manydb's create, then the seed's
	} {
		if !strings.Contains(got, want) {
			t.Errorf("overview lacks %q:\n%s", want, got)
		}
	}
	if strings.Index(got, "setting default.") > strings.Index(got, "setting mmap-threshold.") {
		t.Errorf("settings not in the study's order:\n%s", got)
	}
}

// Every seed figure is the value docs/reference.md shows for it, so the
// brackets in the README quote the reference exactly.
func TestSeedMatchesReferenceDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{"default": "## Defaults", "mmap-threshold": "## With one allocator line"}
	rowOf := map[string]string{ // figure name → the reference table's row label
		"create": "Create, write 1,000 objects, close (median)", "stores-per-second": "Stores per second",
		"open": "Open (median)", "count": "Count query (median)", "open-query-close": "Open, query, close (median)",
		"open-query-close-p99": "same, p99", "close": "Close (median)",
		"rss-per-open-store": "Memory per open store (1,000 open), resident", "anon-per-open-store": "same, anonymous (process' own memory)",
		"space-per-store": "Space per store, files",
	}
	number := regexp.MustCompile(`[0-9][0-9,]*\.?[0-9]*`)
	seed := seedFigures()
	for setting, heading := range sections {
		text := string(doc)
		start := strings.Index(text, heading)
		if start < 0 {
			t.Fatalf("docs/reference.md has no %q", heading)
		}
		section := text[start:]
		if end := strings.Index(section[len(heading):], "\n## "); end >= 0 {
			section = section[:len(heading)+end]
		}
		for name, label := range rowOf {
			line := ""
			for _, l := range strings.Split(section, "\n") {
				if strings.HasPrefix(l, "| "+label+" |") {
					line = l
					break
				}
			}
			if line == "" {
				t.Errorf("%s: no row %q in docs/reference.md", setting, label)
				continue
			}
			cells := strings.Split(strings.Trim(line, "| "), " | ")[1:]
			for i, v := range seedVariants() {
				want, err := strconv.ParseFloat(strings.ReplaceAll(number.FindString(cells[i]), ",", ""), 64)
				if err != nil {
					t.Fatalf("%s %s %s: %q: %v", setting, name, v, cells[i], err)
				}
				if got := seed[seedKey{setting, v, name}]; got != want {
					t.Errorf("%s %s %s: seed %v, docs/reference.md %v", setting, name, v, got, want)
				}
			}
		}
	}
}

// The seed timed open, count, close: its open-query-close figures compare
// only with a study whose query is count alone, while its other figures
// (create, open alone, memory) compare with any study of its workload.
func TestSeedAppliesToCountAloneForOpenQueryClose(t *testing.T) {
	large := "large: 1,000 notes of 300 characters per store"
	countAlone := &table{objects: 1000, workload: large}
	agent := &table{objects: 1000, workload: large, queries: []job.Query{job.QueryRecent, job.QueryScan}}
	small := &table{objects: 10, workload: "small: 10 notes of 40 characters per store"}
	for _, c := range []struct {
		t      *table
		figure string
		want   bool
	}{
		{countAlone, "open-query-close", true},
		{countAlone, "open-query-close-p99", true},
		{agent, "open-query-close", false},
		{agent, "open-query-close-p99", false},
		{agent, "create", true},
		{agent, "open", true},
		{small, "create", false},
	} {
		if got := seedApplies(c.t, c.figure); got != c.want {
			t.Errorf("seedApplies(%v queries %v, %s) = %v, want %v", c.t.objects, c.t.queries, c.figure, got, c.want)
		}
	}
}
