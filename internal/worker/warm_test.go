package worker

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/report"
	"manydb/internal/results"
)

// evictHalf evicts every other store of j from the page cache (the even
// indices), as a machine that dropped half of them would.
func evictHalf(t *testing.T, j job.Job) {
	t.Helper()
	for i := 0; i < j.Stores; i += 2 {
		if err := measure.Evict(job.StoreDir(j.Dir, i, j.Fanout)); err != nil {
			t.Fatal(err)
		}
	}
}

// warmPhase runs a warm phase of j (open, turn or serve) after half its
// stores were evicted, prewarmed or not, and returns its record; after a
// turn, j counts the note it appended.
func warmPhase(t *testing.T, stores *job.Job, phase job.Phase, prewarm bool) results.Record {
	t.Helper()
	j := *stores
	j.Phase, j.Run, j.Seed, j.Prewarm = phase, 1, 1, prewarm
	if phase == job.PhaseServe {
		j.Serve = job.Serve{Pool: 4, Requests: 100, Concurrency: 2, Zipf: 1.2}
	}
	evictHalf(t, j)
	rec, err := RunJob(j, newFake(t, "fake"), io.Discard)
	if err != nil {
		t.Fatalf("%s: %v", phase, err)
	}
	if rec.ResidentBefore == nil || rec.ResidentAfter == nil {
		t.Fatalf("%s: residency before %v, after %v; want both sampled", phase, rec.ResidentBefore, rec.ResidentAfter)
	}
	if phase == job.PhaseTurn {
		stores.Appended++
	}
	return rec
}

// TestWarmRunsStartWarm: with half the stores evicted between runs, every
// warm phase that prewarms starts with its sample fully resident, and one
// that does not starts at half (measure.TestEvictResident shows whether
// this filesystem can evict).
func TestWarmRunsStartWarm(t *testing.T) {
	j := created(t)
	for _, phase := range []job.Phase{job.PhaseOpen, job.PhaseTurn, job.PhaseServe} {
		if rec := warmPhase(t, &j, phase, true); *rec.ResidentBefore < 1 || !rec.Prewarmed {
			t.Errorf("%s prewarmed: %.1f %% resident before (prewarmed %v), want 100 %%", phase, 100**rec.ResidentBefore, rec.Prewarmed)
		}
		// Half the stores by count; by pages about half (serve's appends
		// grow some stores more than others).
		if rec := warmPhase(t, &j, phase, false); *rec.ResidentBefore > 0.6 || *rec.ResidentBefore < 0.4 {
			t.Errorf("%s not prewarmed: %.1f %% resident before, want about 50 %%", phase, 100**rec.ResidentBefore)
		}
	}
}

// TestPartlyColdRunFlagged: a warm open run, a turn run and a serve step
// made partly cold on purpose (half the stores evicted, no prewarm) are
// named in every view: the tables, the overview (the README's table), the
// HTML report and compare (a serve study in its tables and report).
func TestPartlyColdRunFlagged(t *testing.T) {
	j := created(t)
	var recs []results.Record
	for _, phase := range []job.Phase{job.PhaseOpen, job.PhaseTurn} {
		rec := warmPhase(t, &j, phase, false)
		rec.Study, rec.Setting = "s1", "default"
		rec.SetRepeat(1)
		recs = append(recs, rec)
	}
	var tables, overview, page, cmp bytes.Buffer
	if err := report.Tables(&tables, recs); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteOverview(&overview, recs); err != nil {
		t.Fatal(err)
	}
	if err := report.HTML(&page, recs); err != nil {
		t.Fatal(err)
	}
	if err := report.Compare(&cmp, report.Side{Name: "a", Records: recs}, report.Side{Name: "b", Records: recs}); err != nil {
		t.Fatal(err)
	}
	views := map[string]string{"tables": tables.String(), "overview": overview.String(), "report": page.String(), "compare": cmp.String()}
	for name, out := range views {
		for _, run := range []string{"run 1 (before 50.0 %", "turn run 1 (before 50.0 %"} {
			if !strings.Contains(out, run) {
				t.Errorf("%s does not name %q as not warm:\n%s", name, run, out)
			}
		}
	}
	// A serve step (its stores grew unevenly: about half of the pages),
	// in a study of its own: its table's notes and the report name it.
	rec := warmPhase(t, &j, job.PhaseServe, false)
	rec.Study, rec.Setting = "s2", "default"
	rec.SetRepeat(1)
	serveTables, servePage := &bytes.Buffer{}, &bytes.Buffer{}
	if err := report.Tables(serveTables, []results.Record{rec}); err != nil {
		t.Fatal(err)
	}
	if err := report.HTML(servePage, []results.Record{rec}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"serve tables": serveTables.String(), "serve report": servePage.String()} {
		if !strings.Contains(out, "Not warm") || !strings.Contains(out, "serve at pool 4 (before ") {
			t.Errorf("%s does not name the serve step as not warm:\n%s", name, out)
		}
	}
}
