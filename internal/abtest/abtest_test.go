package abtest

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestNewEstimateKnownAnswer: logs 0.1, 0.2, 0.3 have mean 0.2 and
// standard deviation 0.1; with 2 degrees of freedom t(0.975) = 4.3027 and
// t(0.95) = 2.9200 (any t table), so the 95 % interval is
// exp(0.2 ± 4.3027·0.1/√3) and the 90 % one exp(0.2 ± 2.9200·0.1/√3).
func TestNewEstimateKnownAnswer(t *testing.T) {
	e, err := NewEstimate([]float64{math.Exp(0.1), math.Exp(0.2), math.Exp(0.3)})
	if err != nil {
		t.Fatal(err)
	}
	se := 0.1 / math.Sqrt(3)
	want := []struct {
		name      string
		got, want float64
	}{
		{"ratio", e.Ratio, math.Exp(0.2)},
		{"sd", e.SDLog, 0.1},
		{"95 lo", e.CI95.Lo, math.Exp(0.2 - 4.3027*se)},
		{"95 hi", e.CI95.Hi, math.Exp(0.2 + 4.3027*se)},
		{"90 lo", e.CI90.Lo, math.Exp(0.2 - 2.9200*se)},
		{"90 hi", e.CI90.Hi, math.Exp(0.2 + 2.9200*se)},
	}
	for _, w := range want {
		if !near(w.got, w.want, 1e-4) {
			t.Errorf("%s: %.6f, want %.6f", w.name, w.got, w.want)
		}
	}
	if e.Rounds != 3 {
		t.Errorf("rounds %d, want 3", e.Rounds)
	}
}

func TestRatiosAndBadInput(t *testing.T) {
	r, err := Ratios([]float64{2, 4}, []float64{3, 2})
	if err != nil || r[0] != 1.5 || r[1] != 0.5 {
		t.Fatalf("Ratios: %v, %v", r, err)
	}
	for _, c := range []struct{ a, b []float64 }{
		{[]float64{1}, []float64{1, 2}},
		{[]float64{0, 1}, []float64{1, 1}},
		{[]float64{1, 1}, []float64{-1, 1}},
		{[]float64{1, math.NaN()}, []float64{1, 1}},
		{[]float64{1, math.Inf(1)}, []float64{1, 1}},
	} {
		if _, err := Ratios(c.a, c.b); err == nil {
			t.Errorf("Ratios(%v, %v) accepted", c.a, c.b)
		}
	}
	if _, err := NewEstimate([]float64{1.1}); !errors.Is(err, ErrRounds) {
		t.Errorf("one round: %v, want ErrRounds", err)
	}
	if _, err := NewEstimate([]float64{1.1, math.NaN()}); err == nil {
		t.Error("a NaN ratio was accepted")
	}
}

// rounds draws n ratios ratio·e^N(0, sd) from a fixed seed.
func rounds(seed uint64, n int, ratio, sd float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, n)
	for i := range out {
		out[i] = ratio * math.Exp(rng.NormFloat64()*sd)
	}
	return out
}

func estimate(t *testing.T, ratios []float64) Estimate {
	t.Helper()
	e, err := NewEstimate(ratios)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestJudge: each verdict where it belongs, on fixed draws.
func TestJudge(t *testing.T) {
	cases := []struct {
		name   string
		ratios []float64
		want   Verdict
	}{
		{"no change, many rounds", rounds(1, 200, 1, 0.02), Same},
		{"+10 %, many rounds", rounds(2, 60, 1.10, 0.05), Different},
		{"−10 %, many rounds", rounds(3, 60, 1/1.10, 0.05), Different},
		{"+10 %, two noisy rounds", rounds(4, 2, 1.10, 0.3), Unknown},
		{"+1 %, past 1 but within δ", rounds(5, 2000, 1.01, 0.02), Same},
		{"+2.9 %, too few rounds", []float64{1.0, 1.06, 1.029, 1.028}, Unknown},
	}
	for _, c := range cases {
		e := estimate(t, c.ratios)
		if got := e.Judge(0.03); got != c.want {
			t.Errorf("%s: %s (ratio %.4f, 90 %% [%.4f, %.4f], 95 %% [%.4f, %.4f]), want %s",
				c.name, got, e.Ratio, e.CI90.Lo, e.CI90.Hi, e.CI95.Lo, e.CI95.Hi, c.want)
		}
	}
}

// TestJudgeSymmetric: B/A and A/B get the same verdict.
func TestJudgeSymmetric(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		r := rounds(seed, 12, 1.03, 0.03)
		inv := make([]float64, len(r))
		for i := range r {
			inv[i] = 1 / r[i]
		}
		if a, b := estimate(t, r).Judge(0.03), estimate(t, inv).Judge(0.03); a != b {
			t.Errorf("seed %d: B/A %s, A/B %s", seed, a, b)
		}
	}
}

