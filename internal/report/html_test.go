package report

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"manydb/internal/results"
)

// TestHTMLEveryChartAndCell parses the report of the test studies and
// checks that every chart has drawn data and every table cell a value or
// a reason (n/a, failed, –).
func TestHTMLEveryChartAndCell(t *testing.T) {
	recs := append(studyWithSettings(), synthStudy("b", 5, 1, 3)...)
	// and a study with every query, cold runs, turns and a container figure
	queries, err := results.ReadFile("testdata/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	recs = append(recs, queries...)
	// and a manydb serve study (two variants, three pool sizes)
	served, err := results.ReadFile("testdata/serve.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	recs = append(recs, served...)
	var b bytes.Buffer
	if err := HTML(&b, recs); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	var figures, cells, scripts, links int
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "figure":
				figures++
				if count(n, "path") < 2 { // an axis and at least one data path
					t.Errorf("a chart without data: %s", text(n))
				}
			case "td":
				cells++
				if strings.TrimSpace(text(n)) == "" {
					t.Error("an empty table cell")
				}
			case "script":
				scripts++
			case "link", "img":
				links++
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if figures < 4 || cells == 0 {
		t.Errorf("%d charts and %d cells: want several", figures, cells)
	}
	if scripts+links > 0 {
		t.Errorf("the page loads %d scripts and %d links or images: it must be self-contained", scripts, links)
	}
	if err := HTML(&b, []results.Record{}); err == nil {
		t.Error("no error for no records")
	}
}

func count(n *html.Node, tag string) int {
	c := 0
	if n.Type == html.ElementNode && n.Data == tag {
		c++
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c += count(ch, tag)
	}
	return c
}

func text(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var s strings.Builder
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		s.WriteString(text(ch))
	}
	return s.String()
}
