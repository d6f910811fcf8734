package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
	"manydb/internal/workload"
)

// Figures are the figures of one variant under one setting in one layout,
// pooled over every study in the records: a repeated figure has one value
// per warm open run (the run's median or p99 over its stores), a
// single-valued figure one value per study.
type Figures struct {
	Variant string `json:"variant"`
	// Layout is job.LayoutShared for the shared layout, empty for a store
	// per agent.
	Layout  job.Layout `json:"layout,omitempty"`
	Setting string     `json:"setting"`
	// Values maps a figure name to its values, in record order.
	Values map[string][]float64 `json:"values"`
	// Units maps a figure name to its unit.
	Units map[string]string `json:"units"`
	// Loud lists the phases during which the load rose to --max-load.
	Loud []string `json:"loud,omitempty"`
	// NotWarm lists the warm runs that were not warm: below WarmResident
	// of their sampled store pages in the page cache before or after.
	NotWarm []string `json:"not_warm,omitempty"`
	// Spread maps a repeated figure to the median over runs of each
	// run's interquartile range over its stores (the spread of one run).
	Spread map[string]float64 `json:"spread,omitempty"`
	// Pooled maps a figure with one value per run to its statistic over
	// the samples of every run pooled (as the tables compute it: a p99 of
	// all stores of all runs), where Values has each run's.
	Pooled map[string]float64 `json:"pooled,omitempty"`
	// pooledSamples are the samples Pooled is computed from, until it is.
	pooledSamples map[string][]float64
	// levelOf maps a figure of the hold or serve phase to the level of
	// each of its values, in the order of Values: the stores held, or the
	// serve step's pool size (figure.level). compare compares the values
	// of one level.
	levelOf map[string][]int
	// studyOf maps a figure to the study of each of its values, in the
	// order of Values (ComparePerStudy takes one value per study).
	studyOf map[string][]string
}

// Key names a Figures: "variant@setting", "variant shared@setting".
func (f *Figures) Key() string { return f.column() + "@" + f.Setting }

// column is the variant with its layout, as the tables name its column.
func (f *Figures) column() string {
	return columnName(&results.Record{Variant: f.Variant, Layout: f.Layout})
}

// figuresKey is the Key of r's Figures.
func figuresKey(r *results.Record) string { return columnName(r) + "@" + r.Setting }

// CollectFigures gathers the exported figures of every variant and
// setting in recs, in the order they first appear. A phase recorded more
// than once in a study (a rerun) counts once, with its last ok record.
func CollectFigures(recs []results.Record) []*Figures {
	figs, _ := collectFigures(recs)
	return figs
}

// Duplicates warns, one error each, of the cells (study, variant,
// setting, phase, run) that have several ok records in recs, of which the
// figures take the last: the tables write these warnings under each
// table, the other formats leave them to the caller (manydb tables
// prints them on stderr).
func Duplicates(recs []results.Record) []error {
	_, dups := collectFigures(recs)
	errs := make([]error, len(dups))
	for i, d := range dups {
		errs[i] = d
	}
	return errs
}

// collectFigures is CollectFigures, and a warning for each run with
// several ok records.
func collectFigures(recs []results.Record) ([]*Figures, []duplicate) {
	recs, _ = renameOldVariants(recs)
	var order []*Figures
	by := map[string]*Figures{}
	var runs latest[figureRun]
	for i := range recs {
		r := &recs[i]
		switch r.Phase {
		case job.PhaseOpen, job.PhaseCreate, job.PhaseHold, job.PhaseSpace, job.PhaseTurn, job.PhaseServe, job.PhaseDelete:
		default:
			continue
		}
		if r.Status != results.StatusOK {
			continue
		}
		f := by[figuresKey(r)]
		if f == nil {
			f = &Figures{Variant: r.Variant, Layout: r.Layout, Setting: r.Setting, Values: map[string][]float64{}, Units: map[string]string{}, Spread: map[string]float64{},
				Pooled: map[string]float64{}, pooledSamples: map[string][]float64{}, levelOf: map[string][]int{}, studyOf: map[string][]string{}}
			by[f.Key()] = f
			order = append(order, f)
		}
		runs.put(figureRun{r.Study, r.Variant, r.Setting, r.Layout, r.Phase, r.Cache, r.Repeat()}, r)
	}
	iqrs := map[*Figures]map[string][]float64{}
	for _, r := range atLoad(runs.records(func(figureRun) bool { return true })) {
		f := by[figuresKey(r)]
		f.addLoud(r)
		if what := notWarm(r); what != "" {
			f.NotWarm = append(f.NotWarm, r.Study+" "+what)
		}
		f.add(r)
		if iqrs[f] == nil {
			iqrs[f] = map[string][]float64{}
		}
		addRunSpreads(iqrs[f], r)
	}
	for _, f := range order {
		for name, xs := range iqrs[f] {
			f.Spread[name] = stats.Median(xs)
		}
		f.pool()
	}
	return order, runs.duplicates()
}

