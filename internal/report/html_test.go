package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"manydb/internal/results"
)

// TestHTMLEveryChartAndCell parses the report of the test studies and
// checks that every chart has drawn data and every <td> a value or
// a reason (n/a, failed, –): several studies of one machine, a study
// resumed in two sessions, failed runs, and studies on two machines.
func TestHTMLEveryChartAndValue(t *testing.T) {
	read := func(files ...string) []results.Record {
		var recs []results.Record
		for _, f := range files {
			r, err := results.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, r...)
		}
		return recs
	}
	tests := []struct {
		name string
		recs []results.Record
		want []string // texts the page must hold
	}{
		// with a study of every query, cold runs, turns and a container
		// figure, and a manydb serve study (two variants, three pool sizes)
		{"one machine", append(append(studyWithSettings(), synthStudy("b", 5, 1, 3)...), read("testdata/queries.jsonl", "testdata/serve.jsonl")...), nil},
		{"resumed", read("testdata/resumed.jsonl"), []string{"mixed: manydb v0-aaa and v0-bbb", "Session 1, started", "Session 2, started"}},
		// each drawn figure's chart is titled by its row's label
		{"queries", read("testdata/queries.jsonl"), []string{"<figcaption>Recent 20 notes per store: the share of stores",
			"<figcaption>Open, cold cache per store: the share of stores", "<figcaption>Turn: open, recent, append, close per store: the share of stores",
			"<figcaption>Create, write 10 objects, close per store: the share of stores"}},
		{"renamed", read("testdata/renamed.jsonl"), []string{"<th>libsql_go</th>", "libsql_go: recorded as libsql, its id before commit 628aaf7"}},
		{"failed", read("testdata/failed.jsonl"), []string{"Failed and not redone: sqlite open run 2"}},
		{"two machines", read("testdata/machines.jsonl"), []string{"sqlite @ laptop", "sqlite @ server", "fake @ server", "on laptop", "on server"}},
		// a sweep over 10 and 30 stores with hold counts 2, 5 and 20
		{"sweep", read("testdata/sweep.jsonl"), []string{"each figure against the number of stores", "<th>10 stores</th><th>30 stores</th>",
			"fake: Memory per open store (20 open), resident", "Open, query, close, p99 against the number of stores", "Open (median) against the number of stores (log axis)"}},
		// manydb sweep: 400 GloVe notes among 4 and 40 agents, ObjectBox and bbolt in both layouts
		{"agent sweep", read("testdata/agentsweep.jsonl.gz"), []string{"400 notes of glove50 (50 dims) divided among the agents",
			"<th>4 agents × 100</th><th>40 agents × 10</th>", "recall@10, mean: obx_nosync shared",
			"recall@10 (mean) against the number of agents (log axis)", "recall@10 (5th percentile) against the number of agents (log axis)",
			"knn p99 against the number of agents (log axes)", "recall@10 (mean) against knn p99"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := HTML(&b, tt.recs); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			doc, err := html.Parse(&b)
			if err != nil {
				t.Fatal(err)
			}
			checkPage(t, doc)
			for _, w := range tt.want {
				if !strings.Contains(page, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
		})
	}
	if err := HTML(&bytes.Buffer{}, []results.Record{}); err == nil {
		t.Error("no error for no records")
	}
}

// checkPage checks that every chart of a parsed report has data and sits
// in a row of charts (div.charts), every <td> a value or a reason, every
// row as many <td> as its table has columns, and that the page loads
// nothing.
func checkPage(t *testing.T, doc *html.Node) {
	t.Helper()
	var figures, tds, scripts, links int
	viewport := false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "figure":
				figures++
				if count(n, "path") < 2 { // an axis and at least one data path
					t.Errorf("a chart without data: %s", text(n))
				}
				// figures side by side are spaced by their row's gap, so
				// that two captions never read as one line
				if p := n.Parent; p.Data != "div" || attr(p, "class") != "charts" {
					t.Errorf("a chart in a <%s class=%q>, not in a row of charts: %.60s", p.Data, attr(p, "class"), text(n))
				}
			case "table":
				// a table scrolls in a box of its own on a narrow screen
				if p := n.Parent; p.Data != "div" || attr(p, "class") != "scroll" {
					t.Errorf("a table in a <%s class=%q>, not in a scroll box: %.60s", p.Data, attr(p, "class"), text(n))
				}
				cols := -1
				for tr := range n.Descendants() {
					if tr.Type != html.ElementNode || tr.Data != "tr" {
						continue
					}
					k := count(tr, "td") + count(tr, "th")
					if cols >= 0 && k != cols {
						t.Errorf("a row of %d <td> in a table of %d columns: %s", k, cols, text(tr))
					}
					cols = k
				}
			case "td":
				tds++
				if strings.TrimSpace(text(n)) == "" {
					t.Error("an empty <td>")
				}
			case "script": // inline only: the overview's sort script
				if attr(n, "src") != "" || strings.Contains(text(n), "http") {
					scripts++
				}
			case "meta":
				viewport = viewport || attr(n, "name") == "viewport" && strings.Contains(attr(n, "content"), "width=device-width")
			case "link", "img", "iframe":
				links++
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if figures < 4 || tds == 0 {
		t.Errorf("%d charts and %d <td>: want several", figures, tds)
	}
	if !viewport {
		t.Error("no <meta name=viewport content=width=device-width>: a phone shows the page shrunk")
	}
	if scripts+links > 0 {
		t.Errorf("the page loads %d scripts and %d links or images: it must be self-contained", scripts, links)
	}
}

// attr is the value of a node's attribute, "" when it has none.
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
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

// TestLongCellsAndPoolTicks: a sentence in a cell wraps, a figure does
// not; the serve charts' pool axis marks each pool size at pool + 1.
func TestLongCellsAndPoolTicks(t *testing.T) {
	if longCell("12.345 ms (11.181–18.359)") || !longCell("5,736 of 20,000, stopped early at the 3m0s limit") {
		t.Error("longCell: a figure must stay on one line, a sentence wrap")
	}
	ticks := poolTicks{0, 100, 10000}.Ticks(0, 0)
	if len(ticks) != 3 || ticks[0].Value != 1 || ticks[0].Label != "0" || ticks[2].Value != 10001 || ticks[2].Label != "10,000" {
		t.Errorf("pool ticks %+v", ticks)
	}
}

// TestLoadPlotLegendAboveData checks that the load chart of studies on
// two machines keeps its legend (the machines' names) in a band above
// every point, where it covers none.
func TestLoadPlotLegendAboveData(t *testing.T) {
	recs, err := results.ReadFile("testdata/machines.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	drawn := 0
	for _, tb := range group(recs, nil) {
		p, err := loadPlot(tb)
		if err != nil || p == nil {
			continue
		}
		top := 0.0
		for _, v := range tb.variants {
			for _, r := range tb.columns[v].all {
				for _, l := range r.LoadDuring {
					top = max(top, l)
				}
			}
		}
		drawn++
		s, err := svg(p)
		if err != nil {
			t.Fatal(err)
		}
		if filled := regexp.MustCompile(`Z" style="fill:#[0-9A-F]{6}"`).FindAllString(string(s), -1); len(filled) > 1 { // the white background
			t.Errorf("%d filled shapes drawn: the phases' strip is strokes, so that no phase reads as a data point", len(filled)-1)
		}
		if !p.Legend.Top || p.Y.Max < top*1.3 {
			t.Errorf("legend at the top %v, y up to %.2f for points up to %.2f: want the top and at least 1.3 × the highest", p.Legend.Top, p.Y.Max, top)
		}
	}
	if drawn == 0 {
		t.Fatal("no load chart of two machines drawn from testdata/machines.jsonl")
	}
}
