package vector

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	a, b := []float32{1, 0}, []float32{0, 2}
	if d := Distance(a, a); math.Abs(d) > 1e-12 {
		t.Fatalf("Distance(a, a) = %v, want 0", d)
	}
	if d := Distance(a, b); math.Abs(d-1) > 1e-12 {
		t.Fatalf("orthogonal: %v, want 1", d)
	}
	if d := Distance(a, []float32{-3, 0}); math.Abs(d-2) > 1e-12 {
		t.Fatalf("opposite: %v, want 2", d)
	}
}

func TestBlobRoundTrip(t *testing.T) {
	v := []float32{1.5, -2, 0, float32(math.Pi)}
	b := AppendBlob(nil, v)
	if len(b) != 16 {
		t.Fatalf("%d bytes, want 16", len(b))
	}
	got, err := FromBlob(b, nil)
	if err != nil || !slices.Equal(got, v) {
		t.Fatalf("FromBlob = %v, %v; want %v", got, err, v)
	}
	if _, err := FromBlob(b[:5], nil); err == nil {
		t.Fatal("a 5-byte blob decoded")
	}
}

// TestTopKIsExact compares TopK with a full sort.
func TestTopKIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	d := make([]float64, 500)
	top := NewTopK(K)
	for i := range d {
		d[i] = r.Float64()
		top.Offer(int64(i+1), d[i])
	}
	got := top.AppendIDs(nil)
	ids := make([]int64, len(d))
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	slices.SortFunc(ids, func(a, b int64) int {
		if d[a-1] < d[b-1] {
			return -1
		}
		return 1
	})
	if !slices.Equal(got, ids[:K]) {
		t.Fatalf("TopK %v, want %v", got, ids[:K])
	}
	if r := Recall(K, d, got); r != 1 {
		t.Fatalf("recall of the exact answer %v, want 1", r)
	}
	top.Reset()
	if len(top.AppendIDs(nil)) != 0 {
		t.Fatal("Reset kept candidates")
	}
}

func TestRecall(t *testing.T) {
	d := []float64{0.5, 0.1, 0.3, 0.2, 0.4} // ids 2, 4, 3 are the 3 nearest
	cases := []struct {
		got  []int64
		want float64
	}{
		{[]int64{2, 4, 3}, 1},
		{[]int64{3, 2, 4}, 1},       // order does not matter
		{[]int64{2, 4, 5}, 2.0 / 3}, // one miss
		{[]int64{2, 2, 2}, 1.0 / 3}, // duplicates count once
		{[]int64{2, 9, 0}, 1.0 / 3}, // ids outside the store miss
		{[]int64{2}, 1.0 / 3},       // fewer than k
		{nil, 0},
	}
	for _, c := range cases {
		if got := Recall(3, d, c.got); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Recall(%v) = %v, want %v", c.got, got, c.want)
		}
	}
	// A note tied with the k-th within Tolerance counts as a hit.
	tied := []float64{0.1, 0.2, 0.2 + Tolerance/2}
	if got := Recall(2, tied, []int64{1, 3}); got != 1 {
		t.Errorf("tied recall %v, want 1", got)
	}
}

func TestCheckAnswer(t *testing.T) {
	if err := CheckAnswer(3, 5, []int64{1, 2, 3}, true); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]int64{{1, 2}, {1, 1, 2}, {1, 2, 6}, {0, 1, 2}, {1, 2, 3, 4}} {
		if err := CheckAnswer(3, 5, bad, true); err == nil {
			t.Errorf("exact answer %v accepted", bad)
		}
	}
	if err := CheckAnswer(3, 5, []int64{1, 2}, false); err != nil {
		t.Errorf("an index's short answer refused: %v", err)
	}
	if err := CheckAnswer(3, 2, []int64{1, 2}, true); err != nil {
		t.Errorf("a store of 2 notes answered with both refused: %v", err)
	}
}
