//go:build objectbox

package objectbox

import (
	"math"
	"testing"

	"manydb/internal/job"
)

// TestProfile runs the profile phase (manydb profile) with every variant:
// obx_cached and obx_nosync marshal as a step of their own, obx does not;
// for every store the steps add up to the total, and the stores hold their
// notes.
func TestProfile(t *testing.T) {
	const stores = 3
	for _, f := range factories {
		t.Run(f.id, func(t *testing.T) {
			v := newVariant(t, f.id)
			dir := t.TempDir()
			rec := runJob(t, v, job.Job{Phase: job.PhaseProfile, Dir: dir, Stores: stores})
			p := rec.Profile
			if p == nil || len(p.TotalMs) != stores {
				t.Fatalf("profile = %+v, want %d stores", p, stores)
			}
			wantMarshal := f.id != IDSync
			if got := len(p.MarshalMs) == stores; got != wantMarshal {
				t.Errorf("marshal samples %v; want them: %v", p.MarshalMs, wantMarshal)
			}
			for i := range stores {
				sum := p.CreateMs[i] + p.FillMs[i] + p.InsertMs[i] + p.CloseMs[i]
				if wantMarshal {
					sum += p.MarshalMs[i]
				}
				if math.Abs(sum-p.TotalMs[i]) > 1e-6 {
					t.Errorf("store %d: steps add up to %v ms, total %v ms", i, sum, p.TotalMs[i])
				}
			}
			runJob(t, v, job.Job{Phase: job.PhaseOpen, Dir: dir, Stores: stores, Run: 1, Seed: 1})
		})
	}
}
