package results

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"manydb/internal/job"
	"manydb/internal/workload"
)

// part is one process' hold of held stores, each adding 1 file, 100 KB
// resident and 10 KB anonymous, with openMs as its samples.
func part(held int, openMs ...float64) Hold {
	return Hold{Held: held, RssKB: 100, AnonKB: 10, RssBeforeKB: 5000, RssAfterKB: 5000 + 100*int64(held),
		FDsBefore: 4, FDs: 4 + held, PssBeforeKB: 3000, EngineS: 1, OpenMs: openMs,
		Limits: &Limits{OpenFiles: 20, Mappings: 1000, Threads: 100}, MemAvailableKB: 1 << 20,
		Container: &Container{Cgroup: "/c", BytesBefore: int64(held), BytesAfter: 10 * int64(held)}}
}

// TestMergeHolds: a split hold is what its processes held together: sums,
// the samples in store order, the container from the first process'
// start to the last one's end, each process' own figures kept without
// their samples; its files wall counts every process' limit.
func TestMergeHolds(t *testing.T) {
	h, err := MergeHolds([]Hold{part(2, 1, 2), part(3, 3, 4, 5)})
	if err != nil {
		t.Fatal(err)
	}
	if h.Held != 5 || h.RssKB != 100 || h.AnonKB != 10 || h.FDs-h.FDsBefore != 5 || h.EngineS != 2 || h.PssBeforeKB != 6000 {
		t.Errorf("merged = %+v, want the sums of 2 and 3 stores", h)
	}
	if got := h.OpenMs; len(got) != 5 || got[0] != 1 || got[4] != 5 {
		t.Errorf("open_ms = %v, want 1…5 in store order", got)
	}
	if h.Container.BytesBefore != 2 || h.Container.BytesAfter != 30 {
		t.Errorf("container = %+v, want the first one's before and the last one's after", h.Container)
	}
	if len(h.Procs) != 2 || h.Procs[1].Held != 3 || h.Procs[1].OpenMs != nil {
		t.Errorf("procs = %+v, want each process' hold without its samples", h.Procs)
	}
	// 2 processes × 20 files, 8 open before: 32 left, 1 per store.
	if ws := h.Walls(); len(ws) == 0 || ws[0].Name != "open files" || ws[0].Stores != 32 {
		t.Errorf("walls = %+v, want open files first at 32 stores", ws)
	}
	if _, err := MergeHolds([]Hold{part(2)}); err == nil {
		t.Error("a hold of one process merged")
	}
	a, b := part(1, 1), part(1, 1)
	a.Ladder = []LadderStep{{Asked: 10, Ms: []float64{1}, Recall: []float64{1}, Returned: []int{10}}}
	if _, err := MergeHolds([]Hold{a, b}); err == nil {
		t.Error("processes with different ladders merged")
	}
}

// TestRefusesSplitHoldsThatDoNotAddUp: a record whose processes' holds do
// not add up to its hold, or of one process, is refused.
func TestRefusesSplitHoldsThatDoNotAddUp(t *testing.T) {
	h, err := MergeHolds([]Hold{part(2, 1, 2), part(3, 3, 4, 5)})
	if err != nil {
		t.Fatal(err)
	}
	rec := Record{Schema: Schema, Study: "s", Variant: "v", Phase: job.PhaseHold, Status: StatusOK, Stores: 10,
		Workload: workload.Spec{Name: "small", Objects: 10, TextLen: 40}, Started: time.Unix(0, 0).UTC(), Hold: h}
	for _, tt := range []struct {
		name string
		edit func(h *Hold)
		want string
	}{
		{"the valid split hold", func(*Hold) {}, ""},
		{"processes holding 6 of 5", func(h *Hold) { h.Procs[0].Held = 3 }, "hold.procs hold 6 stores in all, the hold 5"},
		{"one process", func(h *Hold) { h.Procs = h.Procs[:1] }, "hold.procs holds 1 process"},
		{"a process holding none", func(h *Hold) { h.Procs[0].Held, h.Procs[1].Held = 0, 5 }, "hold.procs[0].held is 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := rec
			hc := *h
			hc.Procs = append([]Hold(nil), h.Procs...)
			tt.edit(&hc)
			r.Hold = &hc
			line, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			_, err = readOne(t, string(line))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestProcsFor: the fewest processes whose open files stay within 90 %
// of a process' limit (20 files, 4 open before its first store, 1 per
// store: 14 stores each), the limit that set it, and none when a process
// cannot hold one store.
func TestProcsFor(t *testing.T) {
	h := part(10)
	if k, by := h.ProcsFor(14, 0.9); k != 1 || by.Limit != "" {
		t.Errorf("14 stores: %d processes (%+v), want 1", k, by)
	}
	if k, by := h.ProcsFor(25, 0.9); k != 2 || by.Limit != "open files" || by.PerProcess != 14 {
		t.Errorf("25 stores: %d processes (%+v), want 2 by open files, 14 each", k, by)
	}
	var none *Hold
	if k, by := none.ProcsFor(25, 0.9); k != 1 || !by.FirstHold {
		t.Errorf("no hold before: %d processes (%+v), want 1 for the first hold", k, by)
	}
	// The same hold split over 2 processes: 8 files open before, 4 each.
	split, err := MergeHolds([]Hold{part(5), part(5)})
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := split.ProcsFor(25, 0.9); k != 2 {
		t.Errorf("from a split hold: %d processes, want 2", k)
	}
	h.FDsBefore, h.FDs = 19, 29
	if k, by := h.ProcsFor(5, 0.9); k != 0 || by.Limit != "open files" {
		t.Errorf("a process with 19 of 20 files open: %d processes (%+v), want 0 by open files", k, by)
	}
}
