package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// Side is one side of a comparison: the records of a results file, and
// optionally the one variant, layout and setting to take from it.
type Side struct {
	Name    string // as the user wrote it, for the header
	Records []results.Record
	Variant string       // "" for every variant
	Layouts []job.Layout // nil for every layout; one to take only it
	Setting string       // "" for every setting
}

// confidence is the level of the intervals and the test.
const confidence = 0.95

// key names a Figures within a side: the parts the side does not fix.
func (s Side) key(f *Figures) string {
	var parts []string
	switch {
	case s.Variant == "":
		parts = append(parts, f.column())
	case s.Layouts == nil && f.Layout.Label() != "":
		parts = append(parts, f.Layout.Label())
	}
	if s.Setting == "" {
		parts = append(parts, f.Setting)
	}
	return strings.Join(parts, "@")
}

// takes tells whether the side takes the figures of a variant in a
// layout under a setting.
func (s Side) takes(variant string, layout job.Layout, setting string) bool {
	return (s.Variant == "" || variant == s.Variant) && (s.Layouts == nil || slices.Contains(s.Layouts, layout)) &&
		(s.Setting == "" || setting == s.Setting)
}

// check says what the side names that its records do not have: its
// variant, its variant in its layout, or its setting, with what they have
// (renamed variants under today's id, as the figures are).
func (s Side) check() error {
	recs, _ := renameOldVariants(s.Records)
	var variants, columns, settings []string
	for _, r := range recs {
		if r.Variant == "" {
			continue
		}
		if !slices.Contains(variants, r.Variant) {
			variants = append(variants, r.Variant)
		}
		if c := columnName(&r); r.Variant == s.Variant && !slices.Contains(columns, c) {
			columns = append(columns, c)
		}
		if !slices.Contains(settings, r.Setting) {
			settings = append(settings, r.Setting)
		}
	}
	switch {
	case s.Variant != "" && !slices.Contains(variants, s.Variant):
		return fmt.Errorf("%s: no variant %s in the records (they have %s)", s.Name, s.Variant, strings.Join(variants, ", "))
	case s.Layouts != nil && !slices.ContainsFunc(recs, func(r results.Record) bool {
		return r.Variant == s.Variant && slices.Contains(s.Layouts, r.Layout)
	}):
		return fmt.Errorf("%s: no records of %s in the %s layout (they have %s)", s.Name, s.Variant, s.Layouts[0].Name(), strings.Join(columns, ", "))
	case s.Setting != "" && !slices.Contains(settings, s.Setting):
		return fmt.Errorf("%s: no setting %s in the records (they have %s)", s.Name, s.Setting, strings.Join(settings, ", "))
	}
	return nil
}

// compared names the Figures of a side that compare sets against the
// other side's: the parts of variant@setting the side does not fix, and
// the number of stores of their studies. Studies of different store
// counts (a sweep) are not samples of one figure: compare matches them by
// store count.
type compared struct {
	name   string
	stores int
}

// title names what is compared in the output: "sqlite@default, 50
// stores", or with both sides' variant and setting fixed, "sqlite@default
// vs sqlite@mmap-threshold".
func (c compared) title(of, nf *Figures) string {
	t := c.name
	if t == "" {
		t = of.Key() + " vs " + nf.Key()
	}
	if c.stores > 0 {
		t += ", " + storesText(c.stores)
	}
	return t
}

func storesText(n int) string { return thousands(float64(n)) + " stores" }

// figures returns the side's Figures of each variant, setting and store
// count, in the order of the variants and settings and then of the store
// counts, and a warning for each of their runs with several ok records.
func (s Side) figures() (keys []compared, by map[compared]*Figures, warnings []duplicate) {
	var counts []int
	byStores := map[int][]results.Record{}
	for _, r := range s.Records {
		if !slices.Contains(counts, r.Stores) {
			counts = append(counts, r.Stores)
		}
		byStores[r.Stores] = append(byStores[r.Stores], r)
	}
	slices.Sort(counts)
	by = map[compared]*Figures{}
	var names []string
	for _, n := range counts {
		figs, dups := collectFigures(byStores[n])
		for _, f := range figs {
			if !s.takes(f.Variant, f.Layout, f.Setting) {
				continue
			}
			k := compared{s.key(f), n}
			if !slices.Contains(names, k.name) {
				names = append(names, k.name)
			}
			keys = append(keys, k)
			by[k] = f
		}
		for _, d := range dups {
			if s.takes(d.used.Variant, d.used.Layout, d.used.Setting) {
				warnings = append(warnings, d)
			}
		}
	}
	slices.SortStableFunc(keys, func(a, b compared) int { return cmp.Compare(slices.Index(names, a.name), slices.Index(names, b.name)) })
	return keys, by, warnings
}

