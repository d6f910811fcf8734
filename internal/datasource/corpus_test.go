package datasource

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"manydb/internal/corpus"
	"manydb/internal/workload"
)

// testCorpus is a corpus of topics×per items of dims values: item i of
// topic t has the text "t<t> item <i>" and a vector of its own.
func testCorpus(t *testing.T, topics, per, dims int) *corpus.Corpus {
	t.Helper()
	c := &corpus.Corpus{Dims: dims}
	for tp := range topics {
		c.TopicNames = append(c.TopicNames, fmt.Sprint("topic ", tp))
		for i := range per {
			c.Texts = append(c.Texts, fmt.Sprintf("t%d item %d", tp, i))
			c.Topics = append(c.Topics, int32(tp))
			for d := range dims {
				c.Vecs = append(c.Vecs, float32(math.Sin(float64(len(c.Texts)*(d+1)))))
			}
		}
	}
	if err := corpus.Normalize(c.Vecs, dims); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCorpusStores: a store's notes are distinct items of its topics
// (storeTopics of them), its turns go on with more, its queries are
// held-out items no store holds, and Check knows each note.
func TestCorpusStores(t *testing.T) {
	c := testCorpus(t, 10, 200, 4)
	spec := workload.Spec{Objects: 300, TextLen: 300, Dims: 4}
	src, err := newCorpusSource(spec, workload.Data{Name: "test"}, c, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.CheckStores(50); err != nil {
		t.Fatal(err)
	}
	held := map[string]bool{}
	for i := range 50 {
		notes := make([]workload.Note, spec.Objects)
		src.Fill(i, notes)
		notes = append(notes, src.Turn(i, 1), src.Turn(i, 2))
		texts, topics := map[string]bool{}, map[string]bool{}
		for _, n := range notes {
			if texts[n.Text] {
				t.Fatalf("store %d holds %q twice", i, n.Text)
			}
			texts[n.Text], topics[strings.Fields(n.Text)[0]], held[n.Text] = true, true, true
			if err := src.Check(i, n.ID, workload.Note{ID: n.ID, Text: n.Text, Ts: n.Ts}); err != nil {
				t.Fatal(err)
			}
		}
		if len(topics) != storeTopics {
			t.Errorf("store %d's notes are of %d topics, want %d", i, len(topics), storeTopics)
		}
		if err := src.Check(i, 1, notes[1]); err == nil {
			t.Errorf("store %d: note 2 passed as note 1", i)
		}
	}
	for i := range 50 {
		e := src.Embeddings(i)
		q := e.Query(uint64(i), spec.Objects, make([]float32, 4))
		for k := range c.Len() {
			if held[c.Texts[k]] && equalVec(c.Vec(k), q) {
				t.Fatalf("store %d's query is %q, a note", i, c.Texts[k])
			}
		}
	}
}

func equalVec(a, b []float32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// TestCorpusTooSmall: a store that cannot be filled, and more stores
// than a file's agents, are refused saying what is needed.
func TestCorpusTooSmall(t *testing.T) {
	c := testCorpus(t, 3, 20, 2)
	src, _ := newCorpusSource(workload.Spec{Objects: 100, TextLen: 300}, workload.Data{Name: "test"}, c, false)
	if err := src.CheckStores(1); err == nil || !strings.Contains(err.Error(), "--objects asks for 100") {
		t.Errorf("60 items, 100 notes a store: %v", err)
	}
	agents, _ := newCorpusSource(workload.Spec{Objects: 10, TextLen: 300}, workload.Data{Name: "test"}, c, true)
	if err := agents.CheckStores(4); err == nil || !strings.Contains(err.Error(), "3 agents, --stores asks for 4") {
		t.Errorf("3 agents, 4 stores: %v", err)
	}
	if err := agents.CheckStores(3); err != nil {
		t.Errorf("3 agents, 3 stores: %v", err)
	}
	if _, err := newCorpusSource(workload.Spec{Objects: 10, TextLen: 300, Dims: 3}, workload.Data{}, c, false); err == nil {
		t.Error("--dims 3 on a corpus of 2 dims: no error")
	}
}

// TestCorpusByAgent: store i holds the i-th agent's notes, texts cut at
// TextLen bytes on a character's start.
func TestCorpusByAgent(t *testing.T) {
	c := testCorpus(t, 2, 30, 2)
	c.Texts[0] = "héllo"
	src, _ := newCorpusSource(workload.Spec{Objects: 20, TextLen: 2}, workload.Data{Name: "test"}, c, true)
	notes := make([]workload.Note, 20)
	src.Fill(1, notes)
	for _, n := range notes {
		if n.Text != "t1" {
			t.Fatalf("store 1's note %q, want agent 1's (t1…) cut to 2 bytes", n.Text)
		}
	}
	if got := cutText("héllo", 2); got != "h" {
		t.Errorf("cutText(héllo, 2) = %q, want h", got)
	}
}

// TestReadyKeepsTheNotes: plans drawn once by Ready give every store the
// notes it has without them.
func TestReadyKeepsTheNotes(t *testing.T) {
	c := testCorpus(t, 10, 200, 4)
	spec := workload.Spec{Objects: 300, TextLen: 300}
	lazy, _ := newCorpusSource(spec, workload.Data{Name: "test"}, c, false)
	ready, _ := newCorpusSource(spec, workload.Data{Name: "test"}, c, false)
	Ready(ready, 5)
	if len(ready.plans) != 5 {
		t.Fatalf("Ready drew %d plans, want 5", len(ready.plans))
	}
	for i := range 7 { // two stores past the drawn ones
		a, b := make([]workload.Note, 300), make([]workload.Note, 300)
		lazy.Fill(i, a)
		ready.Fill(i, b)
		for k := range a {
			if a[k].Text != b[k].Text {
				t.Fatalf("store %d note %d: %q with Ready, %q without", i, k+1, b[k].Text, a[k].Text)
			}
		}
	}
}
