// Package abtest judges whether B differs from A from interleaved
// rounds: each round measures A and B back to back (in fresh processes,
// the same stores and seed), and what is judged is each round's ratio
// B/A of a figure, so that a machine's drift between rounds, which moves
// both sides of a round together, cancels. The answer per figure is the
// geometric mean of the rounds' ratios with its confidence intervals
// (Student's t over the ratios' logarithms) and a verdict against δ, the
// smallest change that matters (at least what this machine resolves,
// measured by an A/A calibration: calibrate.go): same, different, or not
// yet known (and then about how many rounds would decide it). Figures
// judged together are one family (holm.go): the chance of calling any
// of them different when none is stays under Alpha.
package abtest

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Verdict is what the rounds say of a figure.
type Verdict string

// The verdicts. Same: the 90 % interval of B/A lies within ±δ. Different:
// the ratio is past ±δ and its p-value under Alpha (for one figure: the
// 95 % interval excludes 1; for several judged together, the p-value as
// HolmAdjust makes it). Not yet known:
// neither, so far. Not decidable here: the A/A calibration found this
// machine's spread of the figure wider than the floor the user set.
const (
	Same        Verdict = "same"
	Different   Verdict = "different"
	Unknown     Verdict = "not yet known"
	Undecidable Verdict = "not decidable here"
)

// ErrRounds is returned for too few rounds to give an interval.
var ErrRounds = errors.New("at least 2 rounds are needed for an interval")

// Alpha is how likely a verdict of different may be wrong: for one
// figure, or for a family of figures judged together (HolmAdjust), that
// any of them is called different when none is.
const Alpha = 0.05

// Interval is a range of ratios B/A.
type Interval struct{ Lo, Hi float64 }

// Contains tells whether r lies in the interval (its ends included).
func (i Interval) Contains(r float64) bool { return i.Lo <= r && r <= i.Hi }

// Estimate is a figure's ratio B/A over its rounds.
type Estimate struct {
	Rounds int
	// Ratio is the geometric mean of the rounds' ratios.
	Ratio float64
	// CI90 and CI95 are its two-sided 90 % and 95 % confidence intervals.
	CI90, CI95 Interval
	// SDLog is the standard deviation of the ratios' logarithms.
	SDLog float64
	// P is the two-sided p-value of "B/A is 1" (Student's t over the
	// logarithms): under 0.05 exactly when CI95 excludes 1.
	P float64
}

// Ratios pairs the rounds' values of a figure: b[i]/a[i] for each round
// i. A value that is not a positive finite number is refused: a ratio
// of it means nothing.
func Ratios(a, b []float64) ([]float64, error) {
	if len(a) != len(b) {
		return nil, fmt.Errorf("%d values of A against %d of B: a round needs both", len(a), len(b))
	}
	out := make([]float64, len(a))
	for i := range a {
		if !positive(a[i]) || !positive(b[i]) {
			return nil, fmt.Errorf("round %d: A %v, B %v: a ratio needs two positive finite values", i+1, a[i], b[i])
		}
		out[i] = b[i] / a[i]
	}
	return out, nil
}

// positive tells whether x is a finite number above 0.
func positive(x float64) bool { return x > 0 && !math.IsInf(x, 1) }

// NewEstimate computes the geometric mean of ratios and its intervals.
func NewEstimate(ratios []float64) (Estimate, error) {
	if len(ratios) < 2 {
		return Estimate{}, ErrRounds
	}
	logs := make([]float64, len(ratios))
	for i, r := range ratios {
		if !positive(r) {
			return Estimate{}, fmt.Errorf("round %d: ratio %v is not a positive finite number", i+1, r)
		}
		logs[i] = math.Log(r)
	}
	mean, sd := meanSD(logs)
	se := sd / math.Sqrt(float64(len(logs)))
	return Estimate{
		Rounds: len(ratios),
		Ratio:  math.Exp(mean),
		CI90:   interval(mean, se, tQuantile(0.95, len(logs)-1)),
		CI95:   interval(mean, se, tQuantile(0.975, len(logs)-1)),
		SDLog:  sd,
		P:      pValue(mean, se, len(logs)-1),
	}, nil
}

// pValue is the two-sided p-value of a mean of 0 given the mean, its
// standard error and the degrees of freedom: 1 for rounds all exactly
// 1, 0 for rounds all the same other ratio.
func pValue(mean, se float64, df int) float64 {
	if se == 0 {
		if mean == 0 {
			return 1
		}
		return 0
	}
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.CDF(-math.Abs(mean/se))
}

// meanSD is the mean and the sample standard deviation of xs (n-1).
func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// interval is exp(mean ± t·se): a log-scale interval as ratios.
func interval(mean, se, t float64) Interval {
	return Interval{Lo: math.Exp(mean - t*se), Hi: math.Exp(mean + t*se)}
}

// tQuantile is Student's t quantile p with df degrees of freedom.
func tQuantile(p float64, df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(p)
}

// band is ±δ as ratios: [1/(1+δ), 1+δ], symmetric on the log scale, so
// that B/A and A/B get the same verdict.
func band(delta float64) Interval { return Interval{Lo: 1 / (1 + delta), Hi: 1 + delta} }

// Judge gives the verdict of e, judged alone, against δ (0.03 for 3 %).
func (e Estimate) Judge(delta float64) Verdict { return e.JudgeWith(delta, e.P) }

// JudgeWith gives the verdict of e against δ with p its p-value: e.P for
// a figure judged alone, or e.P adjusted for the figures judged with it
// (HolmAdjust).
func (e Estimate) JudgeWith(delta, p float64) Verdict {
	b := band(delta)
	switch {
	case b.Contains(e.CI90.Lo) && b.Contains(e.CI90.Hi):
		return Same
	case p < Alpha && !b.Contains(e.Ratio):
		return Different
	}
	return Unknown
}
