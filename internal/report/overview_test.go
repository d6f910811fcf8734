package report

import (
	"bytes"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
)

// manyVariants is a synthetic study of every variant of the catalog under
// four settings: 64 rows of an overview, 64 dots on each decision chart,
// and each hold with 100 timed opens, every third variant's growing.
func manyVariants(variants []string) []results.Record {
	rng := rand.New(rand.NewPCG(7, 1))
	opens := rand.New(rand.NewPCG(7, 2)) // its own stream: the other draws stay as they were
	draw := func(center float64) []float64 {
		xs := make([]float64, 40)
		for i := range xs {
			xs[i] = center * (0.8 + 0.4*rng.Float64())
		}
		return xs
	}
	var recs []results.Record
	for _, setting := range []string{"default", "arena-1", "mmap-threshold", "trim"} {
		for i, v := range variants {
			scale := 1 + float64(i)
			base := results.Record{Schema: results.Schema, Study: "s", Variant: v, Setting: setting, Status: results.StatusOK}
			create := base
			create.Phase, create.CreateMs, create.WallS = job.PhaseCreate, draw(2*scale), 0.2
			recs = append(recs, create)
			for run := 1; run <= 3; run++ {
				r := base
				r.Phase, r.Run = job.PhaseOpen, run
				r.OpenMs, r.QueryMs, r.CloseMs, r.TotalMs = draw(0.01*scale), draw(0.05), draw(0.02), draw(0.08*scale)
				recs = append(recs, r)
			}
			hold := base
			hold.Phase, hold.Hold = job.PhaseHold, &results.Hold{Held: 100, RssKB: 300 * scale, AnonKB: 2500 * scale,
				OpenMs: syntheticOpens(opens, 100, 0.07*scale, 0.0001*float64(i%3))}
			space := base
			space.Phase, space.Bytes = job.PhaseSpace, []int64{350 * 1024, 360 * 1024}
			recs = append(recs, hold, space)
		}
	}
	return recs
}

// TestOverviewManyVariants checks the page of 16 variants under 4
// settings: one overview row per variant and setting, each on every
// decision chart's axis once, and numbers that read naturally.
func TestOverviewManyVariants(t *testing.T) {
	variants := engine.AllVariants()
	var b bytes.Buffer
	if err := HTML(&b, manyVariants(variants)); err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("MANYDB_REPORT_OUT"); out != "" { // to look at it: a screenshot
		os.WriteFile(out, b.Bytes(), 0o644)
	}
	page := b.String()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, doc)
	var overview *html.Node
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && n.Data == "table" && attr(n, "class") == "overview" {
			overview = n
			break
		}
	}
	if overview == nil {
		t.Fatal("no overview table")
	}
	var labels []string
	for tr := range overview.Descendants() {
		if tr.Type == html.ElementNode && tr.Data == "tr" && tr.Parent.Data == "tbody" {
			labels = append(labels, strings.TrimSpace(text(tr.FirstChild)))
		}
	}
	if len(labels) != 4*len(variants) {
		t.Errorf("the overview has %d rows, want %d (16 variants × 4 settings)", len(labels), 4*len(variants))
	}
	seen := map[string]bool{}
	for _, l := range labels {
		if seen[l] {
			t.Errorf("row %q twice", l)
		}
		seen[l] = true
	}
	// each decision chart names every row once on its axis
	charts := 0
	for fig := range doc.Descendants() {
		if fig.Type != html.ElementNode || fig.Data != "figure" || fig.Parent.Parent != overview.Parent.Parent { // the overview: a scroll box, then the charts
			continue
		}
		charts++
		texts := map[string]int{}
		for n := range fig.Descendants() {
			if n.Type == html.ElementNode && n.Data == "text" {
				texts[text(n)]++
			}
		}
		for _, l := range labels {
			if texts[l] != 1 {
				t.Errorf("%q appears %d times on the chart %q", l, texts[l], text(fig.LastChild))
			}
		}
	}
	if charts < 4 {
		t.Errorf("%d decision charts, want one per overview figure", charts)
	}
	// every number of the overview and of every chart reads naturally:
	// not NaN, not 2500.00 (four digits ungrouped, or zeros ending a
	// fraction), not 1e+03
	token := regexp.MustCompile(`[0-9][0-9.,e+-]*`)
	for n := range doc.Descendants() {
		if n.Type != html.TextNode || !(n.Parent.Data == "text" || inside(n, overview.Parent)) {
			continue
		}
		if strings.Contains(n.Data, "NaN") || strings.Contains(n.Data, "Inf") {
			t.Errorf("%q: not a number", n.Data)
		}
		for _, num := range token.FindAllString(n.Data, -1) {
			num = strings.TrimRight(num, ".,-")
			if regexp.MustCompile(`^\d{4,}|\.\d*0$|e`).MatchString(num) {
				t.Errorf("%q: an unformatted number %s", n.Data, num)
			}
		}
	}
	if !strings.Contains(page, "2.44 MB") || !strings.Contains(page, "<th>variant</th>") {
		t.Error("the memory of 2,500 KB does not read 2.44 MB")
	}
}

