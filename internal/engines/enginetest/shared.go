package enginetest

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/workload"
)

// CheckShared checks a variant's shared layout (engine.SharedVariant) on
// a real shared store in a temporary directory: two agents with
// look-alike notes (the same ids and timestamps, texts that differ only
// in the agent's number, the second with fewer notes), each of whose
// queries must answer its own notes only, before and after the store is
// closed and opened again and after appends to the first; then the first
// agent deleted, which must leave the second's notes as they were.
func CheckShared(t *testing.T, v engine.Variant) {
	t.Helper()
	sv, ok := v.(engine.SharedVariant)
	if !ok {
		t.Fatalf("%s has no shared layout (engine.SharedVariant)", v.ID())
	}
	if err := SharedErrors(sv, t.TempDir()); err != nil {
		t.Fatal(err)
	}
}

// lookAlike returns agent a's n notes: those of workload agent 3 with
// agent a's number in their text ("note 7 of agent 1: …"), so two agents
// differ only there.
func lookAlike(a, n int) []workload.Note {
	spec := workload.Spec{Name: "custom", Objects: n, TextLen: 60}
	notes := make([]workload.Note, n)
	spec.Fill(3, notes)
	for i := range notes {
		notes[i].Text = strings.Replace(notes[i].Text, "of agent 3:", fmt.Sprintf("of agent %d:", a), 1)
	}
	return notes
}

// SharedErrors does the checks of CheckShared with a shared store in dir,
// which must exist and be empty, and returns the first wrong answer or
// error. It is exported so that tests can prove it catches wrong engines.
func SharedErrors(v engine.SharedVariant, dir string) error {
	want := map[int][]workload.Note{1: lookAlike(1, 50), 2: lookAlike(2, 40)}
	s, err := createAndReopen(v, dir, v.CreateShared, want, func(s engine.SharedStore) error {
		return checkAgents(s, want, "after the create")
	})
	if err != nil {
		return err
	}
	defer s.Close()
	for turn := 1; turn <= 2; turn++ {
		n := workload.Note{ID: int64(len(want[1]) + 1), Text: fmt.Sprintf("agent 1: turn %d", turn), Ts: 1_800_000_000_000 + int64(turn)}
		if err := appendAgent(s, 1, n); err != nil {
			return err
		}
		want[1] = append(want[1], n)
		if err := checkAgents(s, want, fmt.Sprintf("after append %d", turn)); err != nil {
			return err
		}
	}
	return checkDelete(s, want)
}

// insertAgent writes agent a's notes in one transaction.
func insertAgent(s engine.SharedStore, a int, notes []workload.Note) error {
	st, err := s.Agent(a)
	if err != nil {
		return fmt.Errorf("agent %d: %w", a, err)
	}
	if err := st.Insert(notes); err != nil {
		st.Close()
		return fmt.Errorf("agent %d: insert: %w", a, err)
	}
	return st.Close()
}

// createAndReopen makes a shared store in dir with create, writes the
// notes of agents 1 and 2 of want, checks them with check, closes the
// store and returns it opened again, as an application restarted.
func createAndReopen(v engine.SharedVariant, dir string, create func(dir string) (engine.SharedStore, error),
	want map[int][]workload.Note, check func(engine.SharedStore) error) (engine.SharedStore, error) {
	s, err := create(dir)
	if err != nil {
		return nil, fmt.Errorf("create shared: %w", err)
	}
	for _, a := range []int{1, 2} {
		if err := insertAgent(s, a, want[a]); err != nil {
			s.Close()
			return nil, err
		}
	}
	if err := check(s); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, fmt.Errorf("close shared: %w", err)
	}
	if s, err = v.OpenShared(dir); err != nil {
		return nil, fmt.Errorf("open shared: %w", err)
	}
	return s, nil
}

// appendAgent appends one note to agent a.
func appendAgent(s engine.SharedStore, a int, n workload.Note) error {
	st, err := s.Agent(a)
	if err != nil {
		return fmt.Errorf("agent %d: %w", a, err)
	}
	if err := st.Append(n); err != nil {
		st.Close()
		return fmt.Errorf("agent %d: append: %w", a, err)
	}
	return st.Close()
}

// checkAgents checks every query of each agent against its own notes,
// and that agent 2 does not find agent 1's highest ids.
func checkAgents(s engine.SharedStore, want map[int][]workload.Note, when string) error {
	for _, a := range []int{1, 2} {
		open := func() (engine.Store, error) { return s.Agent(a) }
		if err := checkOpen(open, want[a]); err != nil {
			return fmt.Errorf("%s, agent %d: %w", when, a, err)
		}
	}
	st, err := s.Agent(2)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.Get([]int64{int64(len(want[1]))}, nil); !errors.Is(err, engine.ErrNotFound) {
		return fmt.Errorf("%s: agent 2 asked for note %d, which only agent 1 has: error %v, want one wrapping engine.ErrNotFound", when, len(want[1]), err)
	}
	return nil
}

// checkDelete deletes agent 1 and checks that it has no note left and
// that agent 2 still answers with its own.
func checkDelete(s engine.SharedStore, want map[int][]workload.Note) error {
	if err := s.DeleteAgent(1); err != nil {
		return fmt.Errorf("delete agent 1: %w", err)
	}
	st, err := s.Agent(1)
	if err != nil {
		return fmt.Errorf("agent 1 after its delete: %w", err)
	}
	var left []workload.Note
	err = st.Scan(func(n workload.Note) { left = append(left, n) })
	st.Close()
	if err != nil && !errors.Is(err, engine.ErrNotFound) { // an agent unknown to the store: not found
		return fmt.Errorf("scan of agent 1 after its delete: %w", err)
	}
	if len(left) > 0 {
		return fmt.Errorf("agent 1 still has %d notes after its delete", len(left))
	}
	return checkOpen(func() (engine.Store, error) { return s.Agent(2) }, want[2])
}

// CheckAgentViewAllocs checks that an agent's view of v's shared store
// (SharedStore.Agent, the shared layout's open) allocates at most one
// object, the view itself, of at most maxBytes: its statements are
// prepared when a query runs, so that the open the record times is the
// view's making alone.
func CheckAgentViewAllocs(t *testing.T, v engine.Variant, maxBytes int) {
	t.Helper()
	sv, ok := v.(engine.SharedVariant)
	if !ok {
		t.Fatalf("%s has no shared layout (engine.SharedVariant)", v.ID())
	}
	s, err := sv.CreateShared(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var viewErr error
	n := testing.AllocsPerRun(100, func() {
		if _, err := s.Agent(3); err != nil {
			viewErr = err
		}
	})
	if viewErr != nil {
		t.Fatal(viewErr)
	}
	if n > 1 {
		t.Errorf("%s: an agent's view allocates %.0f objects, want 1 (the view)", v.ID(), n)
	}
	if b := viewBytes(s); b > float64(maxBytes) {
		t.Errorf("%s: an agent's view allocates %.1f bytes, want at most %d", v.ID(), b, maxBytes)
	}
}

// viewBytes is the bytes an agent's view of s allocates, the mean over
// many views.
func viewBytes(s engine.SharedStore) float64 {
	const n = 10000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		_, _ = s.Agent(3)
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / n
}
