package worker

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlite"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/workload"
)

// checkProfile checks a profile record's shape: a sample of every step for
// every store, positive spans where the engine does work.
func checkProfile(t *testing.T, rec results.Record, stores int, marshal bool) {
	t.Helper()
	p := rec.Profile
	if p == nil {
		t.Fatal("profile record without a profile")
	}
	if rec.Phase != job.PhaseProfile || rec.WallS <= 0 {
		t.Errorf("phase %q, wall %v", rec.Phase, rec.WallS)
	}
	steps := map[string][]float64{"create": p.CreateMs, "fill": p.FillMs, "insert": p.InsertMs, "close": p.CloseMs, "total": p.TotalMs}
	if marshal {
		steps["marshal"] = p.MarshalMs
	} else if p.MarshalMs != nil {
		t.Errorf("marshal samples %v for an engine without a marshal step", p.MarshalMs)
	}
	for name, xs := range steps {
		if len(xs) != stores {
			t.Fatalf("%s: %d samples, want %d", name, len(xs), stores)
		}
	}
	for i := range stores {
		if p.TotalMs[i] <= 0 || p.CreateMs[i] <= 0 || p.InsertMs[i] <= 0 {
			t.Errorf("store %d: total %v, create %v, insert %v: want positive spans", i, p.TotalMs[i], p.CreateMs[i], p.InsertMs[i])
		}
	}
}

func TestProfileFake(t *testing.T) {
	j := fakeJob(t, job.PhaseProfile)
	rec, err := RunJob(j, newFake(t, "fake"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	checkProfile(t, rec, j.Stores, false)
	// The stores are real and complete: the open phase counts their notes.
	j.Phase, j.Seed = job.PhaseOpen, 1
	if _, err := RunJob(j, newFake(t, "fake"), io.Discard); err != nil {
		t.Fatal(err)
	}
}

// TestProfileSlowCreate: the fake_slow engine sleeps 20 ms in Create; the
// profile must put that time into the create step, not another one.
func TestProfileSlowCreate(t *testing.T) {
	j := fakeJob(t, job.PhaseProfile)
	j.Stores = 2
	rec, err := RunJob(j, newFake(t, "fake_slow"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	checkProfile(t, rec, 2, false)
	for i, x := range rec.Profile.CreateMs {
		if x < 20 {
			t.Errorf("store %d: create step %v ms, but Create sleeps 20 ms", i, x)
		}
	}
}

func TestProfileSQLite(t *testing.T) {
	v, err := sqlite.New()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	j := job.Job{Variant: "sqlite", Phase: job.PhaseProfile, Dir: dir, Stores: 5,
		Workload: workload.Spec{Name: "custom", Objects: 50, TextLen: 100}}
	rec, err := RunJob(j, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	checkProfile(t, rec, 5, false)
	j.Phase, j.Seed = job.PhaseOpen, 1
	if _, err := RunJob(j, v, io.Discard); err != nil {
		t.Fatalf("the profiled stores do not hold their notes: %v", err)
	}
}

func TestProfileCPUProfile(t *testing.T) {
	j := fakeJob(t, job.PhaseProfile)
	j.CPUProfile = filepath.Join(t.TempDir(), "cpu.pprof")
	if _, err := RunJob(j, newFake(t, "fake"), io.Discard); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(j.CPUProfile)
	if err != nil || st.Size() == 0 {
		t.Fatalf("no CPU profile written: %v", err)
	}

	err = Run([]string{"--variant", "fake", "--phase", "space", "--dir", t.TempDir(), "--stores", "1", "--cpuprofile", "x"},
		io.Discard, io.Discard, engine.Factory{ID: "fake", New: func() (engine.Variant, error) { return newFake(t, "fake"), nil }})
	if err == nil || !strings.Contains(err.Error(), "--cpuprofile is for the create and profile phases") {
		t.Errorf("err = %v, want --cpuprofile refused for the space phase", err)
	}
}
