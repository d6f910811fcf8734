package report

import (
	"bytes"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/workload"
)

// vectorRecords is a study with embeddings: sqlite exact, obx_cached an
// index with recall below 1, obx n/a (no vector API), each with warm and
// cold open runs of count, knn and recent, one turn and a hold.
func vectorRecords() []results.Record {
	wl := workload.Spec{Name: "large", Objects: 1000, TextLen: 300, Dims: 384}
	base := func(v string, p job.Phase) results.Record {
		return results.Record{Schema: results.Schema, Study: "s", Variant: v, Setting: "default", Status: results.StatusOK,
			Phase: p, Workload: wl, Stores: 4, VectorSearch: v + "'s <search>", VectorExact: v == "sqlite"}
	}
	queries := []job.Query{job.QueryCount, job.QueryKNN, job.QueryRecent}
	var recs []results.Record
	for _, v := range []string{"sqlite", "obx_cached"} {
		knn, recall, returned := []float64{1, 2, 3, 4}, []float64{1, 1, 1, 1}, []int{10, 10, 10, 10}
		if v == "obx_cached" {
			knn, recall, returned = []float64{0.5, 0.5, 0.5, 0.5}, []float64{1, 0.8, 0.6, 0}, []int{10, 10, 10, 4}
		}
		c := base(v, job.PhaseCreate)
		c.CreateMs, c.WallS = []float64{10, 10, 10, 10}, 1
		open := func(cache job.CacheMode) results.Record {
			r := base(v, job.PhaseOpen)
			r.Run, r.Seed, r.Cache, r.Queries = 1, 1, cache, queries
			r.OpenMs, r.QueryMs, r.CloseMs, r.TotalMs = knn, knn, knn, knn
			r.QueriesMs = map[job.Query][]float64{job.QueryCount: knn, job.QueryKNN: knn, job.QueryRecent: knn}
			r.Recall, r.KNNReturned = recall, returned
			if cache == job.CacheCold {
				r.Resident = []float64{0, 0, 0, 0}
			}
			return r
		}
		tr := base(v, job.PhaseTurn)
		tr.Turn, tr.Seed = 1, 1
		tr.Queries = []job.Query{job.QueryKNN, job.QueryRecent, job.QueryAppend}
		tr.OpenMs, tr.CloseMs, tr.TotalMs = knn, knn, knn
		tr.QueriesMs = map[job.Query][]float64{job.QueryKNN: knn, job.QueryRecent: knn, job.QueryAppend: knn}
		tr.Recall = recall
		h := base(v, job.PhaseHold)
		h.Hold = &results.Hold{Held: 4, RssKB: 100, AnonKB: 90}
		recs = append(recs, c, open(""), open(job.CacheCold), tr, h)
	}
	na := base("obx", job.PhaseCreate)
	na.Status, na.Error, na.VectorSearch = results.StatusNotApplicable, "objectbox-go v1.9.0 has no vector API", ""
	return append(recs, na)
}

// TestVectorTables: the knn rows, recall as mean and 5th percentile, the
// turn's knn, each column's search named, and obx n/a with its reason.
func TestVectorTables(t *testing.T) {
	recs := vectorRecords()
	var b bytes.Buffer
	if err := Tables(&b, recs); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"each with an embedding of 384 values",
		"| knn: 10 nearest by embedding (median) | 2.500 ms | 0.500 ms | n/a |",
		"| knn recall@10 (mean) | 100 % | 60 % | n/a |",
		"| same, 5th percentile | 100 % | 9 % | n/a |",
		"| same, share of answers below 50 % | 0 % | 25 % | n/a |",
		"| same, share of answers that found none of the 10 | 0 % | 25 % | n/a |",
		"| knn answers with fewer than 10 ids | 0 % | 25 % | n/a |",
		"| knn, cold cache (median) | 2.500 ms | 0.500 ms | n/a |",
		"| Turn: knn for the new note (median) |",
		"| Turn: knn recall@10 (mean) | 100 % | 60 % | n/a |",
		"knn search (docs/engines.md): sqlite: sqlite's <search>; obx_cached: obx_cached's <search>.",
		"n/a: no knn search for obx: objectbox-go v1.9.0 has no vector API",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the tables lack %q:\n%s", want, got)
		}
	}
	// Without knn the rows are left out, in the overview too.
	var plain []results.Record
	for _, r := range recs {
		r.Queries, r.QueriesMs, r.Recall, r.KNNReturned, r.Workload.Dims, r.VectorSearch = nil, nil, nil, nil, 0, ""
		if r.Phase != job.PhaseTurn {
			plain = append(plain, r)
		}
	}
	b.Reset()
	if err := Tables(&b, plain); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Contains(s, "knn") || strings.Contains(s, "recall") {
		t.Errorf("tables without knn show its rows:\n%s", s)
	}
	b.Reset()
	if err := WriteOverview(&b, plain); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Contains(s, "knn") || strings.Contains(s, "recall") {
		t.Errorf("an overview without knn shows its columns:\n%s", s)
	}
	b.Reset()
	if err := WriteOverview(&b, recs); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "knn recall@10") || strings.Contains(s, "C allocator") {
		t.Errorf("the overview of a knn study lacks recall:\n%s", s)
	}
}

