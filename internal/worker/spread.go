package worker

import (
	"runtime"
	"sync"
)

// spread calls fn(g, i) for every i in [0, n) from up to GOMAXPROCS
// goroutines, goroutine g taking every lanes-th i from g (lanes as
// returned by lanes(n)), so that fn may keep state per goroutine. It is
// for manydb's own work on the stores' files outside the timed loops
// (reading them into the page cache, sampling their residency, evicting
// them, measuring their space), never inside one.
// A goroutine stops at its first error; spread returns the error of the
// lowest i that failed.
func spread(n int, fn func(g, i int) error) error {
	k := lanes(n)
	errs := make([]error, k)
	failed := make([]int, k)
	var wg sync.WaitGroup
	for g := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += k {
				if err := fn(g, i); err != nil {
					errs[g], failed[g] = err, i
					return
				}
			}
		}()
	}
	wg.Wait()
	first := -1
	for g, err := range errs {
		if err != nil && (first < 0 || failed[g] < failed[first]) {
			first = g
		}
	}
	if first < 0 {
		return nil
	}
	return errs[first]
}

// lanes is the number of goroutines spread uses for n items: GOMAXPROCS,
// at most n, at least 1.
func lanes(n int) int { return max(1, min(runtime.GOMAXPROCS(0), n)) }
