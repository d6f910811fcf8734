// Package abtest judges whether B differs from A from interleaved
// rounds: each round measures A and B back to back (in fresh processes,
// the same stores and seed), and what is judged is each round's ratio
// B/A of a figure, so that a machine's drift between rounds, which moves
// both sides of a round together, cancels. The answer per figure is the
// geometric mean of the rounds' ratios with its confidence intervals
// (Student's t over the ratios' logarithms) and a verdict against δ, the
// smallest change that matters (at least what this machine resolves,
// measured by an A/A calibration: calibrate.go): same, different, or not
// yet known (and then about how many rounds would decide it).
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
// the 95 % interval excludes 1 and the ratio is past ±δ. Not yet known:
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
	}, nil
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

// Judge gives the verdict of e against δ (0.03 for 3 %).
func (e Estimate) Judge(delta float64) Verdict {
	b := band(delta)
	switch {
	case b.Contains(e.CI90.Lo) && b.Contains(e.CI90.Hi):
		return Same
	case !e.CI95.Contains(1) && !b.Contains(e.Ratio):
		return Different
	}
	return Unknown
}
