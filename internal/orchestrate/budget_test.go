package orchestrate

import (
	"testing"

	"manydb/internal/results"
)

// TestEngineSecondsCountsEverySpan: a record's engine time is the sum of
// all its timed spans, the delete phase's exports and deletes too (a
// study of shared vector indexes spends most of its engine time there).
func TestEngineSecondsCountsEverySpan(t *testing.T) {
	r := results.Record{CreateMs: []float64{1000}, TotalMs: []float64{500, 500}, ExportMs: []float64{250},
		DeleteMs: []float64{750}, Hold: &results.Hold{EngineS: 2}}
	if got := engineSeconds(r); got != 5 {
		t.Errorf("engineSeconds = %v s, want 5 (1 create, 1 visits, 0.25 export, 0.75 delete, 2 hold)", got)
	}
}
