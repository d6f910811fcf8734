package worker

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// TestSpreadVisitsEachOnce: every index is visited once, by a goroutine
// whose number is below lanes.
func TestSpreadVisitsEachOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100} {
		seen := make([]atomic.Int32, n)
		err := spread(n, func(g, i int) error {
			if g < 0 || g >= lanes(n) {
				return fmt.Errorf("goroutine %d of %d", g, lanes(n))
			}
			seen[i].Add(1)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d visited %d times", n, i, c)
			}
		}
	}
}

// TestSpreadReturnsTheLowestFailure: of several failing indices, the
// lowest one's error is returned, whichever goroutine met it.
func TestSpreadReturnsTheLowestFailure(t *testing.T) {
	fail := map[int]bool{5: true, 6: true, 40: true}
	err := spread(50, func(_, i int) error {
		if fail[i] {
			return fmt.Errorf("index %d", i)
		}
		return nil
	})
	if err == nil || err.Error() != "index 5" {
		t.Fatalf("spread returned %v, want index 5's error", err)
	}
	sentinel := errors.New("x")
	if err := spread(3, func(_, i int) error { return sentinel }); !errors.Is(err, sentinel) {
		t.Fatalf("spread returned %v, want the error fn returned", err)
	}
}
