package report

import (
	"bytes"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
)

// TestSplitHoldRows: a hold split over processes gives the processes, the
// median Pss of one with no store open and which limit chose them; a
// table without one has none of these rows.
func TestSplitHoldRows(t *testing.T) {
	recs := vectorRecords()
	for i := range recs {
		if recs[i].Variant == "obx_cached" && recs[i].Phase == job.PhaseHold {
			h := recs[i].Hold
			h.Procs = []results.Hold{{Held: 1, PssBeforeKB: 3000}, {Held: 1, PssBeforeKB: 2000}, {Held: 2, PssBeforeKB: 2100}}
			h.ProcsChosenBy = &results.ProcsChoice{Limit: "open files", PerProcess: 17989, Most: 20000, PerStore: 1, Headroom: 0.9}
		}
	}
	var b bytes.Buffer
	if err := Tables(&b, recs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| Worker processes holding the 4 stores (--procs) | 1 | 3 | n/a |",
		"| same, each one's memory with no store open (Pss, median) | – | 2,100 KB | n/a |",
		"| same, chosen by (--procs auto) | given (--procs) | open files: 17,989 stores per process within 90 % of its limit of 20,000 (1.00 per store) | n/a |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the tables lack %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := Tables(&b, vectorRecords()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Worker processes") {
		t.Error("a study without a split hold shows its rows")
	}
}

// TestSplitHoldChart: a hold split over processes gets a second panel in
// the n-th open chart, each process' opens against its own stores open;
// a hold in one process gets none.
func TestSplitHoldChart(t *testing.T) {
	recs := vectorRecords()
	for i := range recs {
		if recs[i].Variant == "obx_cached" && recs[i].Phase == job.PhaseHold {
			h := recs[i].Hold
			if h.Held != 4 {
				t.Fatalf("the hold of the test records holds %d stores, want 4", h.Held)
			}
			h.OpenMs = []float64{0.5, 0.6, 0.5, 0.7} // with 0, 0, then 0 and 1 stores open in its process
			h.Procs = []results.Hold{{Held: 1}, {Held: 1}, {Held: 2}}
		}
	}
	const caption = "obx_cached, in each of its 3 processes, against its own stores open"
	var b bytes.Buffer
	if err := HTML(&b, recs); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), caption); n != 1 {
		t.Errorf("the page names the split hold's panel %d times, want once", n)
	}
	b.Reset()
	if err := HTML(&b, vectorRecords()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "in each of its") {
		t.Error("a study without a split hold draws a panel of its processes")
	}
}
