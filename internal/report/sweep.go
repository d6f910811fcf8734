package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// sweepTable is one sweep (manydb run --stores 100,1000,…) under one
// setting: each variant's figures against the number of stores, one study
// per store count.
type sweepTable struct {
	id, setting string
	counts      []int // store counts, smallest first
	variants    []string
	holds       []int // hold counts seen, smallest first
	// figs holds, by variant and store count, the figures of that count's
	// study; held, by variant, store count and hold count, its hold record.
	figs      map[string]map[int]*Figures
	held      map[string]map[int]map[int]*results.Record
	residency map[string]map[int]float64 // lowest warm-run residency, before or after the run
	fanout    int
	objects   int // objects per store
}

// sweepSetting names a sweep table: a sweep and a setting.
type sweepSetting struct{ sweep, setting string }

// studySetting names the records of one study and setting.
type studySetting struct{ study, setting string }

// groupSweeps finds the sweeps in recs: studies whose env record names a
// sweep, one table per sweep and setting, in the order they appear.
func groupSweeps(recs []results.Record) []*sweepTable {
	countOf := map[string]int{}    // study → its store count
	sweepOf := map[string]string{} // study → its sweep
	for _, r := range recs {
		if r.Phase == job.PhaseEnv && r.Config != nil && r.Config.Sweep != nil {
			countOf[r.Study], sweepOf[r.Study] = r.Stores, r.Config.Sweep.ID
		}
	}
	var order []*sweepTable
	byKey := map[sweepSetting]*sweepTable{}
	perStudy := map[studySetting][]results.Record{} // study and setting → its records
	for i := range recs {
		r := &recs[i]
		id := sweepOf[r.Study]
		if id == "" || r.Setting == "" || r.Phase == job.PhaseEnv || r.Phase == job.PhaseEnd {
			continue
		}
		key := sweepSetting{id, r.Setting}
		t := byKey[key]
		if t == nil {
			t = &sweepTable{id: id, setting: r.Setting, figs: map[string]map[int]*Figures{},
				held: map[string]map[int]map[int]*results.Record{}, residency: map[string]map[int]float64{}}
			byKey[key] = t
			order = append(order, t)
		}
		n := countOf[r.Study]
		if !slices.Contains(t.counts, n) {
			t.counts = append(t.counts, n)
		}
		if !slices.Contains(t.variants, r.Variant) {
			t.variants = append(t.variants, r.Variant)
			t.held[r.Variant] = map[int]map[int]*results.Record{}
			t.residency[r.Variant] = map[int]float64{}
		}
		t.fanout, t.objects = r.Fanout, r.Workload.Objects
		ss := studySetting{r.Study, r.Setting}
		perStudy[ss] = append(perStudy[ss], *r)
		if r.Status != results.StatusOK {
			continue
		}
		if r.Hold != nil {
			if t.held[r.Variant][n] == nil {
				t.held[r.Variant][n] = map[int]*results.Record{}
			}
			t.held[r.Variant][n][r.Hold.Held] = r
			if !slices.Contains(t.holds, r.Hold.Held) {
				t.holds = append(t.holds, r.Hold.Held)
			}
		}
		if r.Phase == job.PhaseOpen && r.Cache == "" && r.ResidentBefore != nil {
			low, seen := t.residency[r.Variant][n]
			if x := lowestResidency(r); !seen || x < low {
				t.residency[r.Variant][n] = x
			}
		}
	}
	for _, t := range order {
		slices.Sort(t.counts)
		slices.Sort(t.holds)
		for study, n := range countOf {
			if sweepOf[study] != t.id {
				continue
			}
			for _, f := range CollectFigures(perStudy[studySetting{study, t.setting}]) {
				if t.figs[f.Variant] == nil {
					t.figs[f.Variant] = map[int]*Figures{}
				}
				t.figs[f.Variant][n] = f
			}
		}
	}
	return order
}

// sweepRow is one row of a sweep table: a label and the value for a
// variant and store count, NaN when there is none.
type sweepRow struct {
	label string
	title string // the label standing alone (figure.title)
	unit  string // ms, KB or %
	value func(t *sweepTable, v string, n int) float64
}

// center is the median of a figure's values in one study (its per-run
// values for a repeated figure), NaN when it has none.
func (t *sweepTable) center(v string, n int, figure string) float64 {
	f := t.figs[v][n]
	if f == nil {
		return math.NaN()
	}
	xs := slices.DeleteFunc(slices.Clone(f.Values[figure]), math.IsNaN)
	if len(xs) == 0 {
		return math.NaN()
	}
	return stats.Median(xs)
}

// rows are the sweep's rows: the swept figures in the registry's order,
// those of the hold phase once per number of stores held, then the
// residency of the warm runs.
func (t *sweepTable) rows() []sweepRow {
	var rows []sweepRow
	for _, f := range figures {
		if f.uses&swept != 0 && f.phase != job.PhaseHold {
			rows = append(rows, sweepRow{f.labelFor(t.objects, 0), f.title(t.objects, 0), f.unit, func(t *sweepTable, v string, n int) float64 { return t.center(v, n, f.name) }})
		}
	}
	for _, h := range t.holds {
		for _, f := range figures {
			if f.uses&swept != 0 && f.phase == job.PhaseHold {
				rows = append(rows, sweepRow{f.labelFor(t.objects, h), f.title(t.objects, h), f.unit, func(t *sweepTable, v string, n int) float64 {
					if r := t.held[v][n][h]; r != nil {
						return f.value(r)
					}
					return math.NaN()
				}})
			}
		}
	}
	residency := "Warm runs: stores' pages in the page cache before or after the run (lowest)"
	return append(rows, sweepRow{residency, residency, "%", func(t *sweepTable, v string, n int) float64 {
		if r, ok := t.residency[v][n]; ok {
			return 100 * r
		}
		return math.NaN()
	}})
}

