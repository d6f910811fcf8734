package abtest

import "math"

// DefaultFloor is the smallest δ a verdict uses unless the user sets
// another: 3 %, the line manydb's bench holds its C-API variants to.
const DefaultFloor = 0.03

// Calibration is what an A/A run (the same build, variant and options as
// both sides, in the same rounds) says this machine resolves for one
// figure.
type Calibration struct {
	// AA is the A/A estimate: a ratio near 1, an interval as wide as the
	// machine's noise makes it with the calibration's rounds.
	AA Estimate
	// Floor is the δ the user asked for at least.
	Floor float64
	// Delta is the δ a verdict on this figure uses: the floor, or the
	// farthest end of the A/A's 95 % interval from 1 when that is wider
	// (no change smaller than what A/A shows can be told from noise).
	Delta float64
	// Decidable is false when two sides of one build came out different
	// at the floor: the machine or the order of the sides moves the
	// figure by more than the floor, so no verdict on it means anything.
	Decidable bool
}

// Calibrate derives a figure's δ from its A/A estimate and a floor.
func Calibrate(aa Estimate, floor float64) Calibration {
	spread := math.Exp(max(math.Abs(math.Log(aa.CI95.Lo)), math.Abs(math.Log(aa.CI95.Hi)))) - 1
	return Calibration{
		AA:        aa,
		Floor:     floor,
		Delta:     max(floor, spread),
		Decidable: aa.Judge(floor) != Different,
	}
}

// Judge gives the verdict of e, judged alone, against the calibration's
// δ, or not decidable here when the calibration says so.
func (c Calibration) Judge(e Estimate) Verdict { return c.JudgeWith(e, e.P) }

// JudgeWith is Judge with p as e's p-value (Estimate.JudgeWith).
func (c Calibration) JudgeWith(e Estimate, p float64) Verdict {
	if !c.Decidable {
		return Undecidable
	}
	return e.JudgeWith(c.Delta, p)
}