// TestNotWarmFlagged: a warm run with less than 99 % of its sampled
// store pages in the page cache before or after it is named in the
// tables, the overview, the report and compare.
func TestNotWarmFlagged(t *testing.T) {
	recs := vectorRecords()
	half, full := 0.5, 1.0
	for i := range recs {
		if recs[i].Phase == job.PhaseOpen && recs[i].Cache == "" {
			recs[i].ResidentBefore, recs[i].ResidentAfter = &full, &full
			if recs[i].Variant == "sqlite" {
				recs[i].ResidentBefore = &half
			}
		}
	}
	want := "sqlite: run 1 (before 50.0 %, after 100.0 %)"
	var tables, overview, page, cmp bytes.Buffer
	for _, w := range []struct {
		out    *bytes.Buffer
		render func() error
	}{
		{&tables, func() error { return Tables(&tables, recs) }},
		{&overview, func() error { return WriteOverview(&overview, recs) }},
		{&page, func() error { return HTML(&page, recs) }},
		{&cmp, func() error { return Compare(&cmp, Side{Name: "a", Records: recs}, Side{Name: "b", Records: recs}) }},
	} {
		if err := w.render(); err != nil {
			t.Fatal(err)
		}
	}
	for name, out := range map[string]string{"tables": tables.String(), "overview": overview.String(), "report": page.String()} {
		if !strings.Contains(out, "Not warm") || !strings.Contains(out, want) {
			t.Errorf("%s does not flag %q", name, want)
		}
		if strings.Contains(out, "obx_cached: run 1 (before") {
			t.Errorf("%s flags obx_cached, whose run was warm", name)
		}
	}
	if !strings.Contains(cmp.String(), "old: warm runs that were not warm (the cache differed, not only the engine): s run 1 (before 50.0 %, after 100.0 %)") {
		t.Errorf("compare does not say the cache differed:\n%s", cmp.String())
	}
}

// TestSweepFlagsNotWarm: the sweep's residency row marks a count whose
// lowest warm-run residency, before or after, is below WarmResident.
func TestSweepFlagsNotWarm(t *testing.T) {
	before, after := 1.0, 0.986
	r := &results.Record{Phase: job.PhaseOpen, ResidentBefore: &before, ResidentAfter: &after}
	row := sweepRow{unit: "%"}
	if got := row.text(100 * lowestResidency(r)); got != "98.6 % (not warm)" {
		t.Errorf("after 98.6 %%: %q, want it marked not warm", got)
	}
	after = 0.995
	if got := row.text(100 * lowestResidency(r)); got != "100 %" && got != "99 %" {
		t.Errorf("after 99.5 %%: %q, want it unmarked", got)
	}
}