// Compare writes, for every variant, setting and store count both sides
// have and every figure both have, the old and new center, the change and
// whether it is significant, in benchstat's layout and wording.
//
// The unit of the test is a warm open run: a repeated figure has one value
// per run (the run's median over its stores, or its p99), pooled over the
// studies of one store count in a side. Per-store samples would make any
// drift of the machine between runs "significant"; runs are what repeats.
// A Mann–Whitney U test (golang.org/x/perf/benchmath, as benchstat) at
// α = 0.05 needs at least 4 runs a side to find anything. Single-valued
// figures (one value per study: create, memory, space) show their change
// with the note that one sample has no test; memory per open store is
// compared per number of stores held.
func Compare(w io.Writer, old, new Side) error { return compare(w, old, new, unitRun) }

// ComparePerStudy is Compare with a study as the unit of the test: a
// repeated figure has one value per study, the median of its runs'. The
// runs of one study share its machine, its load and its page cache, so
// pooling them can call a change significant that repeating the studies
// does not show; with studies of old and new made in turn, this unit
// does not. It needs at least 4 studies a side.
func ComparePerStudy(w io.Writer, old, new Side) error { return compare(w, old, new, unitStudy) }

// separateStudies is compare's caution above every table: on a 2-core
// VM, two studies of one build made within 20 minutes had 11 to 37 of
// their 156–168 warm-run figures called changed (docs/method.md,
// "Statistics"), and manydb ab is the method that holds there.
const separateStudies = "caution: studies made separately differ by more than their runs show (two studies of one build, 20 minutes apart on a 2-core VM: 11 to 37 of 156-168 figures called changed; docs/method.md); to decide whether a change is real, run A and B in interleaved rounds: manydb ab"

// unit is what one value of a repeated figure is in a comparison.
type unit int

const (
	unitRun   unit = iota // a warm open run, pooled over the studies
	unitStudy             // a study: the median of its runs
)

// text says the unit in the comparison's header.
func (u unit) text() string {
	if u == unitStudy {
		return "unit of the test: a study (the median of its warm open runs, each its median over the stores); single-valued figures: one value per study"
	}
	return "unit of the test: a warm open run (its median over the stores), pooled over the studies of one store count; single-valued figures: one value per study"
}

// whose names the values of a repeated figure in unit u.
func (u unit) whose() string {
	if u == unitStudy {
		return "studies'"
	}
	return "runs'"
}

// values are a repeated figure's values in unit u.
func (u unit) values(f *Figures, d figure) []float64 {
	if u == unitStudy && d.perRun {
		return studyValues(f, d.name)
	}
	return f.Values[d.name]
}

