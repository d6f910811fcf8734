package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"

	"manydb/internal/results"
	"manydb/internal/stats"
)

// Side is one side of a comparison: the records of a results file, and
// optionally the one variant and setting to take from it.
type Side struct {
	Name    string // as the user wrote it, for the header
	Records []results.Record
	Variant string // "" for every variant
	Setting string // "" for every setting
}

// confidence is the level of the intervals and the test.
const confidence = 0.95

// key names a Figures within a side: the parts the side does not fix.
func (s Side) key(f *Figures) string {
	var parts []string
	if s.Variant == "" {
		parts = append(parts, f.Variant)
	}
	if s.Setting == "" {
		parts = append(parts, f.Setting)
	}
	return strings.Join(parts, "@")
}

// takes tells whether the side takes the figures of a variant and setting.
func (s Side) takes(variant, setting string) bool {
	return (s.Variant == "" || variant == s.Variant) && (s.Setting == "" || setting == s.Setting)
}

// figures returns the side's Figures by key, the keys in order, and a
// warning for each of their runs with several ok records.
func (s Side) figures() (keys []string, by map[string]*Figures, warnings []duplicate) {
	by = map[string]*Figures{}
	figs, dups := collectFigures(s.Records)
	for _, f := range figs {
		if !s.takes(f.Variant, f.Setting) {
			continue
		}
		k := s.key(f)
		keys = append(keys, k)
		by[k] = f
	}
	for _, d := range dups {
		if s.takes(d.used.Variant, d.used.Setting) {
			warnings = append(warnings, d)
		}
	}
	return keys, by, warnings
}

// Compare writes, for every variant and setting both sides have and every
// figure both have, the old and new center, the change and whether it is
// significant, in benchstat's layout and wording.
//
// The unit of the test is a warm open run: a repeated figure has one value
// per run (the run's median over its stores, or its p99), pooled over all
// studies in a side. Per-store samples would make any drift of the machine
// between runs "significant"; runs are what repeats. A Mann–Whitney U test
// (golang.org/x/perf/benchmath, as benchstat) at α = 0.05 needs at least
// 4 runs a side to find anything. Single-valued figures (one value per
// study: create, memory, space) show their change with the note that one
// sample has no test.
func Compare(w io.Writer, old, new Side) error {
	oldKeys, oldBy, oldWarn := old.figures()
	_, newBy, newWarn := new.figures()
	var keys []string
	for _, k := range oldKeys {
		if newBy[k] != nil {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return fmt.Errorf("%s and %s have no variant and setting in common", old.Name, new.Name)
	}
	fmt.Fprintf(w, "old: %s\nnew: %s\n", old.Name, new.Name)
	for _, d := range oldWarn {
		fmt.Fprintf(w, "old: warning: %v\n", d)
	}
	for _, d := range newWarn {
		fmt.Fprintf(w, "new: warning: %v\n", d)
	}
	fmt.Fprintf(w, "unit of the test: a warm open run (its median over the stores); single-valued figures: one value per study\n")
	var notes footnotes
	for _, k := range keys {
		of, nf := oldBy[k], newBy[k]
		title := k
		if title == "" {
			title = of.Key() + " vs " + nf.Key()
		}
		fmt.Fprintf(w, "\n%s\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "figure\told\t±\tnew\t±\tvs base\t\tnotes\t\n")
		for _, d := range exportedFigures() {
			if len(of.Values[d.name]) > 0 && len(nf.Values[d.name]) > 0 {
				compareFigure(tw, d, of, nf, &notes)
			}
		}
		tw.Flush()
		for _, side := range []struct {
			name string
			f    *Figures
		}{{"old", of}, {"new", nf}} {
			if len(side.f.Loud) > 0 {
				fmt.Fprintf(w, "%s: the load rose to --max-load or above during %s\n", side.name, strings.Join(side.f.Loud, ", "))
			}
		}
	}
	fmt.Fprintf(w, "\n± is the %.0f %% confidence interval of the median (benchmath, no distribution assumed); ~ means no significant change at α = %.2f (Mann–Whitney U test).\n", confidence*100, benchmath.DefaultThresholds.CompareAlpha)
	for i, n := range notes {
		fmt.Fprintf(w, "(%d) %s\n", i+1, n)
	}
	return nil
}

// compareFigure writes the line of one figure both sides have: each
// side's center and interval, the change, the test and the notes' marks.
func compareFigure(tw io.Writer, d figure, of, nf *Figures, notes *footnotes) {
	thr := benchmath.DefaultThresholds
	ov, nv := of.Values[d.name], nf.Values[d.name]
	os, ns := benchmath.NewSample(append([]float64(nil), ov...), &thr), benchmath.NewSample(append([]float64(nil), nv...), &thr)
	osum := benchmath.AssumeNothing.Summary(os, confidence)
	nsum := benchmath.AssumeNothing.Summary(ns, confidence)
	var warn []string
	var delta, test string
	if len(ov) == 1 && len(nv) == 1 {
		delta = pct(osum.Center, nsum.Center)
		warn = append(warn, notes.mark("one sample a side has no test: the change is shown, not tested"))
	} else {
		cmp := benchmath.AssumeNothing.Compare(os, ns)
		delta = cmp.FormatDelta(osum.Center, nsum.Center)
		test = "(" + cmp.String() + ")"
		for _, e := range cmp.Warnings {
			warn = append(warn, notes.mark(e.Error()))
		}
	}
	if d.perRun {
		for _, side := range []struct {
			name string
			f    *Figures
		}{{"old", of}, {"new", nf}} {
			f := side.f
			if xs := f.Values[d.name]; len(xs) > 1 && f.Spread[d.name] > 0 && stats.Max(xs)-stats.Min(xs) > f.Spread[d.name] {
				warn = append(warn, notes.mark(side.name+": the runs' medians differ by more than the interquartile range of one run"))
			}
		}
	}
	fmt.Fprintf(tw, "%s (%s)\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", d.name, d.unit, num(osum.Center), osum.PctRangeString(), num(nsum.Center), nsum.PctRangeString(), delta, test, strings.Join(warn, " "))
}

// footnotes are the notes below a comparison, numbered from 1.
type footnotes []string

// mark returns the mark of note s, "(2)", adding it when new.
func (n *footnotes) mark(s string) string {
	if i := slices.Index(*n, s); i >= 0 {
		return fmt.Sprintf("(%d)", i+1)
	}
	*n = append(*n, s)
	return fmt.Sprintf("(%d)", len(*n))
}

func pct(old, new float64) string {
	if old == new {
		return "0.00%"
	}
	if old == 0 {
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", (new/old-1)*100)
}

// num formats a figure with four significant digits.
func num(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.4g", v)
}
