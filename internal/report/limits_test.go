package report

import (
	"bytes"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
)

// TestLimitRows: the tables show the mappings and pthread keys per open
// store and the first limit with its name; a record made before the
// limits were recorded says so in each.
func TestLimitRows(t *testing.T) {
	var recs []results.Record
	for _, v := range []string{"obx", "sqlite"} {
		r := results.Record{Schema: results.Schema, Study: "s", Variant: v, Setting: "default", Status: results.StatusOK,
			Phase: job.PhaseHold, Hold: &results.Hold{Held: 100, RssKB: 400, AnonKB: 30}}
		if v == "obx" {
			h := r.Hold
			h.FDsBefore, h.FDs, h.MappingsBefore, h.Mappings = 10, 310, 100, 500
			h.PthreadKeysMax, h.PthreadKeysFreeBefore, h.PthreadKeysFree = 1024, 1000, 900
			h.MemAvailableKB, h.Limits = 24<<20, &results.Limits{OpenFiles: 20000, Mappings: 65530, Threads: 100000}
		}
		recs = append(recs, r)
	}
	var b bytes.Buffer
	if err := Tables(&b, recs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| Memory mappings per open store | 4 | – (not recorded) |",
		"| pthread keys per open store | 1 | – (not recorded) |",
		"| Open stores until the first limit here, in the hold's processes together | 1,000 | – (not recorded) |",
		"| same, which limit (per open store; left before the first open) | pthread keys (1 per store; 1,000 left) | – (not recorded) |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the tables lack %q:\n%s", want, b.String())
		}
	}
}

// TestServerHoldNamesWhatItLeavesOut: a hold of a server's stores (its
// memory counted with the server's) names its first limit from what the
// hold read, and says that the server's own limits are not counted.
func TestServerHoldNamesWhatItLeavesOut(t *testing.T) {
	var recs []results.Record
	for _, v := range []string{"sqld", "sqlite"} {
		h := &results.Hold{Held: 100, RssKB: 400, AnonKB: 300, FDsBefore: 10, FDs: 10, MemAvailableKB: 3000,
			Limits: &results.Limits{OpenFiles: 20000, Mappings: 65530, Threads: 100000}}
		if v == "sqld" {
			h.Server = &results.ServerMemory{Processes: 1, PssAfterKB: 40000}
		}
		recs = append(recs, results.Record{Schema: results.Schema, Study: "s", Variant: v, Setting: "default", Status: results.StatusOK, Phase: job.PhaseHold, Hold: h})
	}
	var b bytes.Buffer
	if err := Tables(&b, recs); err != nil {
		t.Fatal(err)
	}
	limit := "memory (300 KB anonymous per store; 2.93 MB available)"
	want := "| same, which limit (per open store; left before the first open) | " + limit + " (" + serverLimits + ") | " + limit + " |"
	if !strings.Contains(b.String(), want) {
		t.Errorf("the tables lack %q:\n%s", want, b.String())
	}
}

// TestOOMKilledStep: a serve step the OOM killer ended shows its limit's
// figures and "OOM-killed" in the others, never a latency; a step under
// a kernel without refault counts says n/a.
func TestOOMKilledStep(t *testing.T) {
	lim := func(ooms, refaults int64) *results.MemoryLimit {
		return &results.MemoryLimit{LimitBytes: 1 << 30,
			Pressure: results.Pressure{PeakBytes: 1 << 30, LimitHits: -1, RefaultPages: refaults, ReclaimedPages: -1, OOMKills: ooms}}
	}
	recs := []results.Record{
		{Schema: results.Schema, Study: "s", Variant: "obx", Setting: "default", Status: results.StatusOK, Phase: job.PhaseServe, PoolStep: 1,
			Serve: &results.Serve{Pool: 0, Requests: 100, Warmup: 5, P50Ms: 1.5, P99Ms: 3, WallS: 1, Limit: lim(0, -1)}},
		{Schema: results.Schema, Study: "s", Variant: "obx", Setting: "default", Status: results.StatusOOMKilled, Phase: job.PhaseServe, PoolStep: 2,
			Error: "the OOM killer ended the worker", Serve: &results.Serve{Pool: 10, Limit: lim(1, 256)}},
	}
	var b bytes.Buffer
	if err := Tables(&b, recs); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	pool10 := got[strings.Index(got, "### Pool of 10 open stores"):]
	for _, want := range []string{"| Latency p50 | OOM-killed |", "| OOM kills | 1 |", "| Memory limit (cgroup) | 1GiB (v1) |",
		"| Refaults: MB / pages per request | 1.0 |", "| Pages reclaimed | n/a (v1: no count) |", "| Limit reached (times) | n/a (v1: see the peak) |", "| 10 | OOM-killed |"} {
		if !strings.Contains(pool10, want) {
			t.Errorf("the pool of 10's block lacks %q:\n%s", want, pool10)
		}
	}
	if !strings.Contains(got, "OOM-killed (an outcome of the step under --memory-max, not a failure): obx, pool of 10: the OOM killer ended the worker.") {
		t.Errorf("no note of the OOM-killed step and why:\n%s", got)
	}
	if !strings.Contains(got, "| Refaults: MB / pages per request | n/a (not counted) |") {
		t.Errorf("pool 0's refaults without a count:\n%s", got)
	}
}

// TestSeveralHoldCounts: a study of two hold counts shows a block of hold
// rows per count; a column whose larger hold was skipped says "skipped"
// there (not the smaller hold's figure under the larger count's label),
// the notes say why, and the column is not n/a.
func TestSeveralHoldCounts(t *testing.T) {
	hold := func(v string, step, held int, rss float64) results.Record {
		return results.Record{Schema: results.Schema, Study: "s", Variant: v, Setting: "default", Status: results.StatusOK,
			Phase: job.PhaseHold, HoldStep: step, Hold: &results.Hold{Held: held, RssKB: rss, AnonKB: rss}}
	}
	skipped := hold("obx", 2, 10000, 0)
	skipped.Status, skipped.Error = results.StatusNotApplicable, "10000 open stores need about 26.1 GB"
	skipped.Hold = &results.Hold{Held: 10000}
	recs := []results.Record{hold("obx", 1, 1000, 2546), skipped, hold("sqlite", 1, 1000, 431), hold("sqlite", 2, 10000, 430)}
	var b bytes.Buffer
	if err := Tables(&b, recs); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"| Memory per open store (1,000 open), resident | 2,546 KB | 431 KB |",
		"| Memory per open store (10,000 open), resident | skipped | 430 KB |",
		"Holds skipped before they started: obx at 10,000 open: 10000 open stores need about 26.1 GB.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the tables lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\nn/a: ") {
		t.Errorf("a skipped hold made a column n/a:\n%s", got)
	}
	if strings.Index(got, "(1,000 open)") > strings.Index(got, "(10,000 open)") {
		t.Errorf("the larger hold's block comes first:\n%s", got)
	}
	// The overview, labelled with the larger count, shows the same.
	b.Reset()
	if err := WriteOverview(&b, recs); err != nil {
		t.Fatal(err)
	}
	if ov := b.String(); !strings.Contains(ov, "(10,000 open)") || strings.Contains(ov, "2,546") || strings.Contains(ov, "2.49 MB") {
		t.Errorf("the overview shows obx's 1,000 hold under the 10,000 label:\n%s", ov)
	}
}
