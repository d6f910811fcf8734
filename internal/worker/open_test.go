package worker

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
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

// TestColdRunStopsWhereNothingEvicts: on tmpfs, whose pages
// posix_fadvise cannot drop, a cold run of more stores than
// results.ColdProbe stops after them, n/a, with the reason and their
// samples and residency kept; a run of no more stores than that goes to
// its end, so that the tables name it not cold.
func TestColdRunStopsWhereNothingEvicts(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "manydb-cold-")
	if err != nil {
		t.Skipf("no tmpfs at /dev/shm to keep pages after eviction: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	for _, stores := range []int{results.ColdProbe + 5, results.ColdProbe} {
		j := fakeJob(t, job.PhaseCreate)
		j.Dir, j.Stores = filepath.Join(shm, strconv.Itoa(stores)), stores
		if err := os.Mkdir(j.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := RunJob(j, newFake(t, "fake"), io.Discard); err != nil {
			t.Fatal(err)
		}
		j.Phase, j.Run, j.Seed, j.Cache = job.PhaseOpen, 1, 1, job.CacheCold
		rec, err := RunJob(j, newFake(t, "fake"), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if stores <= results.ColdProbe {
			if rec.Status != results.StatusOK || len(rec.TotalMs) != stores || len(rec.Resident) != stores {
				t.Errorf("%d stores: %s, %d samples, %d residencies; want ok and every store", stores, rec.Status, len(rec.TotalMs), len(rec.Resident))
			}
			continue
		}
		if rec.Status != results.StatusNotApplicable || !strings.HasPrefix(rec.Error, "not cold: after 20 stores, 100 % of the last 20 stores' pages stayed") ||
			len(rec.Resident) != results.ColdProbe || len(rec.TotalMs) != results.ColdProbe || len(rec.OpenMs) != results.ColdProbe || rec.Cache != job.CacheCold {
			t.Errorf("%d stores: %s %q, %d residencies, %d and %d samples; want n/a, not cold, %d of each",
				stores, rec.Status, rec.Error, len(rec.Resident), len(rec.TotalMs), len(rec.OpenMs), results.ColdProbe)
		}
	}
}

// TestColdJudgeWindows: a cold run is judged on each window of
// results.ColdProbe stores, not only the first, and never on its last.
func TestColdJudgeWindows(t *testing.T) {
	w := results.ColdProbe
	c := &coldRun{resident: make([]float64, 3*w)}
	for k := w; k < 3*w; k++ {
		c.resident[k] = 0.5
	}
	if err := c.judge(w - 1); err != nil {
		t.Errorf("first window, evicted: %v", err)
	}
	var nc *notColdError
	if err := c.judge(2*w - 1); !errors.As(err, &nc) || nc.visited != 2*w || nc.resident != 0.5 {
		t.Errorf("second window, half resident: %v, want a notColdError after %d stores", err, 2*w)
	}
	if err := c.judge(3*w - 1); err != nil {
		t.Errorf("the run's last store: %v, want no judgement", err)
	}
}
