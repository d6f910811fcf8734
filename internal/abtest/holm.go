package abtest

import (
	"cmp"
	"slices"
)

// HolmAdjust adjusts the p-values of figures judged together by Holm's
// step-down method, so that calling different each figure whose adjusted
// p-value is under Alpha calls any figure different, when none is, with
// a chance of at most Alpha, however many figures there are and however
// they move together. The i-th smallest of m p-values becomes
// (m − i + 1)·p, at least the adjusted value before it, at most 1; the
// answer is in the order of ps.
func HolmAdjust(ps []float64) []float64 {
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ps[a], ps[b]) })
	out := make([]float64, len(ps))
	running := 0.0
	for rank, i := range order {
		running = max(running, min(1, float64(len(ps)-rank)*ps[i]))
		out[i] = running
	}
	return out
}
