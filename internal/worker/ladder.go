package worker

import (
	"fmt"
	"time"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/vector"
)

// askLadder asks each open store, step by step of vector.Ladder, for more
// and more notes nearest to its hold query, keeps the first vector.K of
// each answer and records their recall: how many notes an application
// must ask an approximate search for to find the nearest. Each step asks
// every store before the next step starts, so that no step finds the
// pages the step before it read in a store just asked. It returns the
// steps and the time spent in the engine's knn calls. An exact search
// has no ladder (nil). open[k] is store order[k] (store k when order is
// nil).
func askLadder(j job.Job, loop *storeLoop, kq *knn, open []engine.Store, order []int, want int) ([]results.LadderStep, time.Duration, error) {
	if kq == nil || kq.exact {
		return nil, 0, nil
	}
	defer func(ask int) { kq.ask = ask }(kq.ask)
	var steps []results.LadderStep
	var took time.Duration
	for _, m := range vector.Ladder() {
		kq.ask = m * vector.K
		step := results.LadderStep{Asked: kq.ask, Ms: make([]float64, len(open)),
			Recall: make([]float64, len(open)), Returned: make([]int, len(open))}
		err := loop.eachStore(len(open), order, func(k, i int) error {
			kq.draw(holdSeed, i, want)
			start := time.Now()
			err := kq.run(open[k])
			d := time.Since(start)
			if err != nil {
				return storeError(j, i, fmt.Sprintf("knn asking for %d notes", kq.ask), err)
			}
			took += d
			step.Ms[k] = float64(d.Nanoseconds()) / 1e6
			step.Returned[k] = len(kq.ids)
			if step.Recall[k], err = kq.check(want); err != nil {
				return storeError(j, i, fmt.Sprintf("check the knn answer asking for %d notes", kq.ask), err)
			}
			return nil
		})
		if err != nil {
			return nil, 0, err
		}
		steps = append(steps, step)
	}
	return steps, took, nil
}