// compare is Compare in unit u.
func compare(w io.Writer, old, new Side, u unit) error {
	if err := cmp.Or(old.check(), new.check()); err != nil { // the first side's error
		return err
	}
	oldKeys, oldBy, oldWarn := old.figures()
	newKeys, newBy, newWarn := new.figures()
	var keys, oldOnly, newOnly []compared
	for _, k := range oldKeys {
		if newBy[k] != nil {
			keys = append(keys, k)
		} else {
			oldOnly = append(oldOnly, k)
		}
	}
	for _, k := range newKeys {
		if oldBy[k] == nil {
			newOnly = append(newOnly, k)
		}
	}
	if len(keys) == 0 {
		return noneInCommon(old, new, oldKeys, newKeys)
	}
	fmt.Fprintf(w, "old: %s\nnew: %s\n", old.Name, new.Name)
	for _, d := range oldWarn {
		fmt.Fprintf(w, "old: warning: %v\n", d)
	}
	for _, d := range newWarn {
		fmt.Fprintf(w, "new: warning: %v\n", d)
	}
	for _, side := range []struct {
		name string
		only []compared
		by   map[compared]*Figures
	}{{"old", oldOnly, oldBy}, {"new", newOnly, newBy}} {
		for _, k := range side.only {
			if k.stores > 0 && slices.ContainsFunc(keys, func(c compared) bool { return c.name == k.name }) {
				fmt.Fprintf(w, "%s only, not compared: %s\n", side.name, k.title(side.by[k], side.by[k]))
			}
		}
	}
	fmt.Fprintln(w, u.text())
	fmt.Fprintln(w, separateStudies)
	var notes footnotes
	for _, k := range keys {
		of, nf := oldBy[k], newBy[k]
		fmt.Fprintf(w, "\n%s\n", k.title(of, nf))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "figure\told\t±\tnew\t±\tvs base\t\tnotes\t\n")
		for _, d := range exportedFigures() {
			if d.phase == job.PhaseHold || d.phase == job.PhaseServe {
				for _, n := range commonLevels(of, nf, d.name) {
					label := fmt.Sprintf("%s, %s (%s)", d.name, d.levelText(n), d.unit)
					compareFigure(tw, label, d, of, nf, levelValues(of, d.name, n), levelValues(nf, d.name, n), u, &notes)
				}
				continue
			}
			if len(of.Values[d.name]) > 0 && len(nf.Values[d.name]) > 0 {
				compareFigure(tw, fmt.Sprintf("%s (%s)", d.name, d.unit), d, of, nf, u.values(of, d), u.values(nf, d), u, &notes)
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
			if len(side.f.NotWarm) > 0 {
				fmt.Fprintf(w, "%s: warm runs that were not warm (the cache differed, not only the engine): %s\n", side.name, strings.Join(side.f.NotWarm, ", "))
			}
		}
	}
	fmt.Fprintf(w, "\n± is the %.0f %% confidence interval of the median (benchmath, no distribution assumed); ~ means no significant change at α = %.2f (Mann–Whitney U test).\n", confidence*100, benchmath.DefaultThresholds.CompareAlpha)
	for i, n := range notes {
		fmt.Fprintf(w, "(%d) %s\n", i+1, n)
	}
	return nil
}

// noneInCommon is the error of two sides with nothing to compare: no
// variant and setting in common, or none with a store count in common.
func noneInCommon(old, new Side, oldKeys, newKeys []compared) error {
	counts := func(keys []compared, name string) string {
		var ns []string
		for _, k := range keys {
			if k.name == name {
				ns = append(ns, thousands(float64(k.stores)))
			}
		}
		return strings.Join(ns, ", ")
	}
	for _, k := range oldKeys {
		if slices.ContainsFunc(newKeys, func(c compared) bool { return c.name == k.name }) {
			return fmt.Errorf("%s has studies of %s stores, %s of %s: compare compares studies of the same number of stores", old.Name, counts(oldKeys, k.name), new.Name, counts(newKeys, k.name))
		}
	}
	return fmt.Errorf("%s and %s have no variant and setting in common", old.Name, new.Name)
}

// compareFigure writes the line of one figure both sides have, labelled
// label: each side's center and interval of its values ov and nv (in
// unit u), the change, the test and the notes' marks.
func compareFigure(tw io.Writer, label string, d figure, of, nf *Figures, ov, nv []float64, u unit, notes *footnotes) {
	thr := benchmath.DefaultThresholds
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
			xs   []float64
		}{{"old", of, ov}, {"new", nf, nv}} {
			if xs := side.xs; len(xs) > 1 && side.f.Spread[d.name] > 0 && stats.Max(xs)-stats.Min(xs) > side.f.Spread[d.name] {
				warn = append(warn, notes.mark(side.name+": the "+u.whose()+" medians differ by more than the interquartile range of one run"))
			}
		}
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", label, num(osum.Center), osum.PctRangeString(), num(nsum.Center), nsum.PctRangeString(), delta, test, strings.Join(warn, " "))
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
