package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// Figure names, their units, and whether they have one value per warm
// open run (a repeated figure) or one value per study (a single-valued one).
var figureDefs = []struct {
	name, unit string
	perRun     bool
	value      func(r *results.Record) float64
}{
	{"open", "ms", true, func(r *results.Record) float64 { return stats.Median(r.OpenMs) }},
	{"query", "ms", true, func(r *results.Record) float64 { return stats.Median(r.QueryMs) }},
	{"close", "ms", true, func(r *results.Record) float64 { return stats.Median(r.CloseMs) }},
	{"open-query-close", "ms", true, func(r *results.Record) float64 { return stats.Median(r.TotalMs) }},
	{"open-query-close-p99", "ms", true, func(r *results.Record) float64 { return stats.P99(r.TotalMs) }},
	{"create", "ms", false, func(r *results.Record) float64 { return stats.Median(r.CreateMs) }},
	{"stores-per-second", "stores/s", false, func(r *results.Record) float64 {
		if r.WallS <= 0 {
			return math.NaN() // a sweep's smaller count: made with more stores
		}
		return float64(len(r.CreateMs)) / r.WallS
	}},
	{"count", "ms", true, query("count")},
	{"recent", "ms", true, query("recent")},
	{"get", "ms", true, query("get")},
	{"scan", "ms", true, query("scan")},
	{"cold-open", "ms", true, func(r *results.Record) float64 { return stats.Median(r.OpenMs) }},
	{"cold-open-query-close", "ms", true, func(r *results.Record) float64 { return stats.Median(r.TotalMs) }},
	{"turn", "ms", true, func(r *results.Record) float64 { return stats.Median(r.TotalMs) }},
	{"turn-append", "ms", true, query("append")},
	{"rss-per-open-store", "KB", false, func(r *results.Record) float64 { return r.Hold.RssKB }},
	{"anon-per-open-store", "KB", false, func(r *results.Record) float64 { return r.Hold.AnonKB }},
	{"container-per-open-store", "KB", false, func(r *results.Record) float64 {
		if c := r.Hold.Container; c != nil {
			return float64(c.BytesAfter-c.BytesBefore) / 1024 / float64(r.Hold.Held)
		}
		return math.NaN()
	}},
	{"space-per-store", "KB", false, func(r *results.Record) float64 { return stats.Median(stats.Ints(r.Bytes)) / 1024 }},
}

// query returns the median of one query's samples in a record that has
// them (--queries), NaN otherwise.
func query(name job.Query) func(r *results.Record) float64 {
	return func(r *results.Record) float64 {
		if xs := r.QueriesMs[name]; len(xs) > 0 {
			return stats.Median(xs)
		}
		return math.NaN()
	}
}

// phaseOf is the phase whose records give a figure, and their cache mode
// (open runs: "" warm, "cold").
func phaseOf(figure string) (phase job.Phase, cache job.CacheMode) {
	switch figure {
	case "create", "stores-per-second":
		return job.PhaseCreate, ""
	case "rss-per-open-store", "anon-per-open-store", "container-per-open-store":
		return job.PhaseHold, ""
	case "space-per-store":
		return job.PhaseSpace, ""
	case "cold-open", "cold-open-query-close":
		return job.PhaseOpen, "cold"
	case "turn", "turn-append":
		return job.PhaseTurn, ""
	}
	return job.PhaseOpen, ""
}

// Figures are the figures of one variant under one setting, pooled over
// every study in the records: a repeated figure has one value per warm
// open run (the run's median or p99 over its stores), a single-valued
// figure one value per study.
type Figures struct {
	Variant string `json:"variant"`
	Setting string `json:"setting"`
	// Values maps a figure name to its values, in record order.
	Values map[string][]float64 `json:"values"`
	// Units maps a figure name to its unit.
	Units map[string]string `json:"units"`
	// Loud lists the phases during which the load rose to --max-load.
	Loud []string `json:"loud,omitempty"`
	// Spread maps a repeated figure to the median over runs of each
	// run's interquartile range over its stores (the spread of one run).
	Spread map[string]float64 `json:"spread,omitempty"`
}

// Key names a Figures: "variant@setting".
func (f *Figures) Key() string { return f.Variant + "@" + f.Setting }

