package results

import (
	"testing"
)

// A hold of 100 stores that took 3 files, 4 mappings, no thread and one
// pthread key each, and 30 KB anonymous: the pthread keys stop it first
// (1,000 free → 1,000 stores), then open files, mappings, memory; threads
// are left out.
func TestWallsFirstLimitFirst(t *testing.T) {
	h := &Hold{Held: 100, FDsBefore: 10, FDs: 310, MappingsBefore: 100, Mappings: 500, ThreadsBefore: 5, Threads: 5,
		PthreadKeysMax: 1024, PthreadKeysFreeBefore: 1000, PthreadKeysFree: 900, AnonKB: 30, MemAvailableKB: 24 << 20,
		Limits: &Limits{OpenFiles: 20000, Mappings: 65530, Threads: 100000}}
	ws := h.Walls()
	want := []struct {
		name   string
		stores float64
	}{{"pthread keys", 1000}, {"open files", 6663}, {"memory mappings", 16357}, {"memory", 838860}}
	if len(ws) != len(want) {
		t.Fatalf("walls %+v, want %v", ws, want)
	}
	for i, w := range want {
		if ws[i].Name != w.name || ws[i].Stores != w.stores {
			t.Errorf("wall %d: %s %v stores, want %s %v", i, ws[i].Name, ws[i].Stores, w.name, w.stores)
		}
	}
	// Without cgo (no key count) the keys are left out; an older record
	// has no walls.
	h.PthreadKeysMax, h.PthreadKeysFreeBefore, h.PthreadKeysFree = -1, -1, -1
	if ws := h.Walls(); ws[0].Name != "open files" {
		t.Errorf("without key counts the first wall is %s, want open files", ws[0].Name)
	}
	h.Limits = nil
	if ws := h.Walls(); ws != nil {
		t.Errorf("a record without limits: walls %+v", ws)
	}
}
