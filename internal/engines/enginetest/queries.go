package enginetest

import (
	"errors"
	"fmt"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/workload"
)

// CheckQueries checks a variant's queries on real stores in a
// temporary directory: every answer of Recent, Get and Scan against the
// notes written by Create and Insert, a missing id of Get (it must wrap
// engine.ErrNotFound), and Append read back by Recent, Get, Scan and Count
// after the store was closed and opened again, twice in a row.
func CheckQueries(t *testing.T, v engine.Variant) {
	t.Helper()
	if err := QueryErrors(v, t.TempDir()); err != nil {
		t.Fatal(err)
	}
}

// QueryErrors does the checks of CheckQueries with a store in dir, which
// must exist and be empty, and returns the first wrong answer or error.
// It is exported so that tests can prove it catches wrong engines.
func QueryErrors(v engine.Variant, dir string) error {
	spec := workload.Spec{Name: "custom", Objects: 50, TextLen: 60}
	notes := make([]workload.Note, spec.Objects)
	spec.Fill(3, notes)
	s, err := v.Create(dir)
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	if err := s.Insert(notes); err != nil {
		s.Close()
		return fmt.Errorf("insert: %w", err)
	}
	if err := s.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	for turn := 1; turn <= 2; turn++ {
		if err := checkOpen(func() (engine.Store, error) { return v.Open(dir) }, notes); err != nil {
			return fmt.Errorf("before append %d: %w", turn, err)
		}
		s, err := v.Open(dir)
		if err != nil {
			return fmt.Errorf("open: %w", err)
		}
		n := workload.Note{ID: int64(len(notes) + 1), Text: fmt.Sprintf("turn %d of agent 3: appended", turn), Ts: 1_800_000_000_000 + int64(turn)}
		if err := s.Append(n); err != nil {
			s.Close()
			return fmt.Errorf("append %d: %w", turn, err)
		}
		if err := s.Close(); err != nil {
			return fmt.Errorf("close after append: %w", err)
		}
		notes = append(notes, n)
	}
	return checkOpen(func() (engine.Store, error) { return v.Open(dir) }, notes)
}

// checkOpen opens a store with open and checks every query against want.
func checkOpen(open func() (engine.Store, error), want []workload.Note) (err error) {
	s, err := open()
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer func() {
		if cerr := s.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close: %w", cerr)
		}
	}()
	if n, err := s.Count(); err != nil || n != int64(len(want)) {
		return fmt.Errorf("count = %d, %v; want %d", n, err, len(want))
	}

	got, err := s.Recent(20, nil)
	if err != nil {
		return fmt.Errorf("recent: %w", err)
	}
	if err := same("recent 20", got, newest(want, 20)); err != nil {
		return err
	}
	got, err = s.Recent(len(want)+5, got[:0]) // more than stored: all, newest first
	if err != nil {
		return fmt.Errorf("recent all: %w", err)
	}
	if err := same("recent all", got, newest(want, len(want))); err != nil {
		return err
	}

	ids := []int64{7, 1, int64(len(want)), 7, 30}
	got, err = s.Get(ids, nil)
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	var wantGet []workload.Note
	for _, id := range ids {
		wantGet = append(wantGet, want[id-1])
	}
	if err := same("get", got, wantGet); err != nil {
		return err
	}
	if _, err := s.Get([]int64{2, int64(len(want)) + 1}, nil); !errors.Is(err, engine.ErrNotFound) {
		return fmt.Errorf("get of a missing id: error %v, want one wrapping engine.ErrNotFound", err)
	}

	var scanned []workload.Note
	if err := s.Scan(func(n workload.Note) { scanned = append(scanned, n) }); err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	return same("scan", scanned, want)
}

// newest returns the n notes of want with the highest ids, newest first.
func newest(want []workload.Note, n int) []workload.Note {
	var out []workload.Note
	for i := len(want) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, want[i])
	}
	return out
}

// same reports the first difference between got and want.
func same(what string, got, want []workload.Note) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d notes, want %d", what, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.Text != w.Text || g.Ts != w.Ts {
			return fmt.Errorf("%s: note %d is {%d %q %d}, want {%d %q %d}", what, i,
				got[i].ID, got[i].Text, got[i].Ts, want[i].ID, want[i].Text, want[i].Ts)
		}
	}
	return nil
}
