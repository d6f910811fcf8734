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
