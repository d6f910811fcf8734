package report

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
)

// syntheticOpens are n opens in ms, the i-th made with i stores open:
// base + perStore·i, plus noise skewed to the right as real opens are
// (exponential, its mean a tenth of base) and, one open in 25, a slow one
// (5 to 15 times base more).
func syntheticOpens(rng *rand.Rand, n int, base, perStore float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = base + perStore*float64(i) + 0.1*base*rng.ExpFloat64()
		if rng.IntN(25) == 0 {
			xs[i] += base * (5 + 10*rng.Float64())
		}
	}
	return xs
}

// heldWith is a hold record with the given open samples.
func heldWith(opens []float64) *results.Record {
	return &results.Record{Phase: job.PhaseHold, Hold: &results.Hold{Held: len(opens), OpenMs: opens}}
}

// TestOpenGrowthRecoversSlope: the growth figure finds the slope of
// synthetic opens, noisy and with slow opens, within 5 %, and no slope in
// flat opens, also when a burst of slow opens ends the phase (which would
// tilt a least-squares line).
func TestOpenGrowthRecoversSlope(t *testing.T) {
	tests := []struct {
		name           string
		n              int
		base, perStore float64 // ms, ms per store open
	}{
		{"0.02 ms + 0.001 ms per store open", 1000, 0.02, 0.001},
		{"30 µs + 50 ns per store open (SQLite's expected walk)", 1000, 0.03, 0.00005},
		{"10,000 opens", 10000, 0.03, 0.00005},
		{"flat", 1000, 0.03, 0},
	}
	for k, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opens := syntheticOpens(rand.New(rand.NewPCG(uint64(k), 30)), tt.n, tt.base, tt.perStore)
			got, want := openGrowth(heldWith(opens)), tt.perStore*1e6 // µs per 1,000 open
			tolerance := 0.05 * want
			if want == 0 {
				tolerance = 0.05 * tt.base * 1000 // 5 % of the open per 1,000 open
			}
			if math.Abs(got-want) > tolerance {
				t.Errorf("growth %.3f µs per 1,000 open, want %.3f ± %.3f", got, want, tolerance)
			}
		})
	}
	t.Run("a burst of slow opens at the end", func(t *testing.T) {
		opens := syntheticOpens(rand.New(rand.NewPCG(9, 30)), 1000, 0.03, 0)
		for i := 970; i < 1000; i++ {
			opens[i] += 0.3 // ten times the open: a garbage collection, another process
		}
		if got := openGrowth(heldWith(opens)); math.Abs(got) > 1.5 {
			t.Errorf("growth %.3f µs per 1,000 open, want about 0: the last 3 %% of opens tilt the fit", got)
		}
	})
	if got := openGrowth(heldWith([]float64{0.03})); !math.IsNaN(got) {
		t.Errorf("growth of one open = %v, want NaN", got)
	}
}

// TestHeldOpenEdges: the first and last figures are the medians of the
// first and last 10 % of the opens, in µs, at least one open each.
func TestHeldOpenEdges(t *testing.T) {
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(i + 1) // ms
	}
	for _, tt := range []struct {
		opens       []float64
		first, last float64
	}{
		{hundred, 5500, 95500},
		{[]float64{4, 5, 6}, 4000, 6000},
	} {
		r := heldWith(tt.opens)
		if first, last := heldOpenEdge(false)(r), heldOpenEdge(true)(r); first != tt.first || last != tt.last {
			t.Errorf("%d opens: first %v, last %v µs; want %v, %v", len(tt.opens), first, last, tt.first, tt.last)
		}
	}
}

// TestHeldOpenRows: the tables show the n-th open's rows below the memory
// rows when a column's hold timed its opens, "–" in a column whose hold
// did not (a record made before), and no such rows when none did.
func TestHeldOpenRows(t *testing.T) {
	opens := make([]float64, 1000)
	for i := range opens {
		opens[i] = 0.03 + 0.00005*float64(i) // 30 µs + 50 µs per 1,000 open
	}
	recs := func(opens []float64) []results.Record {
		var out []results.Record
		for _, v := range []string{"sqlite", "fake"} {
			r := results.Record{Schema: results.Schema, Study: "s", Variant: v, Setting: "default", Status: results.StatusOK,
				Phase: job.PhaseHold, Hold: &results.Hold{Held: 1000, RssKB: 400, AnonKB: 300}}
			if v == "sqlite" {
				r.Hold.OpenMs = opens
			}
			out = append(out, r)
		}
		return out
	}
	var b bytes.Buffer
	if err := Tables(&b, recs(opens)); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	want := []string{
		"| Memory per open store (1,000 open), resident | 400 KB | 400 KB |",
		"| Open with stores already open: first 10 % of 1,000 (median) | 32.5 µs | – |",
		"| same, last 10 % (median) | 77.5 µs | – |",
		"| same, growth per 1,000 open (slope) | 50 µs | – |",
		"| Load at start of the warm open runs (max) |",
	}
	at := -1
	for _, w := range want {
		i := strings.Index(got, w)
		if i < 0 {
			t.Fatalf("the tables lack %q:\n%s", w, got)
		}
		if i < at {
			t.Errorf("%q is not below the rows before it:\n%s", w, got)
		}
		at = i
	}
	b.Reset()
	if err := Tables(&b, recs(nil)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Open with stores already open") {
		t.Errorf("rows of the n-th open without any timed open:\n%s", b.String())
	}
}

