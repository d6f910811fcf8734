package worker

import (
	"io"
	"slices"
	"strings"
	"testing"

	"manydb/internal/results"
)

// created returns a fake job whose stores exist.
func created(t *testing.T) Job {
	t.Helper()
	job := fakeJob(t, results.PhaseCreate)
	if _, err := RunJob(job, newFake(t, "fake"), io.Discard); err != nil {
		t.Fatal(err)
	}
	return job
}

func TestQueriesAreTimedAndChecked(t *testing.T) {
	job := created(t)
	job.Phase, job.Run, job.Seed = results.PhaseOpen, 1, 1
	job.Queries = []string{QueryScan, QueryCount, QueryGet, QueryRecent}
	rec, err := RunJob(job, newFake(t, "fake"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.Queries, job.Queries) || len(rec.QueriesMs) != 4 {
		t.Fatalf("queries %v with samples for %d; want %v", rec.Queries, len(rec.QueriesMs), job.Queries)
	}
	for k := range rec.TotalMs {
		sum := 0.0
		for _, q := range job.Queries {
			sum += rec.QueriesMs[q][k]
		}
		if d := sum - rec.QueryMs[k]; d > 1e-9 || d < -1e-9 {
			t.Errorf("store %d: queries add up to %v, the query span is %v", k, sum, rec.QueryMs[k])
		}
	}

	// The default is count alone, recorded as the reference's query span.
	job.Queries = nil
	rec, err = RunJob(job, newFake(t, "fake"), io.Discard)
	if err != nil || rec.Queries != nil || rec.QueriesMs != nil || len(rec.QueryMs) != job.Stores {
		t.Fatalf("default queries: %v, %v, %d samples; want count alone in query_ms", err, rec.Queries, len(rec.QueryMs))
	}
}

func TestWrongAnswerFailsThePhase(t *testing.T) {
	job := created(t)
	job.Phase, job.Run, job.Seed = results.PhaseOpen, 1, 1
	job.Queries = []string{QueryCount, QueryRecent, QueryGet, QueryScan}
	for fake, query := range map[string]string{"fake_wrongrecent": QueryRecent, "fake_wrongget": QueryGet, "fake_wrongscan": QueryScan} {
		_, err := RunJob(job, newFake(t, fake), io.Discard)
		if err == nil || !strings.Contains(err.Error(), ": "+query+": ") {
			t.Errorf("%s: err = %v, want the %s query to fail the phase", fake, err, query)
		}
	}
}

func TestTurnsAppendAndReadBack(t *testing.T) {
	job := created(t)
	job.Phase = results.PhaseTurn
	for r := 1; r <= 3; r++ {
		job.Run, job.Seed, job.Appended = r, uint64(r), r-1
		rec, err := RunJob(job, newFake(t, "fake"), io.Discard)
		if err != nil {
			t.Fatalf("turn run %d: %v", r, err)
		}
		if rec.Appended != r-1 || len(rec.QueriesMs[QueryAppend]) != job.Stores || len(rec.QueriesMs[QueryRecent]) != job.Stores {
			t.Fatalf("turn run %d: appended %d, samples %v", r, rec.Appended, rec.QueriesMs)
		}
	}
	// Every store now holds 3 more notes; an open run that knows it passes
	// with every query, and one that does not fails.
	job.Phase, job.Run, job.Seed, job.Appended = results.PhaseOpen, 1, 1, 3
	job.Queries = []string{QueryCount, QueryRecent, QueryGet, QueryScan}
	if _, err := RunJob(job, newFake(t, "fake"), io.Discard); err != nil {
		t.Fatalf("open after 3 turns: %v", err)
	}
	job.Appended = 2
	if _, err := RunJob(job, newFake(t, "fake"), io.Discard); err == nil {
		t.Fatal("open expecting 2 appended notes passed on stores with 3")
	}

	// An append that is lost is caught: by the read-back of the run itself
	// and by the next turn.
	job = created(t)
	job.Phase, job.Run, job.Seed = results.PhaseTurn, 1, 1
	if _, err := RunJob(job, newFake(t, "fake_lostappend"), io.Discard); err == nil || !strings.Contains(err.Error(), "read the appended note back") {
		t.Errorf("lost append: err = %v, want the read-back to fail", err)
	}
	job.Run, job.Seed, job.Appended = 2, 2, 1
	if _, err := RunJob(job, newFake(t, "fake"), io.Discard); err == nil || !strings.Contains(err.Error(), "the notes before turn 2") {
		t.Errorf("turn after a lost append: err = %v, want its recent to fail", err)
	}
}

func TestColdRunRecordsResidency(t *testing.T) {
	job := created(t)
	job.Phase, job.Run, job.Seed, job.Cache = results.PhaseOpen, 1, 1, CacheCold
	rec, err := RunJob(job, newFake(t, "fake"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Cache != CacheCold || len(rec.Resident) != job.Stores {
		t.Fatalf("cache %q, %d residency samples; want cold and %d", rec.Cache, len(rec.Resident), job.Stores)
	}
	for k, r := range rec.Resident {
		if r != 0 {
			t.Errorf("store %d: %.0f %% resident after eviction (measure.TestEvictResident shows whether this filesystem can evict)", k, 100*r)
		}
	}
}

func TestParseQueries(t *testing.T) {
	if q, err := ParseQueries("recent,count"); err != nil || !slices.Equal(q, []string{"recent", "count"}) {
		t.Errorf("ParseQueries(recent,count) = %v, %v", q, err)
	}
	for _, bad := range []string{"", "count,,scan", "count,count", "sum"} {
		if _, err := ParseQueries(bad); err == nil {
			t.Errorf("ParseQueries(%q) accepted", bad)
		}
	}
}
