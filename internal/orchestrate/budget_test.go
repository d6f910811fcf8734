package orchestrate

import (
	"strings"
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

// TestBudgetLineParts: the study's last line gives manydb's own work in
// parts that add up to it, the workers' store loops (with their yields)
// and the orchestrator apart.
func TestBudgetLineParts(t *testing.T) {
	b := results.Budget{Wall: 200, Wait: 40, Engine: 120, Workers: 150, Cleanup: 1.5, Accounted: 150,
		InWorkers: &results.WorkerTime{RunS: 147, UntimedS: 4, DataS: 6, CacheS: 8, MemoryS: 0.5, SettleS: 2, YieldS: 2.5, SpawnS: 1.2}}
	// own 200-124-42 = 34: starts 3, notes 6, page cache 8, snapshots 0.5,
	// removal 1.5, the orchestrator 200-40-150-1.5 = 8.5, the loops 6.5
	// (2.5 of them yields).
	line := budgetLine("s", b, GateLoad)
	for _, want := range []string{"manydb's own work 34.0 s (17.00 %)", "3.0 s starting and ending workers (1.2 s of it before their runs)", "6.0 s notes and answers",
		"8.0 s page cache", "0.5 s memory snapshots", "1.5 s removing stores", "6.5 s the workers' store loops (2.5 s of them yielding to Go's scheduler)", "8.5 s the orchestrator"} {
		if !strings.Contains(line, want) {
			t.Errorf("the line %q does not say %q", line, want)
		}
	}
}
