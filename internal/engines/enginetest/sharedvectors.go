package enginetest

import (
	"fmt"
	"slices"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// SharedVectorSpec is the workload of CheckSharedVectors: VectorSpec's,
// its topics drawn from a pool of 2 shared by the agents, so that each
// agent's query has the other agent's notes as near as its own.
var SharedVectorSpec = func() workload.Spec {
	s := VectorSpec
	s.TopicPool = 2
	return s
}()

// CheckSharedVectors checks a variant's shared store with embeddings
// (engine.SharedVectorVariant) on a real store in a temporary directory:
// two agents with notes of the same ids on the same topics; each agent's
// knn must answer from its own notes only (an exact search: their exact
// top 10), before and after a reopen; an appended note is found by its
// own embedding for its agent and never for the other; after the first
// agent is deleted, the second's answers are unchanged.
func CheckSharedVectors(t *testing.T, v engine.Variant) {
	t.Helper()
	sv, ok := v.(engine.SharedVectorVariant)
	if !ok || sv.SharedVectorSearch().Method == "" {
		t.Fatalf("%s keeps no embeddings in its shared store (engine.SharedVectorVariant)", v.ID())
	}
	if p, ok := v.(engine.VectorPreparer); ok {
		if err := p.PrepareVectors(); err != nil {
			t.Fatalf("PrepareVectors: %v", err)
		}
	}
	if err := SharedVectorErrors(v.(engine.SharedVariant), t.TempDir()); err != nil {
		t.Fatal(err)
	}
}

// SharedVectorErrors does the checks of CheckSharedVectors with a shared
// store in dir, which must exist and be empty, and returns the first wrong
// answer or error (exported so that tests can prove it catches wrong
// engines).
func SharedVectorErrors(v engine.SharedVariant, dir string) error {
	sv := v.(engine.SharedVectorVariant)
	spec := SharedVectorSpec
	exact := sv.SharedVectorSearch().Exact
	want := map[int][]workload.Note{}
	for _, a := range []int{1, 2} {
		want[a] = make([]workload.Note, spec.Objects)
		spec.Fill(a, want[a])
	}
	create := func(dir string) (engine.SharedStore, error) { return sv.CreateSharedVectors(dir, spec.Dims) }
	s, err := createAndReopen(v, dir, create, want, func(s engine.SharedStore) error {
		return checkAgentsKNN(s, want, exact, "after the create")
	})
	if err != nil {
		return err
	}
	defer s.Close()
	if err := checkAppendOwn(s, spec, want); err != nil {
		return err
	}
	if err := s.DeleteAgent(1); err != nil {
		return fmt.Errorf("delete agent 1: %w", err)
	}
	delete(want, 1)
	return checkAgentsKNN(s, want, exact, "after agent 1 was deleted")
}

// checkAgentsKNN asks each agent of want 10 knn queries near its notes:
// every answer must be of the agent's notes, and an exact search's the
// agent's exact top 10.
func checkAgentsKNN(s engine.SharedStore, want map[int][]workload.Note, exact bool, when string) error {
	spec := SharedVectorSpec
	for a, notes := range want {
		st, err := s.Agent(a)
		if err != nil {
			return fmt.Errorf("%s: agent %d: %w", when, a, err)
		}
		q := make([]float32, spec.Dims)
		for seed := range uint64(10) {
			q, _ = spec.Embedder(a).Query(seed, len(notes), q)
			ids, err := st.(engine.VectorStore).KNN(q, vector.K, nil)
			if err != nil {
				st.Close()
				return fmt.Errorf("%s: agent %d, query %d: knn: %w", when, a, seed, err)
			}
			if err := checkOwnAnswer(notes, q, ids, exact); err != nil {
				st.Close()
				return fmt.Errorf("%s: agent %d, query %d: %w", when, a, seed, err)
			}
		}
		if err := st.Close(); err != nil {
			return err
		}
	}
	return nil
}

// checkOwnAnswer checks a knn answer of an agent whose notes are notes:
// ids of its notes, distinct, and for an exact search its exact top 10.
func checkOwnAnswer(notes []workload.Note, q []float32, ids []int64, exact bool) error {
	if err := vector.CheckAnswer(vector.K, len(notes), ids, exact); err != nil {
		return err
	}
	if r := vector.Recall(vector.K, Distances(notes, q), ids); exact && r != 1 {
		return fmt.Errorf("the search is exact but its answer %v has recall %.2f against the agent's own notes", ids, r)
	}
	return nil
}

// checkAppendOwn appends a note with its embedding to agent 1; a knn with
// that embedding must find it first for agent 1 and never for agent 2.
func checkAppendOwn(s engine.SharedStore, spec workload.Spec, want map[int][]workload.Note) error {
	turn := spec.TurnNote(1, 1)
	if err := appendAgent(s, 1, turn); err != nil {
		return err
	}
	want[1] = append(want[1], turn)
	for _, a := range []int{1, 2} {
		st, err := s.Agent(a)
		if err != nil {
			return err
		}
		ids, err := st.(engine.VectorStore).KNN(turn.Emb, vector.K, nil)
		st.Close()
		switch {
		case err != nil:
			return fmt.Errorf("agent %d: knn after the append: %w", a, err)
		case a == 1 && (len(ids) == 0 || ids[0] != turn.ID):
			return fmt.Errorf("agent 1: knn for its appended note's own embedding returned %v, want note %d first", ids, turn.ID)
		case a == 2 && slices.Contains(ids, turn.ID):
			return fmt.Errorf("agent 2: knn returned %v, with note %d, which agent 1 appended", ids, turn.ID)
		}
	}
	return nil
}