// CollectFigures gathers the figures of every variant and setting in recs,
// in the order they first appear. A phase recorded more than once in a
// study (a rerun) counts once, with its last ok record.
func CollectFigures(recs []results.Record) []*Figures {
	type slot struct {
		study, variant, setting string
		phase                   job.Phase
		cache                   job.CacheMode
		run                     int
	}
	last := map[slot]*results.Record{}
	var slots []slot
	var order []*Figures
	by := map[string]*Figures{}
	for i := range recs {
		r := &recs[i]
		switch r.Phase {
		case job.PhaseOpen, job.PhaseCreate, job.PhaseHold, job.PhaseSpace, job.PhaseTurn:
		default:
			continue
		}
		if r.Status != results.StatusOK {
			continue
		}
		k := r.Variant + "@" + r.Setting
		if by[k] == nil {
			by[k] = &Figures{Variant: r.Variant, Setting: r.Setting, Values: map[string][]float64{}, Units: map[string]string{}, Spread: map[string]float64{}}
			order = append(order, by[k])
		}
		s := slot{r.Study, r.Variant, r.Setting, r.Phase, r.Cache, r.Run}
		if last[s] == nil {
			slots = append(slots, s)
		}
		last[s] = r
	}
	iqrs := map[string]map[string][]float64{}
	for _, s := range slots {
		r := last[s]
		f := by[s.variant+"@"+s.setting]
		if r.MaxLoad > 0 && len(r.LoadDuring) > 0 && stats.Max(r.LoadDuring) >= r.MaxLoad {
			what := fmt.Sprintf("%s %s", r.Study, r.Phase)
			if r.Run > 0 {
				what += fmt.Sprintf(" run %d", r.Run)
			}
			f.Loud = append(f.Loud, fmt.Sprintf("%s (load %.2f ≥ %.2f)", what, stats.Max(r.LoadDuring), r.MaxLoad))
		}
		for _, d := range figureDefs {
			if phase, cache := phaseOf(d.name); phase != r.Phase || cache != r.Cache || (r.Phase == job.PhaseHold && r.Hold == nil) {
				continue
			}
			v := d.value(r)
			if math.IsNaN(v) {
				continue // e.g. a query the study did not make
			}
			f.Values[d.name] = append(f.Values[d.name], v)
			f.Units[d.name] = d.unit
		}
		if r.Phase == job.PhaseOpen && r.Cache == "" {
			if iqrs[f.Key()] == nil {
				iqrs[f.Key()] = map[string][]float64{}
			}
			for name, xs := range map[string][]float64{"open": r.OpenMs, "query": r.QueryMs, "close": r.CloseMs, "open-query-close": r.TotalMs} {
				iqrs[f.Key()][name] = append(iqrs[f.Key()][name], stats.Quantile(xs, 0.75)-stats.Quantile(xs, 0.25))
			}
		}
	}
	for _, f := range order {
		for name, xs := range iqrs[f.Key()] {
			f.Spread[name] = stats.Median(xs)
		}
	}
	return order
}

// figureNames lists the names of the figures f has, in figureDefs order.
func (f *Figures) names() []string {
	var names []string
	for _, d := range figureDefs {
		if len(f.Values[d.name]) > 0 {
			names = append(names, d.name)
		}
	}
	return names
}

// WriteGobench writes the figures as Go benchmark lines, so that benchstat
// reads manydb results: one line per warm open run with the run's repeated
// figures, and one line per study with its single-valued figures. The
// name is BenchmarkManydb/variant=V/setting=S; units are "figure-unit".
func WriteGobench(w io.Writer, recs []results.Record) error {
	figs := CollectFigures(recs)
	if len(figs) == 0 {
		return fmt.Errorf("no study records found")
	}
	fmt.Fprintln(w, "pkg: manydb")
	for _, f := range figs {
		name := fmt.Sprintf("BenchmarkManydb/variant=%s/setting=%s", f.Variant, f.Setting)
		for _, perRun := range []bool{true, false} {
			n := 0
			for _, d := range figureDefs {
				if d.perRun == perRun {
					n = max(n, len(f.Values[d.name]))
				}
			}
			for i := 0; i < n; i++ {
				var parts []string
				for _, d := range figureDefs {
					if d.perRun == perRun && i < len(f.Values[d.name]) {
						unit := d.name + "-" + d.unit
						if d.unit == "stores/s" {
							unit = d.unit
						}
						parts = append(parts, fmt.Sprintf("%.6g %s", f.Values[d.name][i], unit))
					}
				}
				fmt.Fprintf(w, "%s 1 %s\n", name, strings.Join(parts, " "))
			}
		}
	}
	return nil
}

// WriteJSON writes the figures of every variant and setting as a JSON array.
func WriteJSON(w io.Writer, recs []results.Record) error {
	figs := CollectFigures(recs)
	if len(figs) == 0 {
		return fmt.Errorf("no study records found")
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
		return fmt.Errorf("no study records found")
	}
	cw := csv.NewWriter(w)
	cw.Write([]string{"variant", "setting", "figure", "unit", "n", "value"})
	for _, f := range figs {
		for _, name := range f.names() {
			for i, v := range f.Values[name] {
				cw.Write([]string{f.Variant, f.Setting, name, f.Units[name], strconv.Itoa(i + 1), strconv.FormatFloat(v, 'g', 6, 64)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
