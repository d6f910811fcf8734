package datasource

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// A split corpus (workload.Spec.Split, manydb sweep) gives a job's stores
// disjoint parts of one pool, so that a fixed total of notes is divided
// among however many agents: the pool takes from every topic its share of
// the total (topics in proportion to their notes), its items grouped by
// topic; store i holds the i-th run of Spec.Objects items. With few stores
// an agent spans several topics; with many, a topic's items are divided
// among many agents, each the nearest neighbour of the others' notes.

// splitPool returns the pool the stores of a split corpus divide:
// stores × Spec.Objects items in topic order, each topic's share of the
// total rounded by largest remainder, or an error saying the corpus is
// too small.
func (src *corpusSource) splitPool(stores int) ([]int32, error) {
	total, have := stores*src.spec.Objects, 0
	for _, items := range src.notes {
		have += len(items)
	}
	if total > have {
		return nil, fmt.Errorf("%d stores of %d notes need %d distinct items and the corpus holds %d that are not queries: give fewer notes in all",
			stores, src.spec.Objects, total, have)
	}
	quota := make([]int, len(src.notes))
	left := total
	for t, items := range src.notes {
		quota[t] = total * len(items) / have
		left -= quota[t]
	}
	for _, t := range largestRemainders(src.notes, total, have)[:left] {
		quota[t]++
	}
	pool := make([]int32, 0, total)
	for t, items := range src.notes {
		pool = append(pool, items[:quota[t]]...)
	}
	return pool, nil
}

// largestRemainders orders the topics by the remainder of their exact
// share of total (largest first, then by topic), the ones that get one
// more item when the shares are rounded down.
func largestRemainders(notes [][]int32, total, have int) []int {
	order := make([]int, len(notes))
	rem := make([]int, len(notes))
	for t, items := range notes {
		order[t], rem[t] = t, total*len(items)%have
	}
	slices.SortStableFunc(order, func(a, b int) int { return rem[b] - rem[a] })
	return order
}

// drawSplitPlans gives store i of stores the i-th run of the pool.
func (src *corpusSource) drawSplitPlans(stores int) error {
	pool, err := src.splitPool(stores)
	if err != nil {
		return err
	}
	src.plans = make([]storePlan, stores)
	for i := range src.plans {
		run := pool[i*src.spec.Objects : (i+1)*src.spec.Objects : (i+1)*src.spec.Objects]
		r := rand.New(rand.NewPCG(uint64(i), poolSeed))
		src.plans[i] = storePlan{run: run, size: len(run), querySeed: r.Uint64()}
	}
	return nil
}

// splitQuery is a query of a split store: a held-out item of the topic of
// one of its notes, drawn by r (a store's topics weighted by its notes).
func (e corpusEmbeddings) splitQuery(r *rand.Rand, dst []float32) []float32 {
	item := e.p.run[r.IntN(len(e.p.run))]
	pool := e.src.queries[e.src.c.Topics[item]]
	if len(pool) == 0 { // a topic of one item
		return append(dst[:0], e.src.c.Vec(int(item))...)
	}
	return append(dst[:0], e.src.c.Vec(int(pool[r.IntN(len(pool))]))...)
}
