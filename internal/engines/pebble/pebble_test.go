package pebble

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
	recs := enginetest.Run(t, enginetest.Case{Variant: v, Files: []string{"LOCK"},
		Versions: []string{"pebble_format"}})
	// The data must be in an sstable after create, not only in the WAL.
	space := recs[len(recs)-1]
	sst := false
	for _, f := range space.Files {
		sst = sst || strings.HasSuffix(f, ".sst")
	}
	if !sst {
		t.Errorf("no .sst file among %v: the create did not flush", space.Files)
	}
}

// TestPerStore measures what one open store holds (go test -v shows it)
// and checks that a close gives it all back.
func TestPerStore(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer v.(*Variant).CloseVariant()
	g, _ := enginetest.PerStore(t, v, 4, workload.Spec{Objects: 100, TextLen: 60})
	if g <= 0 {
		t.Errorf("%.1f goroutines per open store, want Pebble's background goroutines", g)
	}
}

// TestLean runs the suite under lean and checks that an open store's
// memtables are lean's 64 KiB, where the default allocates at least
// 256 KiB (its first memtable).
func TestLean(t *testing.T) {
	enginetest.Lean(t, Factories()[0], enginetest.Case{Files: []string{"LOCK"}, Versions: []string{"pebble_format"}})
	for _, c := range []struct {
		new      func() (engine.Variant, error)
		min, max uint64
	}{{NewLean, LeanMemTableSize, LeanMemTableSize}, {New, 256 << 10, MemTableSize}} {
		v, err := c.new()
		if err != nil {
			t.Fatal(err)
		}
		dir := enginetest.MakeStores(t, v, 1, workload.Spec{Name: "small", Objects: 10, TextLen: 60})[0]
		s, err := v.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.(*store).db.Metrics().MemTable.Size; got < c.min || got > c.max {
			t.Errorf("%v: memtables of %d bytes, want %d to %d", v.(*Variant).Options(), got, c.min, c.max)
		}
		s.Close()
		v.(*Variant).CloseVariant()
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
		v.(*Variant).CloseVariant()
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
	defer v.(*Variant).CloseVariant()
	for _, check := range []func([]engine.Family, engine.Variant) error{engine.CheckShared, engine.CheckSharedVectors} {
		if err := check(engine.Catalog(), v); err != nil {
			t.Error(err)
		}
	}
	enginetest.CheckShared(t, v)
	enginetest.CheckSharedVectors(t, v)
}