// TestOverviewEscapes checks that text from records (variant, setting)
// reaches the page escaped, in the table and in the charts.
func TestOverviewEscapes(t *testing.T) {
	hostile := `<script>alert("x")</script>`
	recs := manyVariants([]string{hostile, "sqlite"})
	for i := range recs {
		if recs[i].Setting == "trim" {
			recs[i].Setting = `"><img src=x>`
		}
	}
	var b bytes.Buffer
	if err := HTML(&b, recs); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, raw := range []string{hostile, `<img src=x>`} {
		if strings.Contains(page, raw) {
			t.Errorf("the page holds %s unescaped", raw)
		}
	}
	doc, err := html.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, doc)
}

// manyVariantsPage is the parsed report of manyVariants(variants).
func manyVariantsPage(t *testing.T, variants []string) *html.Node {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, manyVariants(variants)); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// inside tells whether n is below node above.
func inside(n, above *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p == above {
			return true
		}
	}
	return false
}

// A variant a setting does not apply to (a pure-Go engine under a malloc
// setting) has no row under that setting in the overview, which names it
// instead; its row under the settings that apply stays.
func TestOverviewLeavesOutNotApplied(t *testing.T) {
	recs, err := results.ReadFile("testdata/study.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ovs := overviews(group(recs, nil))
	if len(ovs) != 1 {
		t.Fatalf("%d overviews, want 1", len(ovs))
	}
	o := ovs[0]
	var labels []string
	for _, r := range o.rows {
		labels = append(labels, r.label)
	}
	for _, want := range []string{"fake · default", "sqlite · default", "sqlite · mmap-threshold"} {
		if !slices.Contains(labels, want) {
			t.Errorf("rows %q lack %q", labels, want)
		}
	}
	if slices.Contains(labels, "fake · mmap-threshold") {
		t.Errorf("rows %q show fake under mmap-threshold, where it is n/a", labels)
	}
	if len(o.notApplied) != 1 || o.notApplied[0].setting != "mmap-threshold" || o.notApplied[0].variants != "fake" {
		t.Errorf("notApplied = %v, want fake under mmap-threshold", o.notApplied)
	}
	var b bytes.Buffer
	if err := HTML(&b, recs); err != nil {
		t.Fatal(err)
	}
	if want := "Not shown under setting mmap-threshold: fake"; !strings.Contains(b.String(), want) {
		t.Errorf("page lacks %q", want)
	}
}

// At 16 variants a study's table is turned: a row per variant, at most
// figuresPerBlock figures per block, so no table is cut off at 1,280
// pixels; every block names every variant once, in the table's order.
func TestStudyTableTurnedAtManyVariants(t *testing.T) {
	variants := engine.AllVariants()
	doc := manyVariantsPage(t, variants)
	blocks := 0
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode || n.Data != "table" {
			continue
		}
		switch attr(n, "class") {
		case "overview":
			continue
		case "turned":
		default:
			t.Fatalf("a table of variant columns (class %q) at %d variants", attr(n, "class"), len(variants))
		}
		blocks++
		var headers int
		var rows []string
		for c := range n.Descendants() {
			switch {
			case c.Type == html.ElementNode && c.Data == "th":
				headers++
			case c.Type == html.ElementNode && c.Data == "tr" && c.Parent.Data == "tbody":
				rows = append(rows, strings.TrimSpace(text(c.FirstChild)))
			}
		}
		if headers < 2 || headers > figuresPerBlock+1 {
			t.Errorf("a block has %d headers, want 2 to %d", headers, figuresPerBlock+1)
		}
		if !slices.Equal(rows, variants) {
			t.Errorf("a block's rows are %q, want the variants %q", rows, variants)
		}
	}
	if blocks < 4 { // 4 settings, each at least one block
		t.Errorf("%d turned blocks, want at least one per setting", blocks)
	}
}

// Under lean, a variant whose engine has no lean options (turso) has no
// overview row; the line below the overview gives lean's reason, not a
// malloc setting's.
func TestOverviewLeavesOutLeanNotApplied(t *testing.T) {
	recs := manyVariants([]string{"sqlite", "turso"})
	var kept []results.Record
	for _, r := range recs {
		switch {
		case r.Setting != "default" && r.Setting != "arena-1":
			continue
		case r.Setting == "arena-1":
			r.Setting = "lean"
			if r.Variant == "turso" {
				r.Status, r.Error = results.StatusNotApplicable, "lean sets no option for turso"
			}
		}
		kept = append(kept, r)
	}
	ovs := overviews(group(kept, nil))
	if len(ovs) != 1 {
		t.Fatalf("%d overviews, want 1", len(ovs))
	}
	var labels []string
	for _, r := range ovs[0].rows {
		labels = append(labels, r.label)
	}
	if !slices.Contains(labels, "sqlite · lean") || slices.Contains(labels, "turso · lean") {
		t.Errorf("rows %q: want sqlite under lean and not turso", labels)
	}
	if len(ovs[0].notApplied) != 1 {
		t.Fatalf("notApplied = %v, want one line for lean", ovs[0].notApplied)
	}
	line := ovs[0].notApplied[0].String()
	if !strings.Contains(line, "lean setting has no engine option") || !strings.Contains(line, "turso") || strings.Contains(line, "malloc") {
		t.Errorf("the line %q does not give lean's reason for turso", line)
	}
}
