package stats

import (
	"math"
	"testing"
)

func TestOrderStatistics(t *testing.T) {
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(100 - i) // 100, 99, …, 1: unsorted on purpose
	}
	tests := []struct {
		name      string
		xs        []float64
		median    float64
		p99       float64
		max       float64
		tolerance float64
	}{
		{name: "one", xs: []float64{7}, median: 7, p99: 7, max: 7},
		// numpy.percentile(x, 99) gives these (type 7: position 0.99·(n−1))
		{name: "odd", xs: []float64{3, 1, 2}, median: 2, p99: 2.98, max: 3, tolerance: 1e-12},
		{name: "even", xs: []float64{4, 1, 3, 2}, median: 2.5, p99: 3.97, max: 4, tolerance: 1e-12},
		{name: "1..100", xs: hundred, median: 50.5, p99: 99.01, max: 100, tolerance: 1e-9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := append([]float64(nil), tt.xs...)
			if got := Median(tt.xs); math.Abs(got-tt.median) > tt.tolerance {
				t.Errorf("Median = %v, want %v", got, tt.median)
			}
			if got := P99(tt.xs); math.Abs(got-tt.p99) > tt.tolerance {
				t.Errorf("P99 = %v, want %v", got, tt.p99)
			}
			if got := Max(tt.xs); got != tt.max {
				t.Errorf("Max = %v, want %v", got, tt.max)
			}
			for i := range before {
				if before[i] != tt.xs[i] {
					t.Fatalf("input changed at %d: %v, was %v", i, tt.xs[i], before[i])
				}
			}
		})
	}
}

func TestEmpty(t *testing.T) {
	if !math.IsNaN(Median(nil)) || !math.IsNaN(P99(nil)) || !math.IsNaN(Max(nil)) {
		t.Error("statistics of no samples must be NaN")
	}
}

// TestP90 checks P90 against numpy.percentile(x, 90) (type 7).
func TestP90(t *testing.T) {
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(100 - i)
	}
	if got := P90(hundred); math.Abs(got-90.1) > 1e-9 {
		t.Errorf("P90(1..100) = %v, want 90.1", got)
	}
	if got := P90([]float64{4, 1, 3, 2}); math.Abs(got-3.7) > 1e-12 {
		t.Errorf("P90(1..4) = %v, want 3.7", got)
	}
}

// TestTheilSen: an exact line is recovered, a few wild points do not move
// the slope, and points of one x have no slope.
func TestTheilSen(t *testing.T) {
	var xs, ys []float64
	for i := range 20 {
		xs, ys = append(xs, float64(i)), append(ys, 3+0.5*float64(i))
	}
	if s, c := TheilSen(xs, ys); math.Abs(s-0.5) > 1e-12 || math.Abs(c-3) > 1e-12 {
		t.Errorf("exact line: slope %v, intercept %v; want 0.5, 3", s, c)
	}
	ys[3], ys[11], ys[17] = 1000, -1000, 500 // 15 % wild
	if s, _ := TheilSen(xs, ys); math.Abs(s-0.5) > 0.05 {
		t.Errorf("with 3 wild points of 20: slope %v, want about 0.5", s)
	}
	if s, c := TheilSen([]float64{2, 2}, []float64{1, 5}); !math.IsNaN(s) || !math.IsNaN(c) {
		t.Errorf("one x: %v, %v; want NaN", s, c)
	}
	if s, _ := TheilSen([]float64{1, 2}, []float64{1}); !math.IsNaN(s) {
		t.Errorf("lengths differ: %v, want NaN", s)
	}
}

func TestMeanAndP5(t *testing.T) {
	xs := []float64{0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	if got := Mean(xs); math.Abs(got-20.0/21) > 1e-12 {
		t.Errorf("Mean = %v, want 20/21", got)
	}
	if got := P5(xs); got != 1 { // position 0.05·20 = 1: the second value
		t.Errorf("P5 = %v, want 1", got)
	}
	if got := P5([]float64{0, 10}); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("P5 of {0, 10} = %v, want 0.5", got)
	}
	if !math.IsNaN(Mean(nil)) {
		t.Error("Mean of nothing is not NaN")
	}
}
