package abtest

import "math"

// maxRounds bounds RoundsFor's answer: past it, no budget would decide.
const maxRounds = 1_000_000

// RoundsFor is about how many rounds in all e's figure needs for a
// verdict against δ, judged in a family of the given number of figures
// (1: alone), if the ratio and the spread stay what they are so far: the
// fewest n whose interval would lie within ±δ (same) or, for a ratio
// past ±δ, exclude 1 at Alpha/family (different: the bar Holm's method
// sets for the family's most certain figure, the highest of its bars, so
// enough whatever the other figures' p-values).
// It is e.Rounds for a figure already decided, and false when no number
// of rounds would decide it (a ratio right at the edge of ±δ) or it
// would take over a million.
func (e Estimate) RoundsFor(delta float64, family int) (int, bool) {
	family = max(family, 1)
	if e.JudgeWith(delta, min(1, e.P*float64(family))) != Unknown {
		return e.Rounds, true
	}
	m, edge := math.Abs(math.Log(e.Ratio)), math.Log(1+delta)
	switch {
	case m < edge: // toward same: the 90 % interval inside ±δ
		return roundsUntil(e.SDLog, edge-m, 0.95, e.Rounds)
	case m > edge: // toward different: the interval at Alpha/family off 1
		return roundsUntil(e.SDLog, m, 1-Alpha/float64(2*family), e.Rounds)
	}
	return 0, false
}

// roundsUntil is the fewest n above have whose t-interval half-width
// t(p, n−1)·sd/√n is at most margin: first from the normal quantile,
// then step by step while Student's t is wider.
func roundsUntil(sd, margin, p float64, have int) (int, bool) {
	if sd == 0 {
		return have + 1, true
	}
	z := tQuantile(p, maxRounds)
	n := max(have+1, int(math.Ceil(math.Pow(z*sd/margin, 2))))
	for ; n <= maxRounds; n++ {
		if tQuantile(p, n-1)*sd/math.Sqrt(float64(n)) <= margin {
			return n, true
		}
	}
	return 0, false
}
