package orchestrate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"manydb/internal/job"
	"manydb/internal/results"
)

// TestSweep runs a sweep over 30 and 10 stores with three hold counts in
// the nested layout: the 30 stores are made once and the 10-store study
// uses the first 10 of them, its create record their own samples; each
// hold count is its own record, those above a study's store count left
// out; every record carries the sweep's id; a rerun records nothing again.
func TestSweep(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Sweep, c.Holds, c.Fanout, c.Runs = []int{10, 30}, []int{20, 2, 5}, 1, 1
	began := time.Now()
	id, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(began).Seconds()
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	studies := map[int]string{} // store count → study id
	creates := map[int]*results.Record{}
	holds := map[int][]int{}
	for i := range recs {
		r := &recs[i]
		if r.Sweep != id {
			t.Errorf("%s record of study %s: sweep %q, want %q", r.Phase, r.Study, r.Sweep, id)
		}
		switch r.Phase {
		case job.PhaseEnv:
			studies[r.Stores] = r.Study
			if r.Config.Sweep == nil || r.Config.Sweep.ID != id || !slices.Equal(r.Config.Sweep.Stores, []int{30, 10}) {
				t.Errorf("env of %d stores: sweep %+v", r.Stores, r.Config.Sweep)
			}
		case job.PhaseCreate:
			creates[r.Stores] = r
		case job.PhaseHold:
			holds[r.Stores] = append(holds[r.Stores], r.Hold.Held)
			if r.HoldStep != len(holds[r.Stores]) {
				t.Errorf("hold of %d stores recorded as hold step %d", r.Hold.Held, r.HoldStep)
			}
		case job.PhaseOpen, job.PhaseSpace:
			if r.Phase == job.PhaseOpen && (!r.Prewarmed || r.ResidentBefore == nil || r.ResidentAfter == nil) {
				t.Errorf("warm open run of %d stores: prewarmed %v, residency before %v and after %v; want every warm run prewarmed, both recorded",
					r.Stores, r.Prewarmed, r.ResidentBefore, r.ResidentAfter)
			}
			if n := max(len(r.OpenMs), len(r.Bytes)); n != r.Stores {
				t.Errorf("%s of study %s: %d samples for %d stores", r.Phase, r.Study, n, r.Stores)
			}
		}
		if r.Phase != job.PhaseEnv && r.Phase != job.PhaseEnd && r.Status != results.StatusOK {
			t.Errorf("%s %s: %s %s", r.Study, r.Phase, r.Status, r.Error)
		}
		if r.Phase == job.PhaseEnd && (r.Budget == nil || r.Budget.Wall < r.Budget.Workers || r.Budget.Wall <= 0) {
			t.Errorf("end of study %s: budget %+v: want its own wall time, at least its workers' time", r.Study, r.Budget)
		}
		if r.Phase != job.PhaseEnd && r.Fanout != 1 {
			t.Errorf("%s record: fanout %d, want 1", r.Phase, r.Fanout)
		}
	}
	var walls []float64
	for _, r := range recs {
		if r.Phase == job.PhaseEnd {
			walls = append(walls, r.Budget.Wall)
		}
	}
	if len(walls) != 2 || walls[0]+walls[1] > elapsed {
		t.Errorf("the sweep's studies' wall times %v in a session of %.1f s: want one each, each its own phases' time", walls, elapsed)
	}
	big, small := creates[30], creates[10]
	if big == nil || small == nil {
		t.Fatalf("create records: %v", creates)
	}
	if big.StoresFrom != "" || len(big.CreateMs) != 30 || big.WallS <= 0 {
		t.Errorf("create of 30: from %q, %d samples, wall %v", big.StoresFrom, len(big.CreateMs), big.WallS)
	}
	if small.StoresFrom != studies[30] || !slices.Equal(small.CreateMs, big.CreateMs[:10]) || small.WallS != 0 {
		t.Errorf("create of 10: from %q (want %s), samples %v (want the first 10 of %v), wall %v", small.StoresFrom, studies[30], small.CreateMs, big.CreateMs, small.WallS)
	}
	if !slices.Equal(holds[30], []int{2, 5, 20}) || !slices.Equal(holds[10], []int{2, 5}) {
		t.Errorf("hold counts: %v", holds)
	}
	if _, err := os.Stat(filepath.Join(c.Root, "default", "fake")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sweep's stores were not removed at the end: %v", err)
	}

	before := len(recs)
	if again, err := Run(context.Background(), c); err != nil || again != id {
		t.Fatalf("rerun: %v, id %s (want %s)", err, again, id)
	}
	recs, _ = results.ReadFile(c.Out)
	for _, r := range recs[before:] {
		if r.Phase != job.PhaseEnv && r.Phase != job.PhaseEnd {
			t.Errorf("the rerun recorded %s of %d stores again", r.Phase, r.Stores)
		}
	}
}

func TestSweepRefusesTurns(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Sweep, c.Turns = []int{10, 20}, 1
	_, err := Run(context.Background(), c)
	var in *job.InputError
	if !errors.As(err, &in) {
		t.Fatalf("sweep with turns: %v, want an input error", err)
	}
	if _, err := os.Stat(c.Root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused sweep made its root: %v", err)
	}
}