// TestTopicsText: a table's workload line names a topic pool and a spread
// that are not the default, and nothing for the default.
func TestTopicsText(t *testing.T) {
	if got := topicsText(workload.Spec{Dims: 8}); got != "" {
		t.Errorf("default embeddings: %q, want nothing", got)
	}
	want := " (topics drawn from a pool of 1,000 shared by all agents; σ 0.5 around a topic)"
	if got := topicsText(workload.Spec{Dims: 8, TopicPool: 1000, Spread: 0.5}); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestAskedText: the search note says when a knn asked for more notes
// than it kept.
func TestAskedText(t *testing.T) {
	if got := askedText(0); got != "" {
		t.Errorf("no oversampling: %q", got)
	}
	if got := askedText(40); got != " (each knn asked for 40 notes and kept the first 10)" {
		t.Errorf("asked 40: %q", got)
	}
}

// TestPerAgentNotApplicable: a variant without the layout per agent
// (engine.Family.NoPerAgent) is n/a there with the catalog's reason, not
// with the malloc setting's.
func TestPerAgentNotApplicable(t *testing.T) {
	wl := workload.Spec{Name: "large", Objects: 1000, TextLen: 300}
	rec := func(layout job.Layout, status string) results.Record {
		r := results.Record{Schema: results.Schema, Study: "s", Variant: "postgres_part", Setting: "default", Status: status,
			Phase: job.PhaseCreate, Workload: wl, Stores: 4, Layout: layout, CreateMs: []float64{1, 1, 1, 1}, WallS: 1}
		if status == results.StatusNotApplicable {
			r.CreateMs, r.Error = nil, "some reason"
		}
		return r
	}
	var b bytes.Buffer
	if err := Tables(&b, []results.Record{rec(job.LayoutPerAgent, results.StatusNotApplicable), rec(job.LayoutShared, results.StatusOK)}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if !strings.Contains(got, "n/a: not in the layout per agent for postgres_part: a partition per agent") || strings.Contains(got, "malloc") {
		t.Errorf("the tables do not give the catalog's reason against the layout per agent:\n%s", got)
	}
	// A server variant n/a under --dims (the user's server has no
	// pgvector) gives the record's reason.
	noVec := rec(job.LayoutShared, results.StatusNotApplicable)
	noVec.Workload.Dims, noVec.Error = 16, "the server at --postgres has no pgvector"
	b.Reset()
	if err := Tables(&b, []results.Record{noVec}); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.Contains(got, "n/a: no knn search for postgres_part shared: the server at --postgres has no pgvector") {
		t.Errorf("the tables do not give the record's reason against knn:\n%s", got)
	}
}

// TestLadderRows: a hold's knn ladder gives the notes an index must be
// asked for to recall 95 % (the first step whose mean reaches it, with its
// knn median) and the recall at 40, 160 and 640 notes; an exact search
// needs 10; an index that never reaches 95 % says where it stopped.
func TestLadderRows(t *testing.T) {
	step := func(asked int, recall, ms float64) results.LadderStep {
		return results.LadderStep{Asked: asked, Ms: []float64{ms, ms, ms, ms}, Recall: []float64{recall, recall, recall, recall}, Returned: []int{10, 10, 10, 10}}
	}
	for _, tt := range []struct {
		ladder []results.LadderStep
		want   []string
	}{
		{[]results.LadderStep{step(10, 0.6, 1), step(20, 0.9, 1.5), step(40, 0.96, 2), step(160, 0.99, 3), step(640, 1, 4)}, []string{
			"| knn of the held stores: notes to ask for 95 % recall@10 (knn median there) | 10 (exact search) | 40 (2 ms) | n/a |",
			"| knn recall@10 of the held stores asking 40 notes (mean) | n/a (exact search) | 96 % | n/a |",
			"| knn recall@10 of the held stores asking 640 notes (mean) | n/a (exact search) | 100 % | n/a |",
		}},
		{[]results.LadderStep{step(10, 0.1, 1), step(640, 0.62, 9)}, []string{
			"| knn of the held stores: notes to ask for 95 % recall@10 (knn median there) | 10 (exact search) | not at 640 (62 %) | n/a |",
			"| knn recall@10 of the held stores asking 160 notes (mean) | n/a (exact search) | – | n/a |",
		}},
	} {
		recs := vectorRecords()
		for i := range recs {
			if recs[i].Variant == "obx_cached" && recs[i].Phase == job.PhaseHold {
				recs[i].Hold.Ladder = tt.ladder
			}
		}
		var b bytes.Buffer
		if err := Tables(&b, recs); err != nil {
			t.Fatal(err)
		}
		for _, want := range tt.want {
			if !strings.Contains(b.String(), want) {
				t.Errorf("the tables lack %q:\n%s", want, b.String())
			}
		}
	}
	var b bytes.Buffer
	if err := Tables(&b, vectorRecords()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "notes to ask for") {
		t.Error("a study without a ladder shows its rows")
	}
}

// TestWorkloadText: a table of real data names the source, its version
// and its inputs' hash; the synthetic workload reads as before.
func TestWorkloadText(t *testing.T) {
	w := workload.Spec{Name: "large", Objects: 1000, TextLen: 300}
	if got := workloadText(w); got != "large: 1,000 notes of 300 characters per store" {
		t.Errorf("synthetic: %q", got)
	}
	w.Data = workload.Data{Name: "glove50", Version: "GloVe 6B 50d", SHA256: "b61d5fe5957b1a4cff19"}
	if got := workloadText(w); !strings.Contains(got, "at most 300 characters") || !strings.Contains(got, "--data glove50 (GloVe 6B 50d; inputs' SHA-256 b61d5fe5957b…)") {
		t.Errorf("glove50: %q", got)
	}
}
