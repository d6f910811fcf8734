package results

import (
	"strings"
	"testing"
)

func TestWorkerTimeCheck(t *testing.T) {
	for _, c := range []struct {
		w    WorkerTime
		want string // "" for none
	}{
		{WorkerTime{RunS: 2, UntimedS: 0.5, DataS: 0.5, CacheS: 0.5, MemoryS: 0.2, SettleS: 0.2, ReleaseS: 0.1}, ""},
		{WorkerTime{RunS: 1, DataS: -0.1}, "data_s is -0.1"},
		{WorkerTime{RunS: 1, CacheS: 0.6, SettleS: 0.6}, "parts of 1.2"},
		{WorkerTime{RunS: -1}, "in a run of -1"},
		{WorkerTime{RunS: 1, DataS: 0.5, SpawnS: 3}, ""}, // before the run: not a part of it
		{WorkerTime{RunS: 1, SpawnS: -0.01}, "spawn_s is -0.01"},
	} {
		err := c.w.check()
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: error %v, want %q", c.w, err, c.want)
		}
	}
}

// A split hold's account: the release waits, which overlap the other
// processes' work, are neither a part nor in the run.
func TestMergeHoldTimes(t *testing.T) {
	a := &WorkerTime{RunS: 10, DataS: 1, ReleaseS: 6}
	b := &WorkerTime{RunS: 5, DataS: 2, SettleS: 1, ReleaseS: 1}
	m := MergeHoldTimes([]*WorkerTime{a, b})
	if want := (WorkerTime{RunS: 8, DataS: 3, SettleS: 1}); m == nil || *m != want {
		t.Errorf("merged %+v, want %+v", m, want)
	}
	if MergeHoldTimes([]*WorkerTime{a, nil}) != nil {
		t.Error("merged with a process that kept no account: want none")
	}
}

// A split serve step's account is its longest process': the processes
// ran side by side.
func TestMergeServeTimes(t *testing.T) {
	a := &WorkerTime{RunS: 4, DataS: 1, CacheS: 0.5}
	b := &WorkerTime{RunS: 5, DataS: 2, UntimedS: 1}
	m := MergeServeTimes([]*WorkerTime{a, b})
	if m == nil || *m != *b || m == b {
		t.Errorf("merged %+v, want a copy of %+v", m, b)
	}
	if MergeServeTimes([]*WorkerTime{a, nil}) != nil || MergeServeTimes(nil) != nil {
		t.Error("merged with a process that kept no account, or none: want none")
	}
}

// Manydb's own work is the wall time less the engine's calls (timed and
// untimed), the waits and failed workers.
func TestBudgetOwn(t *testing.T) {
	b := Budget{Wall: 100, Wait: 20, Engine: 60, Workers: 75, Failed: 2, Cleanup: 3, Accounted: 75,
		InWorkers: &WorkerTime{RunS: 73, UntimedS: 4, SettleS: 1, ReleaseS: 0, DataS: 2}}
	if got, want := b.OwnS(), 100-20-64-1-2.0; got != want {
		t.Errorf("own %v s, want %v", got, want)
	}
	if got := b.StartS(); got != 2 {
		t.Errorf("starts %v s, want 2", got)
	}
	if got, want := b.OrchestratorS(), 100-20-75-2-3.0; got != want {
		t.Errorf("orchestrator %v s, want %v", got, want)
	}
	old := Budget{Wall: 100, Wait: 20, Engine: 60, Workers: 75, Cleanup: 3}
	if got := old.OwnS(); got != 20 || old.StartS() != 0 {
		t.Errorf("a record without accounts: own %v s, starts %v s, want 20 and 0", got, old.StartS())
	}
}
