package worker

import (
	"io"
	"math"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// vectorJob returns a fake job of 12 stores of 30 notes with embeddings of
// 32 values, its stores created.
func vectorJob(t *testing.T) job.Job {
	t.Helper()
	j := fakeJob(t, job.PhaseCreate)
	j.Workload = workload.Spec{Name: "small-custom", Objects: 30, TextLen: 40, Dims: 32}
	rec, err := RunJob(j, newFake(t, "fake"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rec.VectorSearch == "" || !rec.VectorExact {
		t.Fatalf("create record: vector_search %q, exact %v; want the fake's exact scan", rec.VectorSearch, rec.VectorExact)
	}
	return j
}

// TestKNNQuery: an open run with knn records one recall per store, 1 for
// an exact search; a wrong exact answer fails the phase; an index's
// misses are recorded as its recall, not failed.
func TestKNNQuery(t *testing.T) {
	j := vectorJob(t)
	j.Phase, j.Run, j.Seed = job.PhaseOpen, 1, 1
	j.Queries = []job.Query{job.QueryCount, job.QueryKNN, job.QueryRecent}
	rec, err := RunJob(j, newFake(t, "fake"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Recall) != j.Stores || len(rec.QueriesMs[job.QueryKNN]) != j.Stores {
		t.Fatalf("%d recalls and %d knn samples, want %d each", len(rec.Recall), len(rec.QueriesMs[job.QueryKNN]), j.Stores)
	}
	for k, r := range rec.Recall {
		if r != 1 {
			t.Errorf("store %d: recall %v from an exact search, want 1", k, r)
		}
	}
	if _, err := RunJob(j, newFake(t, "fake_wrongknn"), io.Discard); err == nil || !strings.Contains(err.Error(), ": knn: ") {
		t.Errorf("a wrong exact answer: err = %v, want the knn query to fail the phase", err)
	}
	rec, err = RunJob(j, newFake(t, "fake_approxknn"), io.Discard)
	if err != nil {
		t.Fatalf("an index's misses failed the phase: %v", err)
	}
	for k, r := range rec.Recall {
		if r != 0.9 || rec.KNNReturned[k] != 10 {
			t.Errorf("store %d: the fake index's recall %v of %d ids, want 0.9 of 10", k, r, rec.KNNReturned[k])
		}
	}
	// A short answer is scored, and its length recorded beside it.
	rec, err = RunJob(j, newFake(t, "fake_shortknn"), io.Discard)
	if err != nil {
		t.Fatalf("an index's short answer failed the phase: %v", err)
	}
	if len(rec.KNNReturned) != j.Stores {
		t.Fatalf("%d answer lengths, want %d", len(rec.KNNReturned), j.Stores)
	}
	for k, r := range rec.Recall {
		if r != 0.7 || rec.KNNReturned[k] != 7 {
			t.Errorf("store %d: a short answer's recall %v of %d ids, want 0.7 of 7", k, r, rec.KNNReturned[k])
		}
	}
	// Without embeddings the knn query is refused.
	plain := created(t)
	plain.Phase, plain.Run, plain.Seed, plain.Queries = job.PhaseOpen, 1, 1, []job.Query{job.QueryKNN}
	if _, err := RunJob(plain, newFake(t, "fake"), io.Discard); err == nil {
		t.Error("knn ran on stores without embeddings")
	}
}

// TestKNNTurn: a turn with embeddings recalls first (knn, recent, append),
// checks the knn against the notes before the append, and the next turn's
// knn sees the appended note's embedding.
func TestKNNTurn(t *testing.T) {
	j := vectorJob(t)
	for turn := 1; turn <= 2; turn++ {
		j.Phase, j.Run, j.Seed, j.Appended = job.PhaseTurn, turn, uint64(turn), turn-1
		rec, err := RunJob(j, newFake(t, "fake"), io.Discard)
		if err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		if len(rec.Queries) != 3 || rec.Queries[0] != job.QueryKNN || len(rec.Recall) != j.Stores {
			t.Fatalf("turn %d: queries %v, %d recalls; want knn, recent, append and %d", turn, rec.Queries, len(rec.Recall), j.Stores)
		}
	}
	j.Phase, j.Run, j.Seed, j.Appended = job.PhaseTurn, 3, 3, 2
	if _, err := RunJob(j, newFake(t, "fake_wrongknn"), io.Discard); err == nil || !strings.Contains(err.Error(), "knn") {
		t.Errorf("a wrong exact answer in a turn: err = %v, want a knn failure", err)
	}
}

// TestKNNHoldAndServe: the hold asks every held store a knn query (its
// recall recorded), and serve's requests check their knn answers.
func TestKNNHoldAndServe(t *testing.T) {
	j := vectorJob(t)
	j.Phase, j.Hold = job.PhaseHold, 5
	rec, err := RunJob(j, newFake(t, "fake"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Recall) != 5 || rec.Recall[0] != 1 {
		t.Fatalf("hold recalls %v, want 5 of 1", rec.Recall)
	}
	if _, err := RunJob(j, newFake(t, "fake_wrongknn"), io.Discard); err == nil {
		t.Error("a hold with wrong knn answers passed")
	}
	j.Phase, j.Seed = job.PhaseServe, 1
	j.Serve = job.Serve{Pool: 2, Requests: 40, Concurrency: 2, Zipf: 1.1}
	if _, err := RunJob(j, newFake(t, "fake"), io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := RunJob(j, newFake(t, "fake_wrongknn"), io.Discard); err == nil || !strings.Contains(err.Error(), "knn") {
		t.Errorf("serve with wrong knn answers: err = %v, want a knn failure", err)
	}
}

// TestPrepareVectorsOnlyWithEmbeddings: the worker prepares the variant
// for embeddings (engine.VectorPreparer) once, and only for a workload
// that has them.
func TestPrepareVectorsOnlyWithEmbeddings(t *testing.T) {
	plain := fakeJob(t, job.PhaseCreate)
	v := newFake(t, "fake")
	if _, err := RunJob(plain, v, io.Discard); err != nil {
		t.Fatal(err)
	}
	if n := v.Prepared(); n != 0 {
		t.Errorf("a workload without embeddings prepared the variant %d times, want 0", n)
	}
	vec := fakeJob(t, job.PhaseCreate)
	vec.Workload.Dims = 8
	v = newFake(t, "fake")
	if _, err := RunJob(vec, v, io.Discard); err != nil {
		t.Fatal(err)
	}
	if n := v.Prepared(); n != 1 {
		t.Errorf("a workload with embeddings prepared the variant %d times, want 1", n)
	}
}

// TestKNNOversample: an approximate search (fake_shortknn answers 3 fewer
// notes than asked) asked for 4 × 10 notes keeps the first 10: no short
// answer, its recall recorded, the notes asked named; an exact search
// always asks for 10.
func TestKNNOversample(t *testing.T) {
	j := vectorJob(t)
	j.Phase, j.Run, j.Seed = job.PhaseOpen, 1, 1
	j.Queries = []job.Query{job.QueryKNN}
	for _, m := range []int{0, 4} {
		j.KNNOversample = m
		rec, err := RunJob(j, newFake(t, "fake_shortknn"), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		want, asked := 7, 0
		if m == 4 {
			want, asked = 10, 40
		}
		if rec.KNNAsked != asked {
			t.Errorf("oversample %d: knn_asked %d, want %d", m, rec.KNNAsked, asked)
		}
		for k, n := range rec.KNNReturned {
			if n != want {
				t.Fatalf("oversample %d: store %d's answer held %d ids, want %d", m, k, n, want)
			}
		}
	}
	j.KNNOversample = 4
	rec, err := RunJob(j, newFake(t, "fake"), io.Discard)
	if err != nil || rec.KNNAsked != 0 {
		t.Fatalf("exact search with oversample 4: %v, knn_asked %d; want 10 asked (0 recorded)", err, rec.KNNAsked)
	}
}

// TestHoldLadder: after its snapshot the hold asks an approximate search
// (fake_shortknn answers 3 fewer notes than asked) for each step of
// vector.Ladder's notes: asking for 10 recalls 7 of the 10 nearest, asking
// for 20 or more all 10, one sample per held store; an exact search has
// no ladder.
func TestHoldLadder(t *testing.T) {
	j := vectorJob(t)
	j.Phase, j.Hold = job.PhaseHold, 4
	rec, err := RunJob(j, newFake(t, "fake_shortknn"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	steps := rec.Hold.Ladder
	if len(steps) != len(vector.Ladder()) {
		t.Fatalf("%d ladder steps, want %d", len(steps), len(vector.Ladder()))
	}
	for k, s := range steps {
		want, kept := 1.0, vector.K
		if k == 0 {
			want, kept = 0.7, 7
		}
		if s.Asked != vector.Ladder()[k]*vector.K || len(s.Ms) != 4 || len(s.Recall) != 4 {
			t.Fatalf("step %d: asked %d with %d times and %d recalls, want %d asked of 4 stores", k, s.Asked, len(s.Ms), len(s.Recall), vector.Ladder()[k]*vector.K)
		}
		for i := range 4 {
			if math.Abs(s.Recall[i]-want) > 1e-9 || s.Returned[i] != kept {
				t.Errorf("step %d (asked %d), store %d: recall %v with %d kept, want %v with %d", k, s.Asked, i, s.Recall[i], s.Returned[i], want, kept)
			}
		}
	}
	exact, err := RunJob(j, newFake(t, "fake"), io.Discard)
	if err != nil || exact.Hold.Ladder != nil {
		t.Errorf("exact search: %v, ladder %v; want none", err, exact.Hold.Ladder)
	}
}
