package datasource

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"testing"

	"manydb/internal/workload"
)

// openVectors opens the synthetic source of s as Vectors.
func openVectors(t *testing.T, s workload.Spec) Vectors {
	t.Helper()
	src, err := Open(s)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := src.(Vectors)
	if !ok {
		t.Fatalf("%T is not Vectors", src)
	}
	return v
}

// TestSyntheticIsTheGenerator: the synthetic source's notes, turns,
// checks, embeddings and queries are those of workload.Spec's functions.
func TestSyntheticIsTheGenerator(t *testing.T) {
	for _, s := range []workload.Spec{
		{Objects: 40, TextLen: 300},
		{Objects: 30, TextLen: 700, Dims: 16},
		{Objects: 25, TextLen: 25, Dims: 32, TopicPool: 4, Spread: 0.5},
	} {
		src := openVectors(t, s)
		for _, i := range []int{0, 7, 12345} {
			got, want := make([]workload.Note, s.Objects), make([]workload.Note, s.Objects)
			src.Fill(i, got)
			s.Fill(i, want)
			for j := range want {
				if !sameNote(got[j], want[j]) {
					t.Fatalf("%+v store %d: Fill's note %d = %+v, want %+v", s, i, j, got[j], want[j])
				}
				if err := src.Check(i, want[j].ID, want[j]); err != nil {
					t.Fatal(err)
				}
			}
			turn := s.TurnNote(i, 3)
			if got := src.Turn(i, 3); !sameNote(got, turn) {
				t.Fatalf("%+v store %d: Turn = %+v, want %+v", s, i, got, turn)
			}
			if src.Check(i, turn.ID, turn) != nil || src.Check(i+1, turn.ID, turn) == nil {
				t.Fatalf("%+v store %d: Check does not tell store %d's turn from store %d's", s, i, i, i+1)
			}
			checkEmbeddings(t, s, src.Embeddings(i), s.Embedder(i))
		}
	}
}

// checkEmbeddings compares a store's embeddings and queries through the
// source with its workload.Embedder's.
func checkEmbeddings(t *testing.T, s workload.Spec, got Embeddings, want *workload.Embedder) {
	t.Helper()
	if want == nil {
		if got != nil {
			t.Fatalf("%+v: embeddings without --dims", s)
		}
		return
	}
	for id := int64(1); id <= int64(s.Objects)+2; id++ {
		if !slices.Equal(got.Note(id, make([]float32, s.Dims)), want.Note(id, make([]float32, s.Dims))) {
			t.Fatalf("%+v: note %d's embedding differs", s, id)
		}
	}
	for seed := uint64(1); seed <= 3; seed++ {
		q, _ := want.Query(seed, s.Objects, make([]float32, s.Dims))
		if !slices.Equal(got.Query(seed, s.Objects, make([]float32, s.Dims)), q) {
			t.Fatalf("%+v: the query of seed %d differs", s, seed)
		}
	}
}

// sameNote compares two notes, their embeddings included.
func sameNote(a, b workload.Note) bool {
	return a.ID == b.ID && a.Text == b.Text && a.Ts == b.Ts && slices.Equal(a.Emb, b.Emb)
}

// TestSyntheticBytes pins what the synthetic source gives to the hashes
// workload's tests pin (TestFillBytes, TestEmbeddingsUnchanged): the
// notes and embeddings every record so far was made with.
func TestSyntheticBytes(t *testing.T) {
	s := workload.Spec{Objects: 1000, TextLen: 300}
	notes := make([]workload.Note, s.Objects)
	openVectors(t, s).Fill(12345, notes)
	h := sha256.New()
	for _, n := range notes {
		fmt.Fprintf(h, "%d %d %s\n", n.ID, n.Ts, n.Text)
	}
	if got, want := fmt.Sprintf("%x", h.Sum(nil)[:8]), "761fd84a8c7ce9c0"; got != want {
		t.Errorf("notes of store 12345 hash to %s, want %s", got, want)
	}
	s = workload.Spec{Objects: 50, TextLen: 40, Dims: 16}
	src := openVectors(t, s)
	h = sha256.New()
	for _, agent := range []int{0, 3, 9999} {
		notes := make([]workload.Note, s.Objects)
		src.Fill(agent, notes)
		for _, n := range notes {
			writeFloats(h, n.Emb)
		}
		writeFloats(h, src.Embeddings(agent).Query(7, s.Objects, make([]float32, s.Dims)))
	}
	if got, want := fmt.Sprintf("%x", h.Sum(nil)), "519f82f34b082ce94eb842da081659da070ed16ffeb583d2fdf0bbb2ffa64826"; got != want {
		t.Errorf("embeddings hash %s, want %s", got, want)
	}
}

func writeFloats(h interface{ Write([]byte) (int, error) }, v []float32) {
	for _, x := range v {
		binary.Write(h, binary.LittleEndian, math.Float32bits(x))
	}
}
