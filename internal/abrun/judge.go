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
// verdict (only c.Figures, when named), the figures judged as one family
// (judgeTogether).
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
	var cals []abtest.Calibration
	for _, name := range slices.Sorted(maps.Keys(pairs)) {
		if len(c.Figures) > 0 && !slices.Contains(c.Figures, figureOf(name)) {
			continue
		}
		res, cal := estimateOne(c, name, pairs[name], rounds)
		out, cals = append(out, res), append(cals, cal)
	}
	judgeTogether(out, cals)
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

// estimateOne is one figure's ratio over the rounds, with the
// calibration it is judged by (the floor when it has none).
func estimateOne(c Config, name string, keys [2]string, rounds []Round) (Result, abtest.Calibration) {
	res := Result{Key: name, Delta: c.Floor}
	cal, ok := c.Calibration[name]
	if !ok {
		cal = abtest.Calibration{Floor: c.Floor, Delta: c.Floor, Decidable: true}
	}
	var a, b []float64
	for _, r := range rounds {
		va, okA := r.A[keys[0]]
		vb, okB := r.B[keys[1]]
		if !okA || !okB {
			res.Note = fmt.Sprintf("round %d has no value of it", r.N)
			return res, cal
		}
		a, b = append(a, va), append(b, vb)
	}
	ratios, err := abtest.Ratios(a, b)
	if err == nil {
		res.Estimate, err = abtest.NewEstimate(ratios)
	}
	if err != nil {
		res.Note = err.Error()
	}
	return res, cal
}

// judgeTogether gives the estimated figures their verdicts as one
// family: each decidable figure's p-value is adjusted for the others
// (abtest.HolmAdjust), so that however many figures are asked about, the
// chance that any is called different when none is stays under
// abtest.Alpha (a process that runs slow moves several figures of its
// variant at once: judged one by one, some would pass the bar by chance).
func judgeTogether(results []Result, cals []abtest.Calibration) {
	var family []int
	var ps []float64
	for i, r := range results {
		if r.Note == "" && cals[i].Decidable {
			family, ps = append(family, i), append(ps, r.Estimate.P)
		}
	}
	for k, p := range abtest.HolmAdjust(ps) {
		results[family[k]].PHolm = &p
	}
	for i := range results {
		r := &results[i]
		if r.Note != "" {
			continue
		}
		p := 1.0 // not decidable here: no p-value; the calibration says so
		if r.PHolm != nil {
			p = *r.PHolm
		}
		r.Delta, r.Verdict = cals[i].Delta, cals[i].JudgeWith(r.Estimate, p)
		if r.Verdict == abtest.Unknown {
			r.RoundsNeeded, _ = r.Estimate.RoundsFor(r.Delta, len(family))
		}
	}
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
