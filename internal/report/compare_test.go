package report

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
)

// synthStudy returns the records of a study of one variant with the given
// runs of 50 stores each; open times are drawn around 0.1 ms × scale.
func synthStudy(study string, runs int, scale float64, seed uint64) []results.Record {
	rng := rand.New(rand.NewPCG(seed, 1))
	draw := func(center float64) []float64 {
		xs := make([]float64, 50)
		for i := range xs {
			xs[i] = center * (0.8 + 0.4*rng.Float64())
		}
		return xs
	}
	base := results.Record{Schema: results.Schema, Study: study, Variant: "sqlite", Setting: "default", Status: results.StatusOK}
	create := base
	create.Phase, create.CreateMs, create.WallS = job.PhaseCreate, draw(2), 0.2
	recs := []results.Record{create}
	for run := 1; run <= runs; run++ {
		r := base
		r.Phase, r.Run = job.PhaseOpen, run
		r.OpenMs, r.QueryMs, r.CloseMs = draw(0.1*scale), draw(0.05), draw(0.02)
		r.TotalMs = make([]float64, 50)
		for i := range r.TotalMs {
			r.TotalMs[i] = r.OpenMs[i] + r.QueryMs[i] + r.CloseMs[i]
		}
		recs = append(recs, r)
	}
	hold := base
	hold.Phase, hold.Hold = job.PhaseHold, &results.Hold{Held: 10, RssKB: 100 * scale, AnonKB: 50}
	return append(recs, hold)
}

// TestCompareGolden compares synthetic studies: one with a 30 % slower
// open, one with nothing changed but the random draws.
func TestCompareGolden(t *testing.T) {
	old := Side{Name: "old.jsonl", Records: synthStudy("a", 5, 1, 1)}
	tests := []struct {
		golden string
		new    Side
		want   []string // lines of the output that must hold these words
	}{
		{"testdata/compare-change.golden", Side{Name: "new.jsonl", Records: synthStudy("b", 5, 1.3, 2)}, []string{"open (ms)", "+", "p=0.008 n=5"}},
		{"testdata/compare-none.golden", Side{Name: "new.jsonl", Records: synthStudy("b", 5, 1, 2)}, []string{"open (ms)", "~"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var got bytes.Buffer
			if err := Compare(&got, old, tt.new); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.golden, got.Bytes())
			for _, line := range strings.Split(got.String(), "\n") {
				if strings.Contains(line, "open (ms)") {
					for _, w := range tt.want {
						if !strings.Contains(line, w) {
							t.Errorf("open line %q lacks %q", line, w)
						}
					}
				}
			}
		})
	}
}

func TestCompareSelectors(t *testing.T) {
	recs := studyWithSettings()
	var got bytes.Buffer
	err := Compare(&got, Side{Name: "r:sqlite@default", Records: recs, Variant: "sqlite", Setting: "default"},
		Side{Name: "r:sqlite@mmap-threshold", Records: recs, Variant: "sqlite", Setting: "mmap-threshold"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.String(), "sqlite@default vs sqlite@mmap-threshold") {
		t.Errorf("no comparison of the two settings:\n%s", got.String())
	}
	if err := Compare(&got, Side{Name: "a", Records: recs, Variant: "none"}, Side{Name: "b", Records: recs}); err == nil {
		t.Error("no error for sides without a common variant")
	}
}

// TestCompareLayouts: a side takes one layout of a variant ("sqlite
// shared"), so one file's two layouts compare with each other, and a side
// naming a variant, or a variant's layout, the records lack is refused
// with what they have.
func TestCompareLayouts(t *testing.T) {
	perAgent := synthStudy("a", 5, 1, 1)
	shared := synthStudy("a", 5, 1.3, 2)
	for i := range shared {
		shared[i].Layout = job.LayoutShared
	}
	recs := append(perAgent, shared...)
	one := func(l job.Layout) []job.Layout { return []job.Layout{l} }
	var got bytes.Buffer
	err := Compare(&got, Side{Name: "r:sqlite", Records: recs, Variant: "sqlite", Layouts: one(job.LayoutPerAgent)},
		Side{Name: "r:sqlite shared", Records: recs, Variant: "sqlite", Layouts: one(job.LayoutShared)})
	if err != nil {
		t.Fatal(err)
	}
	// The shared side's memory is 1.3 times the per-agent side's.
	if !strings.Contains(got.String(), "new: r:sqlite shared\n") || !regexp.MustCompile(`rss-per-open-store, 10 held \(KB\) +100 +∞ +130 `).MatchString(got.String()) {
		t.Errorf("no comparison of the two layouts:\n%s", got.String())
	}
	for _, tt := range []struct {
		side Side
		want string
	}{
		{Side{Name: "a", Records: recs, Variant: "nosuch"}, "a: no variant nosuch in the records (they have sqlite)"},
		{Side{Name: "a", Records: perAgent, Variant: "sqlite", Layouts: one(job.LayoutShared)}, "a: no records of sqlite in the shared layout (they have sqlite)"},
		{Side{Name: "a", Records: recs, Setting: "nosuch"}, "a: no setting nosuch in the records (they have default)"},
	} {
		if err := Compare(io.Discard, tt.side, Side{Name: "b", Records: recs}); err == nil || err.Error() != tt.want {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
	}
}

// studyWithSettings is testdata/study.jsonl, which has two settings.
func studyWithSettings() []results.Record {
	recs, err := results.ReadFile("testdata/study.jsonl")
	if err != nil {
		panic(err)
	}
	return recs
}

// checkGolden compares got with the golden file (rewritten under -update)
// and shows the lines that differ.
func checkGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got, want) {
		return
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	var diff strings.Builder
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			diff.WriteString(fmt.Sprintf("line %d:\n", i+1) + "  got:  " + gl + "\n  want: " + wl + "\n")
		}
	}
	t.Errorf("output differs from %s (go test ./internal/report -update rewrites it):\n%s", golden, diff.String())
}

