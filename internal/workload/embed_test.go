package workload

import (
	"math"
	"slices"
	"testing"
)

func cosine(a, b []float32) float64 {
	var d float64
	for k := range a {
		d += float64(a[k]) * float64(b[k])
	}
	return d
}

// TestEmbeddings checks the synthetic embeddings: unit vectors, the same
// from Fill, TurnNote and the Embedder, clustered by topic (notes of one
// topic near each other, of two topics far apart), and a query near the
// note it was drawn from.
func TestEmbeddings(t *testing.T) {
	s := Spec{Objects: 200, TextLen: 40, Dims: 384}
	notes := make([]Note, s.Objects)
	s.Fill(3, notes)
	e := s.Embedder(3)
	if e.Topics() < MinTopics || e.Topics() > MaxTopics {
		t.Fatalf("%d topics, want %d..%d", e.Topics(), MinTopics, MaxTopics)
	}
	for _, n := range notes {
		if len(n.Emb) != s.Dims {
			t.Fatalf("note %d has %d values, want %d", n.ID, len(n.Emb), s.Dims)
		}
		if l := cosine(n.Emb, n.Emb); math.Abs(l-1) > 1e-5 {
			t.Fatalf("note %d has norm² %v, want 1", n.ID, l)
		}
		if again := e.Note(n.ID, make([]float32, s.Dims)); !slices.Equal(again, n.Emb) {
			t.Fatalf("note %d: the Embedder and Fill disagree", n.ID)
		}
	}
	if other := s.Embedder(4).Note(1, make([]float32, s.Dims)); slices.Equal(other, notes[0].Emb) {
		t.Fatal("agents 3 and 4 have the same first embedding")
	}
	turn := s.TurnNote(3, 1)
	if want := e.Note(int64(s.Objects+1), make([]float32, s.Dims)); !slices.Equal(turn.Emb, want) {
		t.Fatal("the turn note's embedding is not the Embedder's for its id")
	}
	// Clustered: the nearest other note of each note is far nearer than
	// the mean pair (random directions in 384 dimensions have cosine ~0).
	var nearest, mean float64
	for i, a := range notes {
		best := -1.0
		for j, b := range notes {
			if i != j {
				c := cosine(a.Emb, b.Emb)
				best = max(best, c)
				mean += c
			}
		}
		nearest += best
	}
	nearest /= float64(len(notes))
	mean /= float64(len(notes) * (len(notes) - 1))
	if nearest < 0.4 || mean > 0.2 {
		t.Fatalf("mean cosine to the nearest note %.3f (want > 0.4), mean cosine %.3f (want < 0.2): not clustered", nearest, mean)
	}
	q, from := e.Query(9, s.Objects, make([]float32, s.Dims))
	if from < 1 || from > int64(s.Objects) {
		t.Fatalf("query drawn near note %d, not a note of the store", from)
	}
	if c := cosine(q, notes[from-1].Emb); c < 0.8 {
		t.Fatalf("query's cosine with its note %.3f, want > 0.8", c)
	}
	if q2, from2 := e.Query(9, s.Objects, make([]float32, s.Dims)); from2 != from || !slices.Equal(q, q2) {
		t.Fatal("the same seed drew another query")
	}
	if _, from3 := e.Query(10, s.Objects, make([]float32, s.Dims)); from3 == from {
		// Two seeds may pick the same note by chance; a third must differ.
		if _, from4 := e.Query(11, s.Objects, make([]float32, s.Dims)); from4 == from {
			t.Fatal("three seeds drew the same note")
		}
	}
}

// TestNoEmbeddingsWithoutDims: the reference's workload has none.
func TestNoEmbeddingsWithoutDims(t *testing.T) {
	s := Spec{Objects: 3, TextLen: 40}
	notes := make([]Note, s.Objects)
	s.Fill(0, notes)
	if notes[0].Emb != nil || s.Embedder(0) != nil || s.TurnNote(0, 1).Emb != nil {
		t.Fatal("embeddings without --dims")
	}
}

// BenchmarkEmbedStore: the embeddings of one store of 1,000 notes of 384
// values, which the worker makes again for every knn answer it checks.
func BenchmarkEmbedStore(b *testing.B) {
	s := Spec{Objects: 1000, TextLen: 300, Dims: 384}
	dst := make([]float32, s.Dims)
	for b.Loop() {
		e := s.Embedder(7)
		for id := range int64(s.Objects) {
			e.Note(id+1, dst)
		}
	}
}
