package enginetest

import (
	"fmt"
	"sync"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/workload"
)

// CheckSharedConns checks a variant whose shared store opens with a
// connection per caller (engine.SharedConnsVariant): goroutines, each
// with an agent of its own, write (Insert, a transaction) and read their
// notes at once, as serve's requests do; every answer must be the agent's
// own. On one connection the transactions of two goroutines would meet.
func CheckSharedConns(t *testing.T, v engine.Variant) {
	t.Helper()
	cv, ok := v.(engine.SharedConnsVariant)
	if !ok {
		t.Fatalf("%s opens no shared store with a connection per caller (engine.SharedConnsVariant)", v.ID())
	}
	const agents, turns = 4, 25
	dir := t.TempDir()
	s, err := v.(engine.SharedVariant).CreateShared(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int][]workload.Note{}
	for a := range agents {
		want[a] = lookAlike(a, 20)
		if err := insertAgent(s, a, want[a]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = cv.OpenSharedConns(dir, agents); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	errs := make([]error, agents)
	for a := range agents {
		wg.Go(func() { errs[a] = concurrentTurns(s, a, want[a], turns) })
	}
	wg.Wait()
	for a, err := range errs {
		if err != nil {
			t.Errorf("agent %d: %v", a, err)
		}
	}
}

// concurrentTurns writes agent a two notes at a time in turns, each an
// Insert (one transaction), and checks its count and newest note after
// each.
func concurrentTurns(s engine.SharedStore, a int, have []workload.Note, turns int) error {
	for turn := range turns {
		next := int64(len(have)) + 1
		notes := []workload.Note{
			{ID: next, Text: fmt.Sprintf("agent %d: turn %d, first", a, turn), Ts: 1_800_000_000_000 + next},
			{ID: next + 1, Text: fmt.Sprintf("agent %d: turn %d, second", a, turn), Ts: 1_800_000_000_000 + next + 1},
		}
		if err := insertAgent(s, a, notes); err != nil {
			return err
		}
		have = append(have, notes...)
		if err := checkNewest(s, a, have); err != nil {
			return fmt.Errorf("turn %d: %w", turn, err)
		}
	}
	return nil
}

// checkNewest checks agent a's count and newest note against have.
func checkNewest(s engine.SharedStore, a int, have []workload.Note) error {
	st, err := s.Agent(a)
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := st.Count()
	if err != nil || n != int64(len(have)) {
		return fmt.Errorf("count %d (%v), want %d", n, err, len(have))
	}
	got, err := st.Recent(1, nil)
	last := have[len(have)-1]
	if err != nil || len(got) != 1 || got[0].ID != last.ID || got[0].Text != last.Text || got[0].Ts != last.Ts {
		return fmt.Errorf("newest note %+v (%v), want %+v", got, err, last)
	}
	return nil
}
