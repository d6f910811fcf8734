// Package stats computes the summary figures of manydb's tables from raw
// samples.
//
// A quantile is numpy's default estimate (Hyndman–Fan type 7: linear
// interpolation between the order statistics around position q·(n−1)),
// because the reference study computed its figures with numpy. The Go
// statistics libraries we looked at offer other definitions (gonum: types
// 1 and 4; x/perf's benchmath: type 8, unexported), so these few lines are
// our own. The median is the type 7 quantile 0.5: the middle value, or the
// mean of the two middle values for an even count.
//
// All functions are pure and leave their input unchanged.
package stats

import (
	"math"
	"slices"
)

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of xs, NaN for no samples.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sorted := slices.Sorted(slices.Values(xs))
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	if lo < 0 {
		return sorted[0]
	}
	frac := pos - float64(lo)
	return sorted[lo] + frac*(sorted[lo+1]-sorted[lo])
}

// Median returns the median of xs, NaN for no samples.
func Median(xs []float64) float64 { return Quantile(xs, 0.5) }

// P5 returns the 5th percentile of xs (recall's worst queries).
func P5(xs []float64) float64 { return Quantile(xs, 0.05) }

// Mean returns the arithmetic mean of xs, NaN for no samples.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// P90 returns the 90th percentile of xs.
func P90(xs []float64) float64 { return Quantile(xs, 0.9) }

// P99 returns the 99th percentile of xs.
func P99(xs []float64) float64 { return Quantile(xs, 0.99) }

// Min returns the smallest value of xs, NaN for no samples.
func Min(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return slices.Min(xs)
}

// Max returns the largest value of xs, NaN for no samples.
func Max(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return slices.Max(xs)
}

// Ints converts integer samples to float64 samples.
func Ints(xs []int64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// TheilSen fits y = intercept + slope·x to the points (xs[i], ys[i]) by
// the Theil–Sen estimator: the slope is the median of the slopes between
// every two points of distinct x, the intercept the median of y − slope·x.
// Up to 29 % of the points may be wild without moving the slope far, where
// one outlier moves a least-squares slope; the cost is n² / 2 slopes, so
// give it tens of points, not thousands. Both are NaN when no two points
// have distinct x, or xs and ys differ in length.
func TheilSen(xs, ys []float64) (slope, intercept float64) {
	if len(xs) != len(ys) {
		return math.NaN(), math.NaN()
	}
	var slopes []float64
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			if dx := xs[j] - xs[i]; dx != 0 {
				slopes = append(slopes, (ys[j]-ys[i])/dx)
			}
		}
	}
	if len(slopes) == 0 {
		return math.NaN(), math.NaN()
	}
	slope = Median(slopes)
	rest := make([]float64, len(xs))
	for i := range xs {
		rest[i] = ys[i] - slope*xs[i]
	}
	return slope, Median(rest)
}
