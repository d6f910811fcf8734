package enginetest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/stats"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// VectorSpec is the small clustered set CheckVectors searches: stores of
// 300 notes with embeddings of 128 values.
var VectorSpec = workload.Spec{Name: "vectors", Objects: 300, TextLen: 40, Dims: 128}

// CheckVectors checks the knn answers of v, which must be an
// engine.VectorVariant: on two stores of VectorSpec, 20 queries each
// (drawn as the worker draws them), every answer is checked
// (vector.CheckAnswer) and its recall@10 computed against the exact
// answer. An exact search (VectorSearch().Exact) must have recall 1 on
// every query; an index must reach a mean recall of floor. The variant is
// prepared first, as the worker does (engine.VectorPreparer). Then one note
// is appended with its embedding, and a query with that embedding must
// find it first, after the store is opened again. It returns the mean
// recall.
func CheckVectors(t *testing.T, v engine.Variant, floor float64) float64 {
	t.Helper()
	vv, ok := v.(engine.VectorVariant)
	if !ok {
		t.Fatalf("%s is not an engine.VectorVariant", v.ID())
	}
	if p, ok := v.(engine.VectorPreparer); ok {
		if err := p.PrepareVectors(); err != nil {
			t.Fatalf("PrepareVectors: %v", err)
		}
	}
	search := vv.VectorSearch()
	if search.Method == "" {
		t.Fatalf("%s: VectorSearch().Method is empty", v.ID())
	}
	dir := t.TempDir()
	var recalls []float64
	for i := range 2 {
		store := filepath.Join(dir, fmt.Sprintf("%06d", i))
		notes := createVectorStore(t, vv, store, i)
		s, err := v.Open(store)
		if err != nil {
			t.Fatal(err)
		}
		recalls = append(recalls, checkKNNAnswers(t, s, search.Exact, i, notes)...)
		checkAppendFound(t, v, s, store, i)
	}
	mean := stats.Mean(recalls)
	if mean < floor {
		t.Fatalf("%s (%s): mean recall@10 %.3f, below the floor %.2f", v.ID(), search.Method, mean, floor)
	}
	t.Logf("%s (%s): mean recall@10 %.3f over %d queries", v.ID(), search.Method, mean, len(recalls))
	return mean
}

// createVectorStore makes store i of VectorSpec in dir with its
// embeddings and returns its notes.
func createVectorStore(t *testing.T, vv engine.VectorVariant, dir string, i int) []workload.Note {
	t.Helper()
	spec := VectorSpec
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	notes := make([]workload.Note, spec.Objects)
	spec.Fill(i, notes)
	s, err := vv.CreateVectors(dir, spec.Dims)
	if err != nil {
		t.Fatalf("CreateVectors: %v", err)
	}
	if err := s.Insert(notes); err != nil {
		t.Fatalf("insert: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return notes
}

// checkKNNAnswers asks store i, open as s, 20 knn queries and returns
// each answer's recall@10; an impossible answer, or an exact search's
// recall below 1, fails t.
func checkKNNAnswers(t *testing.T, s engine.Store, exact bool, i int, notes []workload.Note) []float64 {
	t.Helper()
	spec := VectorSpec
	vs, ok := s.(engine.VectorStore)
	if !ok {
		t.Fatalf("a store of CreateVectors, opened, is not an engine.VectorStore")
	}
	e := spec.Embedder(i)
	q := make([]float32, spec.Dims)
	var ids []int64
	var recalls []float64
	for seed := range uint64(20) {
		q, _ = e.Query(seed, spec.Objects, q)
		var err error
		ids, err = vs.KNN(q, vector.K, ids[:0])
		if err != nil {
			t.Fatalf("store %d, query %d: knn: %v", i, seed, err)
		}
		if err := vector.CheckAnswer(vector.K, spec.Objects, ids, exact); err != nil {
			t.Fatalf("store %d, query %d: %v", i, seed, err)
		}
		r := vector.Recall(vector.K, Distances(notes, q), ids)
		if exact && r != 1 {
			t.Fatalf("store %d, query %d: the search is exact but its answer %v has recall %.2f", i, seed, ids, r)
		}
		recalls = append(recalls, r)
	}
	return recalls
}

// checkAppendFound appends one note with its embedding to store i, open
// as s, and closes it; after a reopen, a query with that very embedding
// must find it first.
func checkAppendFound(t *testing.T, v engine.Variant, s engine.Store, dir string, i int) {
	t.Helper()
	turn := VectorSpec.TurnNote(i, 1)
	if err := s.Append(turn); err != nil {
		t.Fatalf("append: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := v.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := s.(engine.VectorStore).KNN(turn.Emb, vector.K, make([]int64, 0, vector.K))
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("knn after the append: %v", err)
	}
	if len(ids) == 0 || ids[0] != turn.ID {
		t.Fatalf("knn for the appended note's own embedding returned %v, want note %d first", ids, turn.ID)
	}
}

// Distances returns the exact cosine distance of every note to q, in id
// order (as vector.Recall takes them).
func Distances(notes []workload.Note, q []float32) []float64 {
	d := make([]float64, len(notes))
	for k, n := range notes {
		d[k] = vector.Distance(n.Emb, q)
	}
	return d
}
