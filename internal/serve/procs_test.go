package serve

import (
	"slices"
	"testing"
)

// TestLRUHits: a pool of 2 served one request at a time: 1 2 1 3 1 2
// hits on the third and fifth request; a pool of 0 never hits.
func TestLRUHits(t *testing.T) {
	seq := []int{1, 2, 1, 3, 1, 2}
	if got := LRUHits(nil, seq, 2); got != 2 {
		t.Errorf("pool 2: %d hits, want 2", got)
	}
	if got := LRUHits(seq[:3], seq[3:], 2); got != 1 {
		t.Errorf("pool 2 after a warm-up of 1 2 1: %d hits of 3 1 2, want 1", got)
	}
	if got := LRUHits(nil, seq, 0); got != 0 {
		t.Errorf("pool 0: %d hits", got)
	}
}

// TestPoolIsAnLRU: with one goroutine the pool hits exactly as the LRU
// does, for several pool sizes.
func TestPoolIsAnLRU(t *testing.T) {
	for _, pool := range []int{1, 5, 40} {
		c := Config{Stores: 100, Requests: 2000, Warmup: 100, Concurrency: 1, Pool: pool, Zipf: 1.1, Seed: 7}
		res, err := Run(c, newFake(c.Stores).funcs())
		if err != nil {
			t.Fatal(err)
		}
		warm, recorded := c.Agents()
		if want := LRUHits(warm, recorded, pool); res.Hits != want {
			t.Errorf("pool %d: %d hits, the LRU %d", pool, res.Hits, want)
		}
	}
}

// TestSharesSplitTheSequence: three processes' shares of one sequence
// hold every request once, each for its own consecutive agents, in the
// sequence's order; their pools hit as the split LRU does.
func TestSharesSplitTheSequence(t *testing.T) {
	c := Config{Stores: 100, Requests: 3000, Warmup: 150, Concurrency: 3, Pool: 30, Zipf: 1.1, Seed: 3}
	whole, wholeRec := c.Agents()
	var warm, recorded []int
	for p := range 3 {
		s := c
		s.Procs, s.Proc, s.Pool, s.Concurrency = 3, p, 10, 1
		w, r := s.Agents()
		lo, hi := p*100/3, (p+1)*100/3
		for _, a := range slices.Concat(w, r) {
			if a < lo || a >= hi {
				t.Fatalf("process %d of 3 serves agent %d, outside %d…%d", p, a, lo, hi-1)
			}
		}
		warm, recorded = append(warm, w...), append(recorded, r...)
		res, err := Run(s, newFake(s.Stores).funcs())
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != len(r) || res.Warmup != len(w) || res.Hits != LRUHits(w, r, 10) {
			t.Errorf("process %d: %d requests, %d warm-up, %d hits; want %d, %d and the LRU's %d", p, res.Requests, res.Warmup, res.Hits, len(r), len(w), LRUHits(w, r, 10))
		}
	}
	slices.Sort(warm)
	slices.Sort(recorded)
	whole, wholeRec = slices.Clone(whole), slices.Clone(wholeRec)
	slices.Sort(whole)
	slices.Sort(wholeRec)
	if !slices.Equal(warm, whole) || !slices.Equal(recorded, wholeRec) {
		t.Error("the shares' requests are not the sequence's")
	}
	c.Procs, c.Rate = 2, 100
	if err := c.Validate(); err == nil {
		t.Error("an open loop split over processes was accepted")
	}
}