// TestRoundsFor: the rounds it asks for do decide, on the same spread;
// a decided figure asks for none more.
func TestRoundsFor(t *testing.T) {
	e := estimate(t, []float64{1.0, 1.05, 0.95, 1.02, 0.99})
	n, ok := e.RoundsFor(0.03, 1)
	if !ok || n <= e.Rounds {
		t.Fatalf("RoundsFor: %d, %v, want more than %d rounds", n, ok, e.Rounds)
	}
	more := e
	more.Rounds = n
	se := e.SDLog / math.Sqrt(float64(n))
	more.CI90 = interval(math.Log(e.Ratio), se, tQuantile(0.95, n-1))
	more.CI95 = interval(math.Log(e.Ratio), se, tQuantile(0.975, n-1))
	if got := more.Judge(0.03); got != Same {
		t.Errorf("after %d rounds of the same spread: %s, want same", n, got)
	}
	if n, ok := estimate(t, rounds(1, 200, 1, 0.02)).RoundsFor(0.03, 1); !ok || n != 200 {
		t.Errorf("decided figure: RoundsFor %d, %v, want 200, true", n, ok)
	}
}

// TestCalibrate: a quiet A/A gives δ the floor; a noisy one a wider δ;
// an A/A whose sides differ makes the figure not decidable.
func TestCalibrate(t *testing.T) {
	quiet := Calibrate(estimate(t, rounds(7, 100, 1, 0.02)), DefaultFloor)
	if quiet.Delta != DefaultFloor || !quiet.Decidable {
		t.Errorf("quiet A/A: δ %.4f decidable %v, want %.2f true", quiet.Delta, quiet.Decidable, DefaultFloor)
	}
	noisy := Calibrate(estimate(t, rounds(8, 5, 1, 0.2)), DefaultFloor)
	if noisy.Delta <= DefaultFloor || !noisy.Decidable {
		t.Errorf("noisy A/A: δ %.4f decidable %v, want over the floor, true", noisy.Delta, noisy.Decidable)
	}
	if v := noisy.Judge(estimate(t, rounds(9, 5, 1.05, 0.01))); v == Different {
		t.Errorf("+5 %% judged %s against a noisy machine's δ %.3f", v, noisy.Delta)
	}
	biased := Calibrate(estimate(t, rounds(10, 100, 1.08, 0.02)), DefaultFloor)
	if biased.Decidable || biased.Judge(estimate(t, rounds(11, 100, 1.2, 0.02))) != Undecidable {
		t.Errorf("A/A sides 8 %% apart: decidable %v, want not decidable", biased.Decidable)
	}
}

// TestSameFalseAlarms: on 200 fixed A/A draws of 20 rounds each, at most
// 5 % come out different (the 95 % interval's promise, and δ on top).
func TestSameFalseAlarms(t *testing.T) {
	different := 0
	for seed := uint64(100); seed < 300; seed++ {
		if estimate(t, rounds(seed, 20, 1, 0.05)).Judge(0.03) == Different {
			different++
		}
	}
	if different > 10 {
		t.Errorf("%d of 200 A/A draws judged different, want at most 10", different)
	}
}

// TestHolmAdjustKnownAnswer: p-values 0.01, 0.04, 0.03, 0.005 sorted are
// 0.005, 0.01, 0.03, 0.04; times 4, 3, 2, 1 they are 0.02, 0.03, 0.06,
// 0.04, and the running maximum makes the last 0.06 (Holm 1979).
func TestHolmAdjustKnownAnswer(t *testing.T) {
	got := HolmAdjust([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if !near(got[i], want[i], 1e-12) {
			t.Errorf("adjusted %v, want %v", got, want)
			break
		}
	}
	if got := HolmAdjust([]float64{0.6, 0.7}); got[0] != 1 || got[1] != 1 {
		t.Errorf("adjusted %v, want each capped at 1", got)
	}
}

// TestPMatchesInterval: P is under 0.05 exactly when the 95 % interval
// excludes 1, on draws on both sides of the line (both are seen).
func TestPMatchesInterval(t *testing.T) {
	below := 0
	const draws = 200
	for seed := uint64(1); seed <= draws; seed++ {
		e := estimate(t, rounds(seed, 8, 1.04, 0.05))
		if (e.P < 0.05) == e.CI95.Contains(1) {
			t.Fatalf("seed %d: P %.4f, 95 %% interval [%.4f, %.4f]", seed, e.P, e.CI95.Lo, e.CI95.Hi)
		}
		if e.P < 0.05 {
			below++
		}
	}
	if below == 0 || below == draws {
		t.Errorf("%d of %d draws below 0.05: the draws do not cross the line", below, draws)
	}
}

// TestRoundsForFamily: a ratio past δ judged among 10 figures needs more
// rounds than judged alone (its bar is 0.05/10, not 0.05), and those
// rounds would decide it at that bar.
func TestRoundsForFamily(t *testing.T) {
	e := estimate(t, []float64{1.2, 0.95, 1.15, 1.02, 1.1})
	alone, ok1 := e.RoundsFor(0.03, 1)
	among, ok10 := e.RoundsFor(0.03, 10)
	if !ok1 || !ok10 || among <= alone {
		t.Fatalf("rounds alone %d (%v), among 10 %d (%v): want more among 10", alone, ok1, among, ok10)
	}
	se := e.SDLog / math.Sqrt(float64(among))
	if half := tQuantile(1-0.05/20, among-1) * se; half > math.Abs(math.Log(e.Ratio)) {
		t.Errorf("after %d rounds the interval at 0.05/10 still reaches 1 (half-width %.4f, log ratio %.4f)", among, half, math.Log(e.Ratio))
	}
}