// lowestResidency is the lower of a warm run's residencies before and
// after it.
func lowestResidency(r *results.Record) float64 {
	if r.ResidentAfter != nil {
		return min(*r.ResidentBefore, *r.ResidentAfter)
	}
	return *r.ResidentBefore
}

func (r sweepRow) text(x float64) string {
	switch {
	case math.IsNaN(x):
		return "–"
	case r.unit == "ms":
		return millis(x, 3)
	case r.unit == "%" && x < 100*WarmResident:
		return percentDown(x/100) + " (not warm)"
	case r.unit == "%":
		return fmt.Sprintf("%.0f %%", x)
	}
	return thousands(x) + " " + r.unit
}

// header is the column headers: one per store count.
func (t *sweepTable) header() []string {
	h := make([]string, len(t.counts))
	for i, n := range t.counts {
		h[i] = thousands(float64(n)) + " stores"
	}
	return h
}

// texts are a variant's rows as text, a label first.
func (t *sweepTable) texts(v string) [][]string {
	var out [][]string
	for _, r := range t.rows() {
		row := []string{r.label}
		has := false
		for _, n := range t.counts {
			x := r.value(t, v, n)
			has = has || !math.IsNaN(x)
			row = append(row, r.text(x))
		}
		if has {
			out = append(out, row)
		}
	}
	return out
}

func (t *sweepTable) layout() string {
	if t.fanout == 0 {
		return "flat store directories"
	}
	return fmt.Sprintf("store directories nested %d deep (--fanout %d)", t.fanout, t.fanout)
}

// writeSweeps writes, for each sweep, one table per variant: each figure
// against the number of stores.
func writeSweeps(w io.Writer, sweeps []*sweepTable) {
	for _, t := range sweeps {
		fmt.Fprintf(w, "\n## Sweep %s, setting %s: each figure against the number of stores\n\n", t.id, t.setting)
		fmt.Fprintf(w, "One study per store count (its own tables above); the smaller counts' stores are the first N of the largest count's set; %s. Each timing is the median over the count's warm runs of each run's median; memory per open store from the hold phase of that many stores. A warm run whose sampled stores had less than %.0f %% of their pages in the page cache before or after it is marked not warm.\n", t.layout(), 100*WarmResident)
		for _, v := range t.variants {
			fmt.Fprintf(w, "\n### %s\n\n", v)
			fmt.Fprintf(w, "| | %s |\n", strings.Join(t.header(), " | "))
			fmt.Fprintf(w, "| --- |%s\n", strings.Repeat(" --- |", len(t.counts)))
			for _, row := range t.texts(v) {
				fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
			}
		}
	}
}

// plot draws one sweep row, named name, against the number of stores (a log axis; the
// value's axis is logarithmic when it spans more than a decade, else
// linear from zero), a line per variant; nil when no variant has two
// points.
func (t *sweepTable) plot(r sweepRow, name string) (*plot.Plot, error) {
	var lines []any
	lo, hi := math.Inf(1), 0.0
	for _, v := range t.variants {
		var pts plotter.XYs
		for _, n := range t.counts {
			if y := r.value(t, v, n); n > 0 && !math.IsNaN(y) && y > 0 { // both axes are logarithmic
				pts = append(pts, plotter.XY{X: float64(n), Y: y})
				lo, hi = min(lo, y), max(hi, y)
			}
		}
		lines = addLine(lines, v, pts, 2)
	}
	p, err := linesPlot("stores", fmt.Sprintf("%s (%s)", name, r.unit), lines, func(v string) string { return v })
	if p == nil || err != nil {
		return nil, err
	}
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	if r.unit != "%" && hi/lo >= 20 {
		// Over more than a decade a log axis (its ticks label the powers
		// of ten); it needs a positive range.
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = lo/1.2, hi*1.2
		return p, nil
	}
	// Within a decade a linear axis from zero.
	p.Y.Min, p.Y.Max = 0, hi*1.1
	return p, nil
}

// sweepHTML is the HTML sections of the sweeps: per sweep a section whose
// table rows are variant and figure, columns the store counts, and a chart
// per figure.
func sweepHTML(sweeps []*sweepTable) ([]htmlTable, error) {
	var out []htmlTable
	for _, t := range sweeps {
		ht := htmlTable{Title: fmt.Sprintf("Sweep %s, setting %s: each figure against the number of stores", t.id, t.setting),
			Workload: t.layout(), Variants: t.header()}
		for _, v := range t.variants {
			for _, row := range t.texts(v) {
				ht.Rows = append(ht.Rows, append([]string{v + ": " + row[0]}, row[1:]...))
			}
		}
		for _, r := range t.rows() {
			p, err := t.plot(r, r.title)
			if err != nil {
				return nil, err
			}
			if p == nil {
				continue
			}
			s, err := svgLegendRight(p, len(t.variants))
			if err != nil {
				return nil, err
			}
			ht.Charts = append(ht.Charts, htmlChart{Title: r.title + " against the number of stores (log axis)", SVG: s})
		}
		out = append(out, ht)
	}
	return out, nil
}
