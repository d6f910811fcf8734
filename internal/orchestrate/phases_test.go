package orchestrate

import (
	"slices"
	"testing"

	"manydb/internal/job"
)

// Stores made again for a turn run replay the turn runs before it; for
// a delete with no turn run left, every turn run (the delete exports the
// notes they appended).
func TestReplayTurns(t *testing.T) {
	s := &study{Config: Config{Turns: 2}}
	del := phase{name: job.PhaseDelete}
	for _, tc := range []struct {
		todo  []phase
		turns []int // the turn runs of the result, replays and not
	}{
		{[]phase{{name: job.PhaseTurn, run: 2}, del}, []int{1, 2}},
		{[]phase{{name: job.PhaseTurn, run: 1}, del}, []int{1}},
		{[]phase{del}, []int{1, 2}},
		{[]phase{{name: job.PhaseSpace}}, nil},
	} {
		got := s.replayTurns(tc.todo)
		var turns []int
		for _, p := range got {
			if p.name == job.PhaseTurn {
				turns = append(turns, p.run)
			}
		}
		if !slices.Equal(turns, tc.turns) || got[len(got)-1] != tc.todo[len(tc.todo)-1] {
			t.Errorf("replayTurns(%v) = %v, want the turn runs %v before the phases left", tc.todo, got, tc.turns)
		}
	}
}

// Stores a delete phase ran on (it may have been killed part way) are
// never reused.
func TestDeletingStoresAreNotReused(t *testing.T) {
	dir := t.TempDir()
	m := Manifest{Study: "s", Variant: "v", Setting: "default", Stores: 10}
	if err := writeManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	if ok, why := storesMatch(dir, m); !ok {
		t.Fatalf("a complete store set does not match: %s", why)
	}
	m.Deleting = true
	if err := writeManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	if ok, why := storesMatch(dir, m); ok || why == "" {
		t.Errorf("stores a delete ran on: match %v (%q), want refused with a reason", ok, why)
	}
}