// figureRun names one run of a phase of a variant, setting and study: a
// rerun replaces the run's earlier record.
type figureRun struct {
	study, variant, setting string
	layout                  job.Layout
	phase                   job.Phase
	cache                   job.CacheMode
	repeat                  int // results.Record.Repeat
}

// addLoud notes a record whose phase ran with the load at --max-load or above.
func (f *Figures) addLoud(r *results.Record) {
	if r.RanLoud() {
		what := fmt.Sprintf("%s %s", r.Study, r.Phase)
		if n := r.Repeat(); n > 0 {
			what += fmt.Sprintf(" run %d", n)
		}
		f.Loud = append(f.Loud, fmt.Sprintf("%s (load %.2f ≥ %.2f)", what, stats.Max(r.LoadDuring), r.MaxLoad))
	}
}

// add adds the value of each exported figure a record gives.
func (f *Figures) add(r *results.Record) {
	for _, d := range figures {
		if d.uses&exported == 0 || !d.is(r) {
			continue
		}
		v := d.of(r)
		if math.IsNaN(v) {
			continue // e.g. a query the study did not make
		}
		f.Values[d.name] = append(f.Values[d.name], v)
		f.studyOf[d.name] = append(f.studyOf[d.name], r.Study)
		f.Units[d.name] = d.unit
		if d.perRun {
			f.pooledSamples[d.name] = append(f.pooledSamples[d.name], d.samples(r)...)
		}
		if n, ok := d.level(r); ok {
			f.levelOf[d.name] = append(f.levelOf[d.name], n)
		}
	}
}

// pool computes Pooled from the samples of every run, and drops them.
func (f *Figures) pool() {
	for _, d := range figures {
		if xs := f.pooledSamples[d.name]; len(xs) > 0 {
			f.Pooled[d.name] = d.stat(xs)
		}
	}
	f.pooledSamples = nil
}

// addRunSpreads adds, for each figure with a run's spread, the
// interquartile range of a warm run's samples.
func addRunSpreads(iqrs map[string][]float64, r *results.Record) {
	for _, d := range figures {
		if d.uses&runSpread != 0 && d.is(r) {
			if xs := d.samples(r); len(xs) > 0 { // none: a record without the figure's samples
				iqrs[d.name] = append(iqrs[d.name], stats.Quantile(xs, 0.75)-stats.Quantile(xs, 0.25))
			}
		}
	}
}

// names lists the names of the figures f has, in the registry's order.
func (f *Figures) names() []string {
	var names []string
	for _, d := range figures {
		if len(f.Values[d.name]) > 0 {
			names = append(names, d.name)
		}
	}
	return names
}

// WriteGobench writes the figures as Go benchmark lines, so that benchstat
// reads manydb results: one line per warm open run with the run's repeated
// figures, one line per study with its single-valued figures, and serve's
// figures one line per serve step under a benchmark per pool size
// (…/pool=N). The name is BenchmarkManydb/variant=V/setting=S; units are
// "figure-unit".
func WriteGobench(w io.Writer, recs []results.Record) error {
	figs := CollectFigures(recs)
	if len(figs) == 0 {
		return ErrNoStudies
	}
	var perRun, perStudy, perPool []figure
	for _, d := range exportedFigures() {
		switch {
		case d.phase == job.PhaseServe:
			perPool = append(perPool, d)
		case d.perRun:
			perRun = append(perRun, d)
		default:
			perStudy = append(perStudy, d)
		}
	}
	fmt.Fprintln(w, "pkg: manydb")
	for _, f := range figs {
		name := fmt.Sprintf("BenchmarkManydb/%s/setting=%s", f.Layout.Mark("variant="+f.Variant, "/layout="), f.Setting)
		all := func(d figure) []float64 { return f.Values[d.name] }
		writeBenchLines(w, name, perRun, all)
		writeBenchLines(w, name, perStudy, all)
		for _, n := range f.levels(perPool) {
			writeBenchLines(w, fmt.Sprintf("%s/pool=%d", name, n), perPool, func(d figure) []float64 { return levelValues(f, d.name, n) })
		}
	}
	return nil
}