// TestOpenGrowthChartManyVariants: the report of 16 variants under 4
// settings draws, in each setting's section, the n-th open as one panel
// per variant, each named once.
func TestOpenGrowthChartManyVariants(t *testing.T) {
	if testing.Short() {
		t.Skip("draws 64 panels and every other chart of 64 variants and settings")
	}
	variants := engine.AllVariants()
	doc := manyVariantsPage(t, variants)
	groups := 0
	for fig := range doc.Descendants() {
		if fig.Type != html.ElementNode || fig.Data != "figure" || fig.LastChild == nil ||
			!strings.HasPrefix(text(fig.LastChild), "Open against the stores already open") {
			continue
		}
		groups++
		var captions []string
		for panel := range fig.Descendants() {
			if panel.Type == html.ElementNode && panel.Data == "figure" {
				captions = append(captions, text(panel.LastChild))
			}
		}
		if len(captions) != len(variants) {
			t.Errorf("%d panels, want one per variant (%d)", len(captions), len(variants))
		}
		for _, v := range variants {
			n := len(slices.DeleteFunc(slices.Clone(captions), func(c string) bool { return !strings.HasPrefix(c, v+": ") }))
			if n != 1 {
				t.Errorf("variant %s has %d panels, want 1", v, n)
			}
		}
		for _, c := range captions {
			if !strings.Contains(c, " per 1,000 open") || strings.Contains(c, "–") {
				t.Errorf("panel caption %q lacks its figures", c)
			}
		}
	}
	if groups != 4 {
		t.Errorf("%d charts of the n-th open, want one per setting (4)", groups)
	}
}

// TestRetriesRow: a column whose records count retried requests shows
// them by phase, a column without "0", and tables of records without any
// have no such row.
func TestRetriesRow(t *testing.T) {
	recs := func(retries ...int) []results.Record {
		var out []results.Record
		for i, p := range []job.Phase{job.PhaseCreate, job.PhaseHold} {
			for _, v := range []string{"sqld", "sqlite"} {
				r := results.Record{Schema: results.Schema, Study: "s", Variant: v, Setting: "default", Status: results.StatusOK,
					Phase: p, Hold: &results.Hold{Held: 10, RssKB: 400, AnonKB: 300}}
				if v == "sqld" {
					r.Retries = retries[i]
				}
				out = append(out, r)
			}
		}
		return out
	}
	const row = "| Requests the server refused unrun, sent again (by phase) |"
	var b bytes.Buffer
	if err := Tables(&b, recs(17, 2)); err != nil {
		t.Fatal(err)
	}
	if want := row + " create 17, hold 2 | 0 |"; !strings.Contains(b.String(), want) {
		t.Errorf("the tables lack %q:\n%s", want, b.String())
	}
	b.Reset()
	if err := Tables(&b, recs(0, 0)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), row) {
		t.Errorf("records without retries have the row:\n%s", b.String())
	}
}

// TestServeRetriesRow: a serve step whose client sent requests again
// shows them in its block, a column without "0"; serve records without
// any have no such row.
func TestServeRetriesRow(t *testing.T) {
	const row = "| Requests the server refused unrun, sent again |"
	for _, retries := range []int{0, 7} {
		recs, err := results.ReadFile("testdata/serve.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		for i := range recs {
			if r := &recs[i]; r.Phase == job.PhaseServe && r.Variant == "sqlite" && r.Serve.Pool == 10 {
				r.Retries = retries
			}
		}
		var b bytes.Buffer
		if err := Tables(&b, recs); err != nil {
			t.Fatal(err)
		}
		switch got := b.String(); {
		case retries == 0 && strings.Contains(got, row):
			t.Errorf("serve records without retries have the row:\n%s", got)
		case retries > 0 && !strings.Contains(got, row+" 7 | 0 |"):
			t.Errorf("the serve tables lack %q:\n%s", row+" 7 | 0 |", got)
		}
	}
}
