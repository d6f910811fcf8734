package badger

import (
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/enginetest"
	"manydb/internal/workload"
)

func TestEndToEnd(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	recs := enginetest.Run(t, enginetest.Case{Variant: v, Files: []string{"MANIFEST"}})
	space := recs[len(recs)-1]
	sst := false
	for _, f := range space.Files {
		sst = sst || strings.HasSuffix(f, ".sst")
	}
	if !sst {
		t.Errorf("no .sst file among %v: the data is only in the memtable WAL", space.Files)
	}
}

// TestPerStore measures what one open store holds (go test -v shows it)
// and checks that a close gives it all back.
func TestPerStore(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.PerStore(t, v, 4, workload.Spec{Objects: 100, TextLen: 60})
}

// TestLargeWorkload checks that one store of the large workload (1,000
// notes of 300 characters) fits in one transaction with these options.
func TestLargeWorkload(t *testing.T) {
	v, _ := New()
	spec := workload.Spec{Name: "large", Objects: 1000, TextLen: 300}
	notes := make([]workload.Note, spec.Objects)
	spec.Fill(0, notes)
	s, err := v.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(notes); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Count(); err != nil || n != int64(len(notes)) {
		t.Errorf("count %d, %v; want %d", n, err, len(notes))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLean runs the suite under lean and checks that an open store runs
// with lean's options, and the default's under New.
func TestLean(t *testing.T) {
	enginetest.Lean(t, Factories()[0], enginetest.Case{Files: []string{"MANIFEST"}})
	for _, c := range []struct {
		new       func() (engine.Variant, error)
		conflicts bool
		bloom     float64
	}{{NewLean, false, 0}, {New, true, 0.01}} {
		v, _ := c.new()
		s, err := v.Create(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		o := s.(*store).db.Opts()
		if o.DetectConflicts != c.conflicts || o.BloomFalsePositive != c.bloom {
			t.Errorf("%v: DetectConflicts %t, BloomFalsePositive %g; want %t, %g", v.(*Variant).Options(), o.DetectConflicts, o.BloomFalsePositive, c.conflicts, c.bloom)
		}
		s.Close()
	}
}

// TestVectors checks the knn of stores made by CreateVectors, by New and
// by NewLean: an exact scan, so recall 1 on every query (floor 1).
func TestVectors(t *testing.T) {
	for _, new := range []func() (engine.Variant, error){New, NewLean} {
		v, err := new()
		if err != nil {
			t.Fatal(err)
		}
		enginetest.CheckVectors(t, v, 1)
	}
}

// TestShared checks the shared layout: two agents with look-alike notes
// and embeddings, each answering from its own keys only, before and after
// a reopen, appends and the other's delete; and the catalog agrees.
func TestShared(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, check := range []func([]engine.Family, engine.Variant) error{engine.CheckShared, engine.CheckSharedVectors} {
		if err := check(engine.Catalog(), v); err != nil {
			t.Error(err)
		}
	}
	enginetest.CheckShared(t, v)
	enginetest.CheckSharedVectors(t, v)
}
