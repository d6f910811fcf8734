package worker

import (
	"io"
	"slices"
	"strings"
	"testing"

	"manydb/internal/job"
)

func TestQueriesAreTimedAndChecked(t *testing.T) {
	j := created(t)
	j.Phase, j.Run, j.Seed = job.PhaseOpen, 1, 1
	j.Queries = []job.Query{job.QueryScan, job.QueryCount, job.QueryGet, job.QueryRecent}
	rec, err := RunJob(j, newFake(t, "fake"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.Queries, j.Queries) || len(rec.QueriesMs) != 4 {
		t.Fatalf("queries %v with samples for %d; want %v", rec.Queries, len(rec.QueriesMs), j.Queries)
	}
	for k := range rec.TotalMs {
		sum := 0.0
		for _, q := range j.Queries {
			sum += rec.QueriesMs[q][k]
		}
		if d := sum - rec.QueryMs[k]; d > 1e-9 || d < -1e-9 {
			t.Errorf("store %d: queries add up to %v, the query span is %v", k, sum, rec.QueryMs[k])
		}
	}

	// The default is count alone, recorded as the reference's query span.
	j.Queries = nil
	rec, err = RunJob(j, newFake(t, "fake"), io.Discard)
	if err != nil || rec.Queries != nil || rec.QueriesMs != nil || len(rec.QueryMs) != j.Stores {
		t.Fatalf("default queries: %v, %v, %d samples; want count alone in query_ms", err, rec.Queries, len(rec.QueryMs))
	}
}

func TestWrongAnswerFailsThePhase(t *testing.T) {
	j := created(t)
	j.Phase, j.Run, j.Seed = job.PhaseOpen, 1, 1
	j.Queries = []job.Query{job.QueryCount, job.QueryRecent, job.QueryGet, job.QueryScan}
	for fake, query := range map[string]job.Query{"fake_wrongrecent": job.QueryRecent, "fake_wrongget": job.QueryGet, "fake_wrongscan": job.QueryScan} {
		_, err := RunJob(j, newFake(t, fake), io.Discard)
		if err == nil || !strings.Contains(err.Error(), ": "+string(query)+": ") {
			t.Errorf("%s: err = %v, want the %s query to fail the phase", fake, err, query)
		}
	}
}

func TestColdRunRecordsResidency(t *testing.T) {
	j := created(t)
	j.Phase, j.Run, j.Seed, j.Cache = job.PhaseOpen, 1, 1, job.CacheCold
	rec, err := RunJob(j, newFake(t, "fake"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Cache != job.CacheCold || len(rec.Resident) != j.Stores {
		t.Fatalf("cache %q, %d residency samples; want cold and %d", rec.Cache, len(rec.Resident), j.Stores)
	}
	for k, r := range rec.Resident {
		if r != 0 {
			t.Errorf("store %d: %.0f %% resident after eviction (measure.TestEvictResident shows whether this filesystem can evict)", k, 100*r)
		}
	}
}
