package workload

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
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

// embeddingsHash hashes the embeddings of three agents' notes and one
// query each.
func embeddingsHash(s Spec) string {
	h := sha256.New()
	for _, agent := range []int{0, 3, 9999} {
		notes := make([]Note, s.Objects)
		s.Fill(agent, notes)
		for _, n := range notes {
			for _, x := range n.Emb {
				binary.Write(h, binary.LittleEndian, math.Float32bits(x))
			}
		}
		q, _ := s.Embedder(agent).Query(7, s.Objects, make([]float32, s.Dims))
		for _, x := range q {
			binary.Write(h, binary.LittleEndian, math.Float32bits(x))
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestEmbeddingsUnchanged: without a topic pool and with the default
// spread (given or not) the embeddings are those every record so far was
// made with (the hash of the code before the pool existed).
func TestEmbeddingsUnchanged(t *testing.T) {
	const before = "519f82f34b082ce94eb842da081659da070ed16ffeb583d2fdf0bbb2ffa64826"
	for _, s := range []Spec{{Objects: 50, TextLen: 40, Dims: 16}, {Objects: 50, TextLen: 40, Dims: 16, Spread: NoteSpread}} {
		if got := embeddingsHash(s); got != before {
			t.Errorf("%+v: embeddings hash %s, want %s", s, got, before)
		}
	}
	if got := embeddingsHash(Spec{Objects: 50, TextLen: 40, Dims: 16, TopicPool: 4}); got == before {
		t.Error("a topic pool changed nothing")
	}
}

// sharedTopicCosine is the mean cosine between notes of agents a and b
// whose topics draw the same pool centre, and the number of such pairs.
func sharedTopicCosine(s Spec, a, b int) (float64, int) {
	ea, eb := s.Embedder(a), s.Embedder(b)
	var sum float64
	n := 0
	for id := int64(1); id <= int64(s.Objects); id++ {
		for jd := int64(1); jd <= int64(s.Objects); jd++ {
			if ea.PoolTopic(topicOf(ea, id)) == eb.PoolTopic(topicOf(eb, jd)) {
				sum += cosine(ea.Note(id, make([]float32, s.Dims)), eb.Note(jd, make([]float32, s.Dims)))
				n++
			}
		}
	}
	return sum / float64(max(n, 1)), n
}

// topicOf is the topic note id of e's agent draws (as Note draws it).
func topicOf(e *Embedder, id int64) int {
	r := rng(uint64(e.agent), streamNote, uint64(id))
	return int(r.next() % uint64(len(e.centres)))
}

// TestTopicPool: with a pool, agents write about the same topics: notes of
// two agents on one pool centre are as near as two notes of one topic
// (cosine about 1/(1+σ²)); without one, two agents' notes are unrelated.
func TestTopicPool(t *testing.T) {
	pooled := Spec{Objects: 60, TextLen: 40, Dims: 256, TopicPool: 3}
	c, n := sharedTopicCosine(pooled, 1, 2)
	if n == 0 || c < 0.4 || c > 0.6 {
		t.Fatalf("pool of 3: %d pairs of notes on one centre, mean cosine %.3f; want some, about 0.5", n, c)
	}
	for agent := range 50 {
		e := pooled.Embedder(agent)
		for topic := range e.Topics() {
			if p := e.PoolTopic(topic); p < 0 || p >= pooled.TopicPool {
				t.Fatalf("agent %d topic %d draws pool centre %d of %d", agent, topic, p, pooled.TopicPool)
			}
		}
	}
	own := Spec{Objects: 60, TextLen: 40, Dims: 256}
	a, b := own.Embedder(1), own.Embedder(2)
	var mean float64
	for id := int64(1); id <= 60; id++ {
		mean += cosine(a.Note(id, make([]float32, 256)), b.Note(id, make([]float32, 256))) / 60
	}
	if math.Abs(mean) > 0.05 || a.PoolTopic(0) != -1 {
		t.Fatalf("no pool: mean cosine between two agents' notes %.3f, want about 0 (pool topic %d, want -1)", mean, a.PoolTopic(0))
	}
}

// TestNoteSpread: a tighter spread puts a topic's notes nearer each other,
// at about 1/(1+σ²).
func TestNoteSpread(t *testing.T) {
	s := Spec{Objects: 80, TextLen: 40, Dims: 256, Spread: 0.5}
	e := s.Embedder(5)
	var sum float64
	n := 0
	for id := int64(1); id <= 80; id++ {
		for jd := id + 1; jd <= 80; jd++ {
			if topicOf(e, id) == topicOf(e, jd) {
				sum += cosine(e.Note(id, make([]float32, 256)), e.Note(jd, make([]float32, 256)))
				n++
			}
		}
	}
	if c := sum / float64(n); n == 0 || c < 0.75 || c > 0.85 {
		t.Fatalf("σ 0.5: %d pairs of one topic, mean cosine %.3f, want about 0.8", n, c)
	}
}
