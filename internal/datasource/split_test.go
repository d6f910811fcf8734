package datasource

import (
	"strings"
	"testing"

	"manydb/internal/workload"
)

// TestSplitStores: a split corpus gives its stores disjoint notes, every
// topic its share of the total, and queries of a store's own topics that
// no store holds.
func TestSplitStores(t *testing.T) {
	c := testCorpus(t, 10, 200, 4) // 190 notes and 10 queries a topic
	spec := workload.Spec{Objects: 50, TextLen: 300, Dims: 4, Split: true}
	src, err := newCorpusSource(spec, workload.Data{Name: "test"}, c, false)
	if err != nil {
		t.Fatal(err)
	}
	const stores = 30 // 1,500 of the 1,900 notes
	if err := src.CheckStores(stores); err != nil {
		t.Fatal(err)
	}
	if err := src.DrawPlans(stores); err != nil {
		t.Fatal(err)
	}
	owner := map[string]int{}
	perTopic := map[string]int{}
	for i := range stores {
		notes := make([]workload.Note, spec.Objects)
		src.Fill(i, notes)
		topics := map[string]bool{}
		for _, n := range notes {
			if j, ok := owner[n.Text]; ok {
				t.Fatalf("%q is in store %d and store %d", n.Text, j, i)
			}
			owner[n.Text] = i
			topic := strings.Fields(n.Text)[0]
			perTopic[topic]++
			topics[topic] = true
		}
		e := src.Embeddings(i)
		for seed := range uint64(20) {
			q := e.Query(seed, spec.Objects, make([]float32, 4))
			k := itemOf(t, c.Vecs, q)
			if _, isNote := owner[c.Texts[k]]; isNote || !topics[strings.Fields(c.Texts[k])[0]] {
				t.Fatalf("store %d's query %q is a note or of another topic (its topics %v)", i, c.Texts[k], topics)
			}
		}
	}
	for topic, n := range perTopic {
		if n != 150 { // 1,500 in 10 topics of 190 notes each
			t.Errorf("topic %s gave %d notes, want 150", topic, n)
		}
	}
}

// itemOf returns the corpus item whose vector is q.
func itemOf(t *testing.T, vecs, q []float32) int {
	t.Helper()
	for k := 0; k*len(q) < len(vecs); k++ {
		if equalVec(vecs[k*len(q):(k+1)*len(q)], q) {
			return k
		}
	}
	t.Fatalf("the query %v is no item of the corpus", q)
	return -1
}

// TestSplitRefused: more notes than the corpus holds, or a file whose
// lines name their agents, cannot be split.
func TestSplitRefused(t *testing.T) {
	c := testCorpus(t, 10, 200, 4)
	spec := workload.Spec{Objects: 100, TextLen: 300, Dims: 4, Split: true}
	src, err := newCorpusSource(spec, workload.Data{Name: "test"}, c, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.CheckStores(20); err == nil || !strings.Contains(err.Error(), "need 2000 distinct items and the corpus holds 1900") {
		t.Errorf("20 stores of 100 notes from 1,900: %v", err)
	}
	if err := src.DrawPlans(20); err == nil {
		t.Error("DrawPlans drew 20 stores of 100 notes from 1,900")
	}
	byAgent, err := newCorpusSource(spec, workload.Data{Name: "test"}, c, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := byAgent.CheckStores(2); err == nil || !strings.Contains(err.Error(), "name their agents") {
		t.Errorf("a split of a file by agents: %v", err)
	}
}