// writeBenchLines writes benchmark name's lines of the figures figs: the
// i-th line holds the i-th value of each figure that has one.
func writeBenchLines(w io.Writer, name string, figs []figure, values func(d figure) []float64) {
	n := 0
	for _, d := range figs {
		n = max(n, len(values(d)))
	}
	for i := range n {
		var parts []string
		for _, d := range figs {
			if xs := values(d); i < len(xs) {
				unit := d.name + "-" + d.unit
				if strings.HasSuffix(d.unit, "/s") { // stores/s, requests/s
					unit = d.unit
				}
				parts = append(parts, fmt.Sprintf("%.6g %s", xs[i], unit))
			}
		}
		fmt.Fprintf(w, "%s 1 %s\n", name, strings.Join(parts, " "))
	}
}

// levels are the levels (pool sizes, stores held) of f's values of the
// figures figs, smallest first.
func (f *Figures) levels(figs []figure) []int {
	var ns []int
	for _, d := range figs {
		for _, n := range f.levelOf[d.name] {
			if !slices.Contains(ns, n) {
				ns = append(ns, n)
			}
		}
	}
	slices.Sort(ns)
	return ns
}

// WriteJSON writes the figures of every variant and setting as a JSON array.
func WriteJSON(w io.Writer, recs []results.Record) error {
	figs := CollectFigures(recs)
	if len(figs) == 0 {
		return ErrNoStudies
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(figs)
}

// WriteCSV writes the figures as CSV, one row per value: variant, setting,
// figure, unit, n (the run, or the study for single-valued figures,
// counted from 1 in record order) and value.
func WriteCSV(w io.Writer, recs []results.Record) error {
	figs := CollectFigures(recs)
	if len(figs) == 0 {
		return ErrNoStudies
	}
	cw := csv.NewWriter(w)
	cw.Write([]string{"variant", "setting", "figure", "unit", "n", "value"})
	for _, f := range figs {
		for _, name := range f.names() {
			for i, v := range f.Values[name] {
				cw.Write([]string{f.column(), f.Setting, name, f.Units[name], strconv.Itoa(i + 1), strconv.FormatFloat(v, 'g', 6, 64)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// commonLevels are the levels (stores held, pool sizes) that both sides'
// values of a hold or serve figure have, smallest first.
func commonLevels(of, nf *Figures, name string) []int {
	var hs []int
	for _, h := range of.levelOf[name] {
		if slices.Contains(nf.levelOf[name], h) && !slices.Contains(hs, h) {
			hs = append(hs, h)
		}
	}
	slices.Sort(hs)
	return hs
}

// levelValues are the values of a hold or serve figure at level n.
func levelValues(f *Figures, name string, n int) []float64 {
	var xs []float64
	for i, h := range f.levelOf[name] {
		if h == n {
			xs = append(xs, f.Values[name][i])
		}
	}
	return xs
}

// studyValues are figure name's values with one per study: the median
// of each study's values, in the order the studies first appear.
func studyValues(f *Figures, name string) []float64 {
	var studies []string
	by := map[string][]float64{}
	for i, v := range f.Values[name] {
		st := f.studyOf[name][i]
		if by[st] == nil {
			studies = append(studies, st)
		}
		by[st] = append(by[st], v)
	}
	xs := make([]float64, len(studies))
	for i, st := range studies {
		xs[i] = stats.Median(by[st])
	}
	return xs
}

// Levels are the levels of figure name's values (the stores held, or a
// serve step's pool size), smallest first, each once; none for a figure
// of another phase.
func (f *Figures) Levels(name string) []int {
	return f.levels([]figure{{name: name}})
}

// ValuesAt are figure name's values at level n (Levels), in record order.
func (f *Figures) ValuesAt(name string, n int) []float64 { return levelValues(f, name, n) }

// Natural writes a value of a figure's unit as the tables do: three
// significant digits, memory in KB, MB or GB, times in µs or ms.
func Natural(v float64, unit string) string { return natural(v, unit) }

// TopicsText says how a workload's embeddings cluster when not by
// default, as the tables' workload line does: " (topics drawn from a pool
// of 50 shared by all agents)"; "" by default.
func TopicsText(w workload.Spec) string { return topicsText(w) }
