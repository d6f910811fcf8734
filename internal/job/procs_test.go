package job

import (
	"io"
	"strings"
	"testing"
)

// TestHeldRange: the processes of a split hold hold consecutive ranges
// that cover every held store once; one process holds them all.
func TestHeldRange(t *testing.T) {
	for _, tt := range []struct{ hold, procs int }{{10, 0}, {10, 1}, {10, 3}, {7, 7}, {25000, 2}, {100000, 6}} {
		next := 0
		for k := range max(tt.procs, 1) {
			j := Job{Phase: PhaseHold, Hold: tt.hold, Procs: tt.procs, Proc: k}
			lo, hi := j.HeldRange()
			if lo != next || hi <= lo {
				t.Fatalf("hold %d over %d: process %d holds %d…%d, want from %d on", tt.hold, tt.procs, k, lo, hi, next)
			}
			if n, _ := j.Units(); n != hi-lo {
				t.Errorf("process %d counts %d stores of progress, holds %d", k, n, hi-lo)
			}
			next = hi
		}
		if next != tt.hold {
			t.Errorf("hold %d over %d: the ranges end at %d", tt.hold, tt.procs, next)
		}
	}
}

// TestProcsArgs: a split hold's worker gets its process on its command
// line; a process number out of range, more processes than held stores
// and --procs outside a hold are refused.
func TestProcsArgs(t *testing.T) {
	j := Job{Variant: "v", Phase: PhaseHold, Dir: "/d", Stores: 10, Hold: 6, Procs: 3, Proc: 2}
	got, err := Parse(j.Args(), io.Discard, []string{"v"})
	if err != nil || got.Procs != 3 || got.Proc != 2 {
		t.Fatalf("parsed %+v, %v: want process 2 of 3", got, err)
	}
	for _, tt := range []struct {
		edit func(j *Job)
		want string
	}{
		{func(j *Job) { j.Proc = 3 }, "--proc 3"},
		{func(j *Job) { j.Procs = 7 }, "--procs 7"},
		{func(j *Job) { j.Phase, j.Seed = PhaseOpen, 1 }, "--procs and --proc are for the hold and serve phases"},
	} {
		bad := j
		tt.edit(&bad)
		if _, err := Parse(bad.Args(), io.Discard, []string{"v"}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want %q", bad.Args(), err, tt.want)
		}
	}
}
