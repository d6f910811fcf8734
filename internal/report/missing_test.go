package report

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
)

// TestMissingValueInCharts: a space record without bytes has no value;
// the tables show –, and the report shows the same in its overview (no
// value to sort by, no dot), instead of failing on a NaN data point.
func TestMissingValueInCharts(t *testing.T) {
	recs, err := results.ReadFile("testdata/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	emptied := false
	for i := range recs {
		if r := &recs[i]; r.Phase == job.PhaseSpace && r.Variant == "fake" {
			r.Bytes, emptied = nil, true
		}
	}
	if !emptied {
		t.Fatal("testdata/queries.jsonl has no space record of fake")
	}
	var tables, page bytes.Buffer
	if err := Tables(&tables, recs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tables.String(), "| Space per store, files | – | ") {
		t.Errorf("the tables do not show the space of fake as missing:\n%s", tables.String())
	}
	if err := HTML(&page, recs); err != nil {
		t.Fatalf("report: %v", err)
	}
	// The overview's row of fake ends with its space cell, which has no
	// value: "–", and no value to sort by.
	row := regexp.MustCompile(`<tr><td data-v="fake">.*?</tr>`).FindString(page.String())
	if !strings.HasSuffix(row, `<td data-v="">–</td></tr>`) {
		t.Errorf("the overview does not show fake's space as missing: %s", row)
	}
}

// TestValuesSayNoValue: every single-valued figure of the registry gives
// NaN (no value) for a record of its phase that holds nothing, never a
// number made up from nothing.
func TestValuesSayNoValue(t *testing.T) {
	for _, f := range figures {
		if f.value == nil {
			continue
		}
		empty := []*results.Record{{Phase: f.phase}, {Phase: f.phase, Hold: &results.Hold{}}, {Phase: f.phase, Hold: &results.Hold{Container: &results.Container{BytesAfter: 4096}}}}
		for _, r := range empty {
			if v := f.value(r); !math.IsNaN(v) {
				t.Errorf("%s of an empty %s record = %v, want NaN", f.name, f.phase, v)
			}
		}
	}
}
