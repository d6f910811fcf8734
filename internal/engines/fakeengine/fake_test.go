package fakeengine

import (
	"errors"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/enginetest"
)

// TestQueryChecksCatchWrongEngines: enginetest's query checks pass the
// correct fake and fail every wrong one.
func TestQueryChecksCatchWrongEngines(t *testing.T) {
	for _, id := range []string{"fake", "fake_wrongrecent", "fake_wrongget", "fake_wrongscan", "fake_lostappend", "fake_wrongcount"} {
		v, err := New(id)()
		if err != nil {
			t.Fatal(err)
		}
		err = enginetest.QueryErrors(v, t.TempDir())
		if (err == nil) != (id == "fake") {
			t.Errorf("%s: QueryErrors = %v", id, err)
		}
	}
}

// TestNullHoldsNoNotes: the null store counts what it was made with, finds
// no note and fails Get with engine.ErrNotFound.
func TestNullHoldsNoNotes(t *testing.T) {
	s, err := NewNull(7).Open("")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Count(); n != 7 || err != nil {
		t.Errorf("Count = %d, %v; want 7", n, err)
	}
	if got, err := s.Recent(20, nil); len(got) != 0 || err != nil {
		t.Errorf("Recent = %v, %v; want no note", got, err)
	}
	if _, err := s.Get([]int64{1}, nil); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Get: error %v, want one wrapping engine.ErrNotFound", err)
	}
}

// TestSharedChecksCatchWrongEngines: enginetest's shared layout checks
// pass the correct fake and fail one whose agents see each other's notes
// and the wrong ones of the queries.
func TestSharedChecksCatchWrongEngines(t *testing.T) {
	for _, id := range []string{"fake", "fake_mixedagents", "fake_wrongget", "fake_lostappend"} {
		v, err := New(id)()
		if err != nil {
			t.Fatal(err)
		}
		err = enginetest.SharedErrors(v.(engine.SharedVariant), t.TempDir())
		if (err == nil) != (id == "fake") {
			t.Errorf("%s: SharedErrors = %v", id, err)
		}
	}
}

// TestSharedVectorChecksCatchWrongEngines: the shared store's knn checks
// pass the fake and fail one whose agents see each other's notes, one
// whose exact knn drops its nearest note and one that loses an append.
func TestSharedVectorChecksCatchWrongEngines(t *testing.T) {
	for _, id := range []string{"fake", "fake_mixedagents", "fake_wrongknn", "fake_lostappend"} {
		v, err := New(id)()
		if err != nil {
			t.Fatal(err)
		}
		err = enginetest.SharedVectorErrors(v.(engine.SharedVariant), t.TempDir())
		if (err == nil) != (id == "fake") {
			t.Errorf("%s: SharedVectorErrors = %v", id, err)
		}
	}
}
