package kvnote_test

import (
	"fmt"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/badger"
	"manydb/internal/engines/bbolt"
	"manydb/internal/engines/pebble"
	"manydb/internal/workload"
)

// TestLayout checks, for every key-value variant, that the embeddings kept
// beside the notes stay out of the note queries: after CreateVectors, an
// insert and an append (each store opened again), Count, Recent, Get and
// Scan return exactly the notes; an embedding of the wrong length is
// refused; and a store made by Create keeps no embedding of the notes
// written to it, so its knn fails.
func TestLayout(t *testing.T) {
	for _, new := range []func() (engine.Variant, error){bbolt.New, pebble.New, pebble.NewLean, badger.New, badger.NewLean} {
		v, err := new()
		if err != nil {
			t.Fatal(err)
		}
		name := v.ID()
		if o, ok := v.(engine.Optioner); ok && o.Options() != nil {
			name += "_lean"
		}
		t.Run(name, func(t *testing.T) {
			if c, ok := v.(engine.Closer); ok {
				defer c.CloseVariant()
			}
			spec := workload.Spec{Objects: 40, TextLen: 50, Dims: 16}
			notes := make([]workload.Note, spec.Objects)
			spec.Fill(1, notes)
			turn := spec.TurnNote(1, 1)
			all := append(notes[:len(notes):len(notes)], turn)

			dir := t.TempDir()
			write(t, v, dir, true, notes, turn)
			s := open(t, v, dir)
			if err := checkNotes(s, all); err != nil {
				t.Error(err)
			}
			ids, err := s.(engine.VectorStore).KNN(turn.Emb, 10, nil)
			if err != nil || len(ids) != 10 || ids[0] != turn.ID {
				t.Errorf("knn of the appended note's embedding: %v, %v; want 10 ids, %d first", ids, err, turn.ID)
			}
			bad := spec.TurnNote(1, 2)
			bad.Emb = bad.Emb[:15]
			if err := s.Append(bad); err == nil {
				t.Error("append of a 15-value embedding to a store of 16 succeeded")
			}
			if _, err := s.(engine.VectorStore).KNN(turn.Emb[:15], 10, nil); err == nil {
				t.Error("knn of a 15-value query in a store of 16 succeeded")
			}
			s.Close()

			dir = t.TempDir()
			write(t, v, dir, false, notes, turn)
			s = open(t, v, dir)
			defer s.Close()
			if err := checkNotes(s, all); err != nil {
				t.Error(err)
			}
			if ids, err := s.(engine.VectorStore).KNN(turn.Emb, 10, nil); err == nil {
				t.Errorf("knn in a store made by Create returned %v, want an error", ids)
			}
		})
	}
}

// write makes a store in dir (by CreateVectors when vectors is set, Create
// otherwise), inserts notes, and appends turn after opening it again.
func write(t *testing.T, v engine.Variant, dir string, vectors bool, notes []workload.Note, turn workload.Note) {
	t.Helper()
	var s engine.Store
	var err error
	if vectors {
		s, err = v.(engine.VectorVariant).CreateVectors(dir, len(turn.Emb))
	} else {
		s, err = v.Create(dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(notes); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, v, dir)
	if err := s.Append(turn); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, v engine.Variant, dir string) engine.Store {
	t.Helper()
	s, err := v.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkNotes returns the first answer of Count, Recent, Get or Scan that
// is not exactly want (ids, texts, timestamps, no embedding).
func checkNotes(s engine.Store, want []workload.Note) error {
	if n, err := s.Count(); err != nil || n != int64(len(want)) {
		return fmt.Errorf("count = %d, %v; want %d", n, err, len(want))
	}
	recent, err := s.Recent(len(want)+5, nil)
	if err != nil {
		return fmt.Errorf("recent: %w", err)
	}
	var scanned []workload.Note
	if err := s.Scan(func(n workload.Note) { scanned = append(scanned, n) }); err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	got, err := s.Get([]int64{int64(len(want)), 1}, nil)
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	if len(recent) != len(want) || len(scanned) != len(want) {
		return fmt.Errorf("recent returned %d notes, scan %d; want %d", len(recent), len(scanned), len(want))
	}
	for i, w := range want {
		for what, g := range map[string]workload.Note{"scan": scanned[i], "recent": recent[len(want)-1-i]} {
			if g.ID != w.ID || g.Text != w.Text || g.Ts != w.Ts || g.Emb != nil {
				return fmt.Errorf("%s: note %d is {%d %q %d %d values}, want {%d %q %d}", what, i, g.ID, g.Text, g.Ts, len(g.Emb), w.ID, w.Text, w.Ts)
			}
		}
	}
	if got[0].ID != int64(len(want)) || got[1].ID != 1 {
		return fmt.Errorf("get of %d and 1 returned ids %d and %d", len(want), got[0].ID, got[1].ID)
	}
	return nil
}
