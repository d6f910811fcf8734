package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"manydb/internal/results"
	"manydb/internal/stats"
)

// Figure is one figure of one variant in one study and setting, with its
// samples: one per run for the timings (the median of the run's per-store
// samples), a single value for figures measured once (create median,
// memory per open store, space).
type Figure struct {
	Study   string    `json:"study"`
	Setting string    `json:"setting"`
	Variant string    `json:"variant"`
	Name    string    `json:"figure"` // e.g. "open", "total", "recent", "anon_per_store"
	Unit    string    `json:"unit"`   // "ms" or "KB"
	Values  []float64 `json:"values"`
}

// Median is the median of the figure's values.
func (f Figure) Median() float64 { return stats.Median(f.Values) }

// Figures returns every figure the records hold, in table order: by study
// and setting as they first appear, then variant, then figure.
func Figures(recs []results.Record) []Figure {
	var out []Figure
	for _, t := range group(recs) {
		for _, v := range t.variants {
			c := t.cells[v]
			add := func(name, unit string, values []float64) {
				if len(values) > 0 {
					out = append(out, Figure{Study: t.study, Setting: t.setting, Variant: v, Name: name, Unit: unit, Values: values})
				}
			}
			if c.create != nil {
				add("create", "ms", []float64{stats.Median(c.create.CreateMs)})
			}
			perRun := func(recs []*results.Record, pick func(r *results.Record) []float64) []float64 {
				sorted := append([]*results.Record(nil), recs...)
				sort.Slice(sorted, func(i, j int) bool { return sorted[i].Run < sorted[j].Run })
				var xs []float64
				for _, r := range sorted {
					if s := pick(r); len(s) > 0 {
						xs = append(xs, stats.Median(s))
					}
				}
				return xs
			}
			timings := func(prefix string, recs []*results.Record) {
				add(prefix+"open", "ms", perRun(recs, func(r *results.Record) []float64 { return r.OpenMs }))
				queries := t.queries
				if len(queries) == 0 {
					queries = []string{"count"}
				}
				for _, q := range queries {
					add(prefix+q, "ms", perRun(recs, func(r *results.Record) []float64 {
						if r.QueriesMs == nil && q == "count" {
							return r.QueryMs // the default: count alone
						}
						return r.QueriesMs[q]
					}))
				}
				add(prefix+"close", "ms", perRun(recs, func(r *results.Record) []float64 { return r.CloseMs }))
				add(prefix+"total", "ms", perRun(recs, func(r *results.Record) []float64 { return r.TotalMs }))
			}
			timings("", c.opens)
			for _, m := range t.modes {
				timings(m+"_", c.cached[m])
			}
			add("turn_total", "ms", perRun(c.turns, func(r *results.Record) []float64 { return r.TotalMs }))
			add("turn_append", "ms", perRun(c.turns, func(r *results.Record) []float64 { return r.QueriesMs["append"] }))
			if c.hold != nil {
				h := c.hold.Hold
				add("rss_per_store", "KB", []float64{h.RssKB})
				add("anon_per_store", "KB", []float64{h.AnonKB})
				if ct := h.Container; ct != nil {
					add("container_per_store", "KB", []float64{float64(ct.BytesAfter-ct.BytesBefore) / 1024 / float64(h.Held)})
				}
			}
			if c.space != nil {
				add("space_per_store", "KB", []float64{stats.Median(stats.Ints(c.space.Bytes)) / 1024})
			}
		}
	}
	return out
}

// Formats of manydb tables.
var Formats = []string{"md", "csv", "json", "gobench"}

// Write writes the records' figures in format: md (the tables), csv (one
// line per figure: median, min, max and the number of values), json (every
// figure with its values) or gobench (Go benchmark lines, one per value,
// for benchstat).
func Write(w io.Writer, recs []results.Record, format string) error {
	switch format {
	case "md":
		return Tables(w, recs)
	case "csv":
		return writeCSV(w, Figures(recs))
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(Figures(recs))
	case "gobench":
		return writeGobench(w, Figures(recs))
	}
	return fmt.Errorf("unknown format %q: use %s", format, strings.Join(Formats, ", "))
}

func writeCSV(w io.Writer, fs []Figure) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"study", "setting", "variant", "figure", "unit", "n", "median", "min", "max"})
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, f := range fs {
		cw.Write([]string{f.Study, f.Setting, f.Variant, f.Name, f.Unit, strconv.Itoa(len(f.Values)),
			num(f.Median()), num(stats.Min(f.Values)), num(stats.Max(f.Values))})
	}
	cw.Flush()
	return cw.Error()
}

// writeGobench writes one benchmark line per value: the name carries the
// variant, setting and figure (not the study, so that benchstat matches
// two files' figures), a "study:" configuration line precedes each study.
func writeGobench(w io.Writer, fs []Figure) error {
	study := ""
	for _, f := range fs {
		if f.Study != study {
			study = f.Study
			fmt.Fprintf(w, "study: %s\n", study)
		}
		for _, v := range f.Values {
			fmt.Fprintf(w, "BenchmarkManydb/variant=%s/setting=%s/figure=%s 1 %s %s\n", f.Variant, f.Setting, f.Name,
				strconv.FormatFloat(v, 'g', 6, 64), f.Unit)
		}
	}
	return nil
}