// TestGobench checks that every run gives a benchmark line with its units.
func TestGobench(t *testing.T) {
	var got bytes.Buffer
	if err := WriteGobench(&got, synthStudy("a", 3, 1, 1)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(got.String()), "\n")
	if len(lines) != 1+3+1 {
		t.Fatalf("want a pkg line, 3 run lines and a study line, got\n%s", got.String())
	}
	for _, l := range lines[1:4] {
		if !strings.HasPrefix(l, "BenchmarkManydb/variant=sqlite/setting=default 1 ") || !strings.Contains(l, " open-ms ") {
			t.Errorf("bad run line %q", l)
		}
	}
	if !strings.Contains(lines[4], " create-ms ") || !strings.Contains(lines[4], " rss-per-open-store-KB") {
		t.Errorf("bad study line %q", lines[4])
	}
	if err := WriteGobench(&got, nil); err == nil {
		t.Error("no error for no records")
	}
}

// TestGobenchGolden writes the gobench lines of testdata/study.jsonl, which
// holds a failed run, a failed hold and a setting not applicable.
func TestGobenchGolden(t *testing.T) {
	var got bytes.Buffer
	if err := WriteGobench(&got, studyWithSettings()); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/study.gobench.golden", got.Bytes())
}

func TestCSV(t *testing.T) {
	var got bytes.Buffer
	if err := WriteCSV(&got, synthStudy("a", 3, 1, 1)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(got.String()), "\n")
	// header, 7 repeated figures × 3 runs (open, query, count, the total,
	// its p99 and p90, close), 4 single-valued figures
	if len(lines) != 1+7*3+4 || lines[0] != "variant,setting,figure,unit,n,value" || !strings.Contains(got.String(), "\nsqlite,default,open,ms,1,") {
		t.Errorf("csv:\n%s", got.String())
	}
}

// TestCompareLikeWithLike: compare matches the studies of a sweep by store
// count and memory by the number of stores held, instead of pooling
// studies of 50 and 100 stores, or hold counts, as samples of one figure;
// sides without a store count in common are refused.
func TestCompareLikeWithLike(t *testing.T) {
	withStores := func(recs []results.Record, stores int) []results.Record {
		for i := range recs {
			recs[i].Stores = stores
		}
		return recs
	}
	// a second hold count: stores held 20, and a figure per store unlike
	// that of 10 held
	withHold20 := func(recs []results.Record) []results.Record {
		h := recs[len(recs)-1]
		h.HoldStep, h.Hold = 2, &results.Hold{Held: 20, RssKB: 7, AnonKB: 3}
		recs[len(recs)-1].HoldStep = 1
		return append(recs, h)
	}
	sweep := func(seed uint64) []results.Record {
		return append(withStores(withHold20(synthStudy("s50", 5, 1, seed)), 50), withStores(synthStudy("s100", 5, 3, seed+1), 100)...)
	}
	var got bytes.Buffer
	if err := Compare(&got, Side{Name: "old", Records: sweep(1)}, Side{Name: "new", Records: sweep(3)}); err != nil {
		t.Fatal(err)
	}
	out := got.String()
	for _, want := range []string{"\nsqlite@default, 50 stores\n", "\nsqlite@default, 100 stores\n",
		"rss-per-open-store, 10 held (KB)", "rss-per-open-store, 20 held (KB)"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "n=10") || (strings.Contains(line, "rss-per-open-store") && strings.Contains(line, "n=")) {
			t.Errorf("a line pools samples of different store or hold counts: %q", line)
		}
	}
	err := Compare(&got, Side{Name: "a", Records: withStores(synthStudy("a", 5, 1, 1), 50)}, Side{Name: "b", Records: withStores(synthStudy("b", 5, 1, 2), 100)})
	if err == nil || !strings.Contains(err.Error(), "a has studies of 50 stores, b of 100") {
		t.Errorf("sides of 50 and of 100 stores: error %v", err)
	}
}

