package report

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"manydb/internal/job"
	"manydb/internal/results"
)

// TestServeStoppedEarly: a pool step that stopped early at its time limit
// is marked in its block (a "Requests served" row) and in the summary, its
// requests per second are of the requests done, and a step stopped in its
// warm-up shows no figure. Blocks where no step stopped early have no such
// row.
func TestServeStoppedEarly(t *testing.T) {
	recs, err := results.ReadFile("testdata/serve.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var early, none *results.Serve
	for i := range recs {
		r := &recs[i]
		if r.Phase != job.PhaseServe || r.Status != results.StatusOK {
			continue
		}
		r.Serve.PoolTimeS = 1200
		switch {
		case r.Variant == "sqlite" && r.Serve.Pool == 0:
			early = r.Serve
		case r.Variant == "bbolt" && r.Serve.Pool == 0:
			none = r.Serve
		}
	}
	if early == nil || none == nil {
		t.Fatal("testdata/serve.jsonl has no pool 0 of sqlite and bbolt")
	}
	early.StoppedEarly, early.Done, early.WallS = true, 1234, 2
	none.StoppedEarly, none.Done = true, 0
	var b bytes.Buffer
	if err := Tables(&b, recs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	block, rest, _ := strings.Cut(out, "### Pool of 10 open stores")
	for _, want := range []string{
		"at most 20m0s per pool size (--pool-time",
		"| Requests served | 1,234 of 3,000, stopped early at the 20m0s limit | stopped early: none of 3,000 requests served in 20m0s |",
		"| Requests per second | 617 | stopped early: none of 3,000 requests served in 20m0s |",
	} {
		if !strings.Contains(block, want) {
			t.Errorf("pool 0's block lacks %q:\n%s", want, block)
		}
	}
	if !strings.Contains(rest, "(stopped early: 1,234 of 3,000 requests)") {
		t.Errorf("the summary does not mark the step that stopped early:\n%s", rest)
	}
	if strings.Contains(rest, "Requests served") {
		t.Errorf("a block without a step that stopped early has a Requests served row:\n%s", rest)
	}
}

// Names of dots close together are placed clear of each other and of
// every dot: 16 dots in one cluster, as the serve charts' SQLite family
// and libSQL are, get 16 boxes that overlap nothing.
func TestPlaceLabelsNoOverprint(t *testing.T) {
	bounds := vg.Rectangle{Max: vg.Point{X: 400, Y: 260}}
	var dots, sizes []vg.Point
	for i := range 16 {
		dots = append(dots, vg.Point{X: 60 + vg.Length(i%4)*2, Y: 60 + vg.Length(i/4)*2})
		sizes = append(sizes, vg.Point{X: 50, Y: 8})
	}
	boxes, moved := placeLabels(dots, sizes, bounds)
	for i, a := range boxes {
		if !within(a, bounds) {
			t.Errorf("name %d at %v is outside the chart %v", i, a, bounds)
		}
		if a.Size() != sizes[i] {
			t.Errorf("name %d has size %v, want %v", i, a.Size(), sizes[i])
		}
		for j, b := range boxes[i+1:] {
			if overlaps(a, b) {
				t.Errorf("names %d and %d overprint: %v and %v", i, i+1+j, a, b)
			}
		}
		for j, d := range dots {
			if overlaps(a, vg.Rectangle{Min: d.Sub(vg.Point{X: 3, Y: 3}), Max: d.Add(vg.Point{X: 3, Y: 3})}) {
				t.Errorf("name %d covers dot %d", i, j)
			}
		}
	}
	if !slices.Contains(moved, true) {
		t.Error("no name moved away from its dot in a cluster of 16")
	}
}

// TestServeNotApplicable: a variant that does not apply to a serve study
// (here obx, which keeps no embeddings) reads n/a in serve's tables, with
// its reason below them, not a column of "–".
func TestServeNotApplicable(t *testing.T) {
	recs, err := results.ReadFile("testdata/serve.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var study, setting string
	for i := range recs {
		recs[i].Workload.Dims = 16 // a study with embeddings
		if recs[i].Phase == job.PhaseServe {
			study, setting = recs[i].Study, recs[i].Setting
		}
	}
	recs = append(recs, results.Record{Schema: results.Schema, Study: study, Variant: "obx", Setting: setting, Phase: job.PhaseCreate,
		Status: results.StatusNotApplicable, Workload: recs[0].Workload, Error: "objectbox-go v1.9.0 has no vector API"})
	var b bytes.Buffer
	if err := Tables(&b, recs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"| Latency p50 |", "n/a: no knn search for obx: "} {
		if !strings.Contains(out, want) {
			t.Errorf("serve's tables lack %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "| Latency p50 |") && !strings.HasSuffix(line, "| n/a |") {
			t.Errorf("obx's column of %q is not n/a", line)
		}
	}
}

// TestRateLadder: pool 0 of testdata/serve.jsonl served at 100 and 1,000
// requests/s besides its closed loop. The table of latency against the
// offered rate gives each rung and names the saturation point: sqlite's
// p99 at 1,000 requests/s is above its closed loop's, bbolt keeps up with
// both; each step has a block of its own. The figures keep the closed
// loop only (the heaviest load).
func TestRateLadder(t *testing.T) {
	recs, err := results.ReadFile("testdata/serve.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	closed := map[string]float64{}
	var rungs []results.Record
	for _, r := range recs {
		if r.Phase != job.PhaseServe || r.Status != results.StatusOK || r.Serve.Pool != 0 {
			continue
		}
		closed[r.Variant] = r.Serve.P99Ms
		for _, rate := range []float64{100, 1000} {
			rung, s := r, *r.Serve
			s.Rate, s.WallS, s.AchievedRate, s.Senders = rate, float64(s.Requests)/rate, rate, 8
			s.P99Ms = s.P99Ms / 2
			if rate == 1000 && r.Variant == "sqlite" {
				s.P99Ms = 2 * r.Serve.P99Ms
			}
			rung.Serve, rung.PoolStep = &s, r.PoolStep+int(rate)
			rungs = append(rungs, rung)
		}
	}
	if closed["sqlite"] == 0 || closed["bbolt"] == 0 {
		t.Fatal("testdata/serve.jsonl has no pool 0 of sqlite and bbolt")
	}
	recs = append(recs, rungs...)
	var b bytes.Buffer
	if err := Tables(&b, recs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	_, ladder, _ := strings.Cut(out, "### Latency against the offered rate")
	for _, want := range []string{"### Pool of 0 open stores at 100 requests/s", "### Pool of 0 open stores, closed loop", "| Requests per second offered (open loop) | 1,000 |",
		"| 100 requests/s | ", "| closed loop | "} {
		if !strings.Contains(out, want) {
			t.Errorf("the tables lack %q:\n%s", want, out)
		}
	}
	row := regexp.MustCompile(`\| Saturates at \|.*\|`).FindString(ladder)
	cols := strings.Split(strings.TrimPrefix(out[strings.Index(out, "| pool of 0 |"):], "| pool of 0 |"), "\n")[0]
	for i, v := range strings.Split(cols, "|") {
		want := map[string]string{"sqlite": "1,000 requests/s", "bbolt": "not within the ladder"}[strings.TrimSpace(v)]
		if got := strings.Split(row, "|"); want != "" && (i+2 >= len(got) || strings.TrimSpace(got[i+2]) != want) {
			t.Errorf("%s saturates at %q in %q, want %q", strings.TrimSpace(v), got, row, want)
		}
	}
	b.Reset()
	if err := HTML(&b, recs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pool 0, latency against the offered rate: 100 requests/s", "pool 0, latency against the offered rate: Saturates at", "pool 0 at 1,000 requests/s: "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, f := range CollectFigures(recs) {
		if want := closed[f.Variant]; want > 0 {
			if got := f.ValuesAt(string(FigureServeP99), 0); !slices.Equal(got, []float64{want}) {
				t.Errorf("%s: p99 figures at pool 0 %v, want the closed loop's %v alone", f.Variant, got, want)
			}
		}
	}
}
