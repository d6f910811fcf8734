package abrun

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"manydb/internal/abtest"
)

// pairKeys names the figures both sides have, each with its key in A's
// and in B's values: its Key's String when the columns are the same,
// "A-column vs B-column / figure" when each side measured one column of its own (two variants or
// settings of one build).
func pairKeys(a, b map[string]float64) map[string][2]string {
	out := map[string][2]string{}
	for k := range a {
		if _, ok := b[k]; ok {
			out[k] = [2]string{k, k}
		}
	}
	if len(out) > 0 {
		return out
	}
	ca, cb := columns(a), columns(b)
	if len(ca) != 1 || len(cb) != 1 {
		return out
	}
	for k := range a {
		fig := figureOf(k)
		if _, ok := b[cb[0]+sep+fig]; ok {
			out[ca[0]+" vs "+cb[0]+sep+fig] = [2]string{k, cb[0] + sep + fig}
		}
	}
	return out
}

// columns lists the columns of a round's side.
func columns(v map[string]float64) []string {
	var out []string
	for k := range v {
		col := k[:strings.LastIndex(k, sep)]
		if !slices.Contains(out, col) {
			out = append(out, col)
		}
	}
	return out
}

// judge gives every figure measured by both sides in every round its
// verdict (only c.Figures, when named).
func judge(c Config, rounds []Round) ([]Result, error) {
	pairs := pairKeys(rounds[0].A, rounds[0].B)
	if len(pairs) == 0 {
		return nil, fmt.Errorf("%w: the sides measured no figure of a column in common (A: %s; B: %s)", ErrConfig,
			strings.Join(columns(rounds[0].A), ", "), strings.Join(columns(rounds[0].B), ", "))
	}
	if err := checkFigures(c.Figures, pairs); err != nil {
		return nil, err
	}
	var out []Result
	for _, name := range slices.Sorted(maps.Keys(pairs)) {
		if len(c.Figures) > 0 && !slices.Contains(c.Figures, figureOf(name)) {
			continue
		}
		out = append(out, judgeOne(c, name, pairs[name], rounds))
	}
	return out, nil
}

// figureOf is the figure's name in a key (after its last sep).
func figureOf(key string) string { return key[strings.LastIndex(key, sep)+len(sep):] }

// checkFigures refuses a figure asked for that neither side measured.
func checkFigures(want []string, pairs map[string][2]string) error {
	have := map[string]bool{}
	for k := range pairs {
		have[figureOf(k)] = true
	}
	for _, f := range want {
		if !have[f] {
			return fmt.Errorf("%w: --figures %s: not among the figures both sides measured (%s)", ErrConfig, f,
				strings.Join(slices.Sorted(maps.Keys(have)), ", "))
		}
	}
	return nil
}

// judgeOne is the verdict of one figure over the rounds.
func judgeOne(c Config, name string, keys [2]string, rounds []Round) Result {
	res := Result{Key: name, Delta: c.Floor}
	var a, b []float64
	for _, r := range rounds {
		va, okA := r.A[keys[0]]
		vb, okB := r.B[keys[1]]
		if !okA || !okB {
			res.Note = fmt.Sprintf("round %d has no value of it", r.N)
			return res
		}
		a, b = append(a, va), append(b, vb)
	}
	ratios, err := abtest.Ratios(a, b)
	if err == nil {
		res.Estimate, err = abtest.NewEstimate(ratios)
	}
	if err != nil {
		res.Note = err.Error()
		return res
	}
	cal, ok := c.Calibration[name]
	if !ok {
		cal = abtest.Calibration{Floor: c.Floor, Delta: c.Floor, Decidable: true}
	}
	res.Delta, res.Verdict = cal.Delta, cal.Judge(res.Estimate)
	if res.Verdict == abtest.Unknown {
		res.RoundsNeeded, _ = res.Estimate.RoundsFor(res.Delta)
	}
	return res
}

// decided tells whether every judged figure has a verdict.
func decided(results []Result) bool {
	return !slices.ContainsFunc(results, func(r Result) bool { return r.Note == "" && r.Verdict == abtest.Unknown })
}

// tally counts the verdicts ("3 same, 1 different, 2 not yet known") and
// the most rounds an undecided figure needs.
func tally(results []Result) (string, int) {
	count := map[abtest.Verdict]int{}
	need, notJudged := 0, 0
	for _, r := range results {
		if r.Note != "" {
			notJudged++
			continue
		}
		count[r.Verdict]++
		need = max(need, r.RoundsNeeded)
	}
	var parts []string
	for _, v := range []abtest.Verdict{abtest.Same, abtest.Different, abtest.Unknown, abtest.Undecidable} {
		if count[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[v], v))
		}
	}
	if notJudged > 0 {
		parts = append(parts, fmt.Sprintf("%d not judged", notJudged))
	}
	return strings.Join(parts, ", "), need
}
