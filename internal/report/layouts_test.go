package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// withShared returns fake's records of testdata/queries.jsonl and the
// same records again in the shared layout (the space record with the
// shared store's size instead of one per store), each layout with a
// delete record of its own.
func withShared(t *testing.T) []results.Record {
	t.Helper()
	recs, err := results.ReadFile("testdata/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out, shared []results.Record
	for _, r := range recs {
		if r.Variant != "fake" && r.Phase != job.PhaseEnv {
			continue
		}
		out = append(out, r)
		if r.Phase == job.PhaseEnv {
			continue
		}
		s := r
		s.Layout = job.LayoutShared
		if s.Phase == job.PhaseSpace {
			total := int64(4 * 100 * 1024) // 100 KB per agent
			s.SharedBytes, s.Bytes, s.ApparentBytes = &total, nil, nil
		}
		shared = append(shared, s)
	}
	del := results.Record{Study: recs[0].Study, Variant: "fake", Setting: "default", Phase: job.PhaseDelete, Status: results.StatusOK,
		Workload: recs[1].Workload, Stores: 4, ExportMs: []float64{2}, ExportBytes: []int64{4000}, DeleteMs: []float64{0.5}, FreedBytes: []int64{80 * 1024}}
	sharedDel := del
	sharedDel.Layout, sharedDel.DeleteMs, sharedDel.FreedBytes = job.LayoutShared, []float64{7}, []int64{0}
	return slices.Concat(out, []results.Record{del}, shared, []results.Record{sharedDel})
}

// TestLayoutsApart: the shared layout's records are a column of their
// own ("fake shared") beside the per-agent one, with its space per agent
// and the delete figures of each; the exports and compare keep the
// layouts apart, and no shared record replaces a per-agent one.
func TestLayoutsApart(t *testing.T) {
	recs := withShared(t)
	var tables bytes.Buffer
	if err := Tables(&tables, recs); err != nil {
		t.Fatal(err)
	}
	text := tables.String()
	for _, want := range []string{"| | fake | fake shared |", "| Space per store, files | ", " | 100 KB |",
		"| Delete an agent, space given back as the engine can (median) | 0.50 ms | 7.00 ms |", "| same, space given back on disk (median) | 80 KB | 0 KB |"} {
		if !strings.Contains(text, want) {
			t.Errorf("the tables lack %q:\n%s", want, text)
		}
	}
	figs := CollectFigures(recs)
	if len(figs) != 2 || figs[0].Key() != "fake@default" || figs[1].Key() != "fake shared@default" {
		t.Fatalf("figures %v, want fake@default and fake shared@default", keys(figs))
	}
	alone := CollectFigures(recs[:slices.IndexFunc(recs, func(r results.Record) bool { return r.Phase == job.PhaseDelete })])
	if got, want := figs[0].Values["open-query-close"], alone[0].Values["open-query-close"]; !slices.Equal(got, want) || len(got) == 0 {
		t.Errorf("per-agent open-query-close %v with the shared records, %v without", got, want)
	}
	if got := stats.Median(figs[1].Values["delete-agent"]); got != 7 {
		t.Errorf("shared delete-agent = %v, want 7", got)
	}
	var csv, bench bytes.Buffer
	if err := WriteCSV(&csv, recs); err != nil {
		t.Fatal(err)
	}
	if err := WriteGobench(&bench, recs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv.String(), "fake shared,default,delete-agent,ms,1,7") {
		t.Errorf("csv lacks the shared delete figure:\n%s", csv.String())
	}
	if !strings.Contains(bench.String(), "BenchmarkManydb/variant=fake/layout=shared/setting=default") {
		t.Errorf("gobench lacks the shared layout's benchmarks:\n%s", bench.String())
	}
}

func keys(figs []*Figures) []string {
	var out []string
	for _, f := range figs {
		out = append(out, f.Key())
	}
	return out
}
