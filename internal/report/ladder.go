package report

import (
	"fmt"
	"math"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
	"manydb/internal/vector"
)

// ladderFigures are the rows of the hold's knn ladder: how many notes an
// approximate search must be asked for to recall vector.RecallGoal of the
// nearest, and its recall at three of the steps (40, 160 and 640 notes).
func ladderFigures() []figure {
	fs := []figure{{label: fmt.Sprintf("knn of the held stores: notes to ask for %.0f %% recall@10 (knn median there)", 100*vector.RecallGoal),
		phase: job.PhaseHold, text: (*table).askForGoal, when: (*table).laddered}}
	for _, asked := range []int{40, 160, 640} {
		fs = append(fs, figure{name: recallAskingName(asked), label: fmt.Sprintf("knn recall@10 of the held stores asking %d notes (mean)", asked),
			unit: "%", phase: job.PhaseHold, value: ladderRecall(asked), na: noLadder, when: (*table).laddered, uses: exported})
	}
	return fs
}

// recallAskingName names the figure of the hold's knn ladder step that
// asked for asked notes (40, 160 or 640): its mean recall@10.
func recallAskingName(asked int) string {
	return fmt.Sprintf("recall-asking-%d", asked)
}

// laddered tells whether a hold of the table asked a knn ladder.
func (t *table) laddered() bool {
	for _, c := range t.columns {
		for _, r := range c.records(job.PhaseHold, "") {
			if r.Hold != nil && len(r.Hold.Ladder) > 0 {
				return true
			}
		}
	}
	return false
}

// ladderRecall is the mean recall, in percent, of a hold's ladder step
// that asked for asked notes; NaN without one.
func ladderRecall(asked int) func(r *results.Record) float64 {
	return func(r *results.Record) float64 {
		if s := ladderStep(r, asked); s != nil {
			return 100 * stats.Mean(s.Recall)
		}
		return math.NaN()
	}
}

// ladderStep is r's ladder step that asked for asked notes, or nil.
func ladderStep(r *results.Record, asked int) *results.LadderStep {
	if r.Hold == nil {
		return nil
	}
	for i := range r.Hold.Ladder {
		if r.Hold.Ladder[i].Asked == asked {
			return &r.Hold.Ladder[i]
		}
	}
	return nil
}

// noLadder says why a column's hold has no ladder: its search is exact.
func noLadder(recs []*results.Record) string {
	if r := recs[len(recs)-1]; r.VectorExact {
		return "n/a (exact search)"
	}
	return ""
}

// askForGoal is a column's first ladder step whose mean recall reaches
// vector.RecallGoal, with its knn median: "40 (1.21 ms)"; "not at 640
// (62 %)" when no step reaches it; an exact search's 10.
func (t *table) askForGoal(c *column, f figure) string {
	r := t.holdRecord(c, f)
	switch {
	case r == nil:
		return t.noHold(c, f)
	case r.VectorExact:
		return fmt.Sprintf("%d (exact search)", vector.K)
	case r.Hold == nil || len(r.Hold.Ladder) == 0:
		return "–"
	}
	steps := r.Hold.Ladder
	for _, s := range steps {
		if stats.Mean(s.Recall) >= vector.RecallGoal {
			return fmt.Sprintf("%d (%s)", s.Asked, natural(stats.Median(s.Ms), "ms"))
		}
	}
	last := steps[len(steps)-1]
	return fmt.Sprintf("not at %d (%s)", last.Asked, natural(100*stats.Mean(last.Recall), "%"))
}
