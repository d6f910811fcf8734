package report

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"manydb/internal/job"
	"manydb/internal/results"
)

// TestPageLeadsWithItsAnswer: the page's title names its study and day,
// the lead comes first, every section has an anchor the contents link,
// and the caveats and raw records follow.
func TestPageLeadsWithItsAnswer(t *testing.T) {
	recs := synthStudy("a", 5, 1, 1)
	for i := range recs {
		recs[i].Started, recs[i].Stores = time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC), 100
	}
	lead := &Lead{Heading: "The answer", Paragraphs: []string{"It is bbolt."},
		Tables: []LeadTable{{Caption: "Options:", Head: []string{"variant"}, Rows: [][]string{{"bbolt"}}}}, Items: []string{"Not covered: x"}}
	var b bytes.Buffer
	if err := WritePage(&b, recs, Page{Lead: lead, Files: []Link{{Name: "a.jsonl", Href: "../a.jsonl"}}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<title>Create and open of sqlite at 100 stores (2026-12-04)</title>",
		"Measured by manydb of no recorded commit; drawn by manydb of unknown version.",
		`<a href="#caveats">raw records</a>`,
		`<section id="answer">`, "<h2>The answer</h2>", "It is bbolt.", "<td>bbolt</td>", "<li>Not covered: x</li>",
		`<a href="#answer">The answer</a>`, `<a href="#s1">Overview of study a: `, `<section id="s1">`,
		"Study a: 100 stores per variant; 5 warm runs.",
		`<a href="../a.jsonl">a.jsonl</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Index(page, `id="answer"`) > strings.Index(page, `id="s1"`) {
		t.Error("the lead is not before the first section")
	}
	for i := 1; strings.Contains(page, `href="#s`); i++ {
		id := `id="s` + itoa(i) + `"`
		if !strings.Contains(page, `href="#s`+itoa(i)+`"`) {
			break
		}
		if !strings.Contains(page, id) {
			t.Errorf("the contents link s%d, which no section is", i)
		}
	}
}

// TestPageNamesItsRecord: written into a record directory, the page takes
// its title from the record, links its README and tables, and names the
// machine, the commit that measured and the one that drew.
func TestPageNamesItsRecord(t *testing.T) {
	recs := synthStudy("a", 2, 1, 1)
	env := results.Record{Schema: results.Schema, Study: "a", Phase: job.PhaseEnv, Status: results.StatusOK,
		Env: map[string]string{"host": "vm", "cpu": "AMD EPYC", "cores": "2", "memory_kb": "24683792", "kernel": "6.18", "manydb": "b07d55b"}}
	recs = append([]results.Record{env}, recs...)
	rec := Record{Title: "Past one process", Links: []Link{{Name: "README", Href: "README.md"}, {Name: "tables", Href: "tables.md"}}}
	var b bytes.Buffer
	if err := WritePage(&b, recs, Page{Record: rec, Drawn: "abc1234"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<title>Past one process</title>", "<h1>Past one process</h1>",
		"Machine: host vm, AMD EPYC, 2 cores, 24 GiB, Linux 6.18.",
		"Measured by manydb b07d55b; drawn by manydb abc1234.",
		`<a href="README.md">README</a> · <a href="tables.md">tables</a>.`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func itoa(i int) string { return thousands(float64(i)) }

// TestIsPage: a page WritePage wrote is known as manydb's, and so is a
// record's page drawn before the page had a viewport; another HTML file,
// or text, is not.
func TestIsPage(t *testing.T) {
	var b bytes.Buffer
	if err := WritePage(&b, synthStudy("a", 2, 1, 1), Page{}); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile("../../docs/results/2026-12-04-lean/report.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		head []byte
		want bool
	}{
		{b.Bytes(), true},
		{old, true},
		{[]byte("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>mine</title>\n<style>\nbody{color:red}\n"), false},
		{[]byte("keep this\n"), false},
	} {
		if got := IsPage(tt.head); got != tt.want {
			t.Errorf("IsPage(%.40q…) = %v, want %v", tt.head, got, tt.want)
		}
	}
}

// TestLeadShowsTheFrontier: a page with a lead shows, within it, the chart
// that answers at a glance (the first frontier chart); a page without a
// lead does not.
func TestLeadShowsTheFrontier(t *testing.T) {
	recs := manyVariants([]string{"sqlite", "bbolt", "pebble"})
	var b bytes.Buffer
	if err := WritePage(&b, recs, Page{Lead: &Lead{Heading: "The answer"}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	_, rest, ok := strings.Cut(page, `<section id="answer">`)
	lead, _, _ := strings.Cut(rest, "</section>")
	if !ok || !strings.Contains(lead, "<svg") || !strings.Contains(lead, "At a glance: ") || !strings.Contains(lead, "the frontier") {
		t.Errorf("the lead holds no frontier chart: %.300q", lead)
	}
	b.Reset()
	if err := WritePage(&b, recs, Page{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "At a glance: ") {
		t.Error("a page without a lead shows the lead's chart")
	}
}
