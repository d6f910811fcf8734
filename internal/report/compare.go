package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"
)

// Side is one side of a comparison: the figures of a results file and,
// when given (FILE:variant), the one variant to take from it.
type Side struct {
	Name    string // as given on the command line
	Variant string // "" for every variant
	Figures []Figure
}

// Compare writes, for every figure both sides have, the old and new
// median with its 95 % interval, the change and whether it is significant
// (Mann–Whitney U test at α = 0.05, golang.org/x/perf/benchmath), in
// benchstat's wording: "~" when it is not. Figures are matched by setting,
// figure and, unless both sides name a variant, variant. The samples are
// runs (each the median of a run's per-store samples); runs of several
// studies in one file are pooled. A figure measured once per study (memory,
// space, create) has one sample per study: its change is shown, with a note
// when there are too few samples for a test. It returns the number of rows.
func Compare(w io.Writer, old, new Side) (int, error) {
	pick := func(s Side) (map[string]Figure, []string) {
		m := map[string]Figure{}
		var order []string
		for _, f := range s.Figures {
			if s.Variant != "" && f.Variant != s.Variant {
				continue
			}
			k := key(f, old.Variant != "" && new.Variant != "")
			if g, ok := m[k]; ok {
				g.Values = append(g.Values, f.Values...) // another study: pooled
				m[k] = g
				continue
			}
			f.Values = append([]float64(nil), f.Values...)
			m[k] = f
			order = append(order, k)
		}
		return m, order
	}
	om, order := pick(old)
	nm, _ := pick(new)
	fmt.Fprintf(w, "old: %s\nnew: %s\n\n", old.Name, new.Name)
	fmt.Fprintln(w, "| setting | variant | figure | old | new | vs old | |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- |")
	rows := 0
	var notes []string
	for _, k := range order {
		o, n := om[k], nm[k]
		if n.Values == nil {
			continue
		}
		rows++
		so := benchmath.NewSample(o.Values, &benchmath.DefaultThresholds)
		sn := benchmath.NewSample(n.Values, &benchmath.DefaultThresholds)
		sumO := benchmath.AssumeNothing.Summary(so, 0.95)
		sumN := benchmath.AssumeNothing.Summary(sn, 0.95)
		cmp := benchmath.AssumeNothing.Compare(so, sn)
		delta, test := cmp.FormatDelta(sumO.Center, sumN.Center), cmp.String()
		if len(o.Values) < 2 || len(n.Values) < 2 {
			delta = fmt.Sprintf("%+.2f%%", 100*(sumN.Center/sumO.Center-1))
			test = "one sample: no test"
		}
		variant := o.Variant
		if o.Variant != n.Variant {
			variant = o.Variant + " → " + n.Variant
		}
		label := fmt.Sprintf("%s / %s / %s", o.Setting, variant, o.Name)
		for _, warn := range append(append(sumO.Warnings, sumN.Warnings...), cmp.Warnings...) {
			if note := fmt.Sprintf("%s: %v", label, warn); !slices.Contains(notes, note) {
				notes = append(notes, note)
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", o.Setting, variant, o.Name+" ("+o.Unit+")",
			center(sumO), center(sumN), delta, test)
	}
	if rows == 0 {
		return 0, fmt.Errorf("the two sides have no figure in common (same setting, figure and variant, or name one variant on each side: FILE:variant)")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Each value is a median with its 95 % interval (±); samples are runs. \"~\": no significant difference (Mann–Whitney U, α = 0.05).")
	for _, n := range notes {
		fmt.Fprintln(w, "warning:", n)
	}
	return rows, nil
}

func key(f Figure, ignoreVariant bool) string {
	v := f.Variant
	if ignoreVariant {
		v = ""
	}
	return strings.Join([]string{f.Setting, v, f.Name}, "\x00")
}

// center formats a summary as benchstat does: the median and ± the larger
// distance to the interval's ends, in percent.
func center(s benchmath.Summary) string {
	v := strconv3(s.Center)
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		return v + " ±∞"
	}
	return v + " ±" + s.PctRangeString()
}

// strconv3 formats a figure with three significant digits at least.
func strconv3(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 1:
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.3f", x)
}