// synthServe is a serve study: a create and a serve step per pool size,
// its p99 latency p99 × the pool's index + 1.
func synthServe(study string, p99 float64, pools ...int) []results.Record {
	base := results.Record{Schema: results.Schema, Study: study, Variant: "sqlite", Setting: "default", Status: results.StatusOK}
	create := base
	create.Phase, create.CreateMs, create.WallS = job.PhaseCreate, []float64{2, 2}, 0.2
	recs := []results.Record{create}
	for i, pool := range pools {
		r := base
		r.Phase, r.PoolStep = job.PhaseServe, i+1
		r.Serve = &results.Serve{Pool: pool, Requests: 100, Hits: 50, WallS: 2, P50Ms: 1, P99Ms: p99 * float64(i+1), RssKB: []int64{1000, 3000, 2000}}
		recs = append(recs, r)
	}
	return recs
}

// TestServeFigures: serve's figures reach the exports and compare, each
// value with its pool size: compare tests the values of one pool, gobench
// writes a benchmark per pool.
func TestServeFigures(t *testing.T) {
	old := slices.Concat(synthServe("a", 10, 10, 100), synthServe("b", 11, 10, 100), synthServe("c", 9, 10, 100))
	new := slices.Concat(synthServe("d", 20, 10, 100), synthServe("e", 21, 10, 100), synthServe("f", 19, 10, 100))
	figs := CollectFigures(old)
	if len(figs) != 1 || !slices.Equal(figs[0].Values["serve-p99"], []float64{10, 20, 11, 22, 9, 18}) ||
		!slices.Equal(figs[0].levelOf["serve-p99"], []int{10, 100, 10, 100, 10, 100}) {
		t.Fatalf("serve-p99 values %v, levels %v", figs[0].Values["serve-p99"], figs[0].levelOf["serve-p99"])
	}
	if got := figs[0].Values["serve-peak-rss"]; !slices.Equal(got[:2], []float64{3000, 3000}) {
		t.Errorf("serve-peak-rss %v, want 3000 each", got)
	}
	var cmp bytes.Buffer
	if err := Compare(&cmp, Side{Name: "old", Records: old}, Side{Name: "new", Records: new}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"serve-p99, pool of 10 (ms)", "serve-p99, pool of 100 (ms)", "serve-requests-per-second, pool of 10 (requests/s)"} {
		if !strings.Contains(cmp.String(), w) {
			t.Errorf("compare lacks %q:\n%s", w, cmp.String())
		}
	}
	var gb bytes.Buffer
	if err := WriteGobench(&gb, old); err != nil {
		t.Fatal(err)
	}
	pool100 := strings.Count(gb.String(), "BenchmarkManydb/variant=sqlite/setting=default/pool=100 1 1 serve-p50-ms")
	if pool100 != 3 || !strings.Contains(gb.String(), "/pool=100 1 1 serve-p50-ms 22 serve-p99-ms 50 requests/s 50 serve-hit-rate-% 3000 serve-peak-rss-KB") {
		t.Errorf("gobench: %d lines of pool 100, want 3 with their own values:\n%s", pool100, gb.String())
	}
}

// TestComparePerStudy: four studies of three runs a side, the new ones
// 30 % slower to open. Per run the test pools 12 runs a side; per study
// it takes each study's median, 4 a side.
func TestComparePerStudy(t *testing.T) {
	side := func(name string, scale float64, seed uint64) Side {
		var recs []results.Record
		for k := range 4 {
			recs = append(recs, synthStudy(fmt.Sprintf("%s%d", name, k), 3, scale, seed+uint64(k))...)
		}
		return Side{Name: name, Records: recs}
	}
	old, new := side("old", 1, 10), side("new", 1.3, 20)
	for _, c := range []struct {
		compare func(io.Writer, Side, Side) error
		unit, n string
	}{{Compare, "unit of the test: a warm open run", "n=12"}, {ComparePerStudy, "unit of the test: a study", "n=4"}} {
		var got bytes.Buffer
		if err := c.compare(&got, old, new); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got.String(), c.unit) {
			t.Errorf("no %q in\n%s", c.unit, got.String())
		}
		for _, line := range strings.Split(got.String(), "\n") {
			if strings.Contains(line, "open (ms)") && !strings.Contains(line, "cold") && !(strings.Contains(line, "+") && strings.Contains(line, c.n)) {
				t.Errorf("%s: the open line %q: want a significant rise over %s", c.unit, line, c.n)
			}
		}
	}
}

// TestStudyValues: one value per study, each its values' median, in the
// order the studies first appear.
func TestStudyValues(t *testing.T) {
	f := &Figures{Values: map[string][]float64{"open": {1, 3, 10, 2, 20}},
		studyOf: map[string][]string{"open": {"a", "a", "b", "a", "b"}}}
	if got, want := studyValues(f, "open"), []float64{2, 15}; !slices.Equal(got, want) {
		t.Errorf("studyValues = %v, want %v", got, want)
	}
}
