package abrun

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"manydb/internal/abtest"
)

// nullRounds is n rounds of figures figures of one column, both sides
// drawn alike (lognormal noise sd), except figure "f00" whose B is times
// effect.
func nullRounds(seed uint64, n, figures int, sd, effect float64) []Round {
	rng := rand.New(rand.NewPCG(seed, 3))
	rounds := make([]Round, n)
	for i := range rounds {
		rounds[i] = Round{N: i + 1, A: map[string]float64{}, B: map[string]float64{}}
		for f := range figures {
			key := fmt.Sprintf("bbolt@default / f%02d", f)
			rounds[i].A[key] = math.Exp(rng.NormFloat64() * sd)
			rounds[i].B[key] = math.Exp(rng.NormFloat64() * sd)
			if f == 0 {
				rounds[i].B[key] *= effect
			}
		}
	}
	return rounds
}

// TestFiguresJudgedTogether: 40 figures of an A/A, 10 noisy rounds each.
// Judged one by one, some come out different by chance (the draws are
// fixed so that they do); judged together, as ab judges them, none does,
// and each judged figure has its Holm p-value, at least its own.
func TestFiguresJudgedTogether(t *testing.T) {
	rounds := nullRounds(7, 10, 40, 0.1, 1)
	res, err := judge(config(), rounds)
	if err != nil {
		t.Fatal(err)
	}
	alone, together := 0, 0
	for _, r := range res {
		if r.Estimate.Judge(r.Delta) == abtest.Different {
			alone++
		}
		if r.Verdict == abtest.Different {
			together++
		}
		if r.PHolm == nil || *r.PHolm < r.Estimate.P {
			t.Errorf("%s: Holm p %v below its own %.4g, or none", r.Key, r.PHolm, r.Estimate.P)
		}
	}
	if alone < 2 || together != 0 {
		t.Errorf("A/A of 40 figures: %d different judged one by one (the draws give at least 2), %d judged together (want 0)", alone, together)
	}
}

// TestChangeFoundAmongMany: a +10 % change of one figure among 40 is
// still called different once the rounds are enough, and the others
// are not.
func TestChangeFoundAmongMany(t *testing.T) {
	res, err := judge(config(), nullRounds(8, 60, 40, 0.1, 1.10))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		want := r.Key == "bbolt@default / f00"
		if got := r.Verdict == abtest.Different; got != want {
			t.Errorf("%s: %s (ratio %.3f, p %.3g), want different %v", r.Key, r.Verdict, r.Estimate.Ratio, r.Estimate.P, want)
		}
	}
}
