package report

import (
	"bytes"
	"strings"
	"testing"
	"time"
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
		"<title>manydb report: study a, 2026-12-04</title>",
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

func itoa(i int) string { return thousands(float64(i)) }
