package report

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// A chart builder draws one kind of figure for a study and setting, or
// returns nil when the records have nothing to draw. The report draws every
// chart of charts for every table: the distribution of each figure the
// registry marks drawn, then the charts below.
type chart struct {
	title func(t *table) string
	build func(t *table) (*plot.Plot, error)
}

// charts are the report's charts, in the order it draws them.
func charts() []chart {
	var out []chart
	for _, f := range figures {
		if f.uses&drawn != 0 {
			out = append(out, distributionChart(f))
		}
	}
	return append(out,
		titled("Memory per open store: anonymous and file-backed (KB)", memoryBars),
		titled("Space per store (KB, median)", spaceBars),
		titled("Load average over the study (1-minute, sampled every 10 s while each phase ran; each phase's span shaded)", loadPlot),
		titled("manydb serve: p99 latency per pool size (ms)", servePlot("p99 latency (ms)", func(s *results.Serve) float64 { return s.P99Ms })),
		titled("manydb serve: peak resident memory per pool size (MB)", servePlot("peak resident memory (MB)", func(s *results.Serve) float64 { return peak(s.RssKB) / 1024 })),
	)
}

// titled is a chart with a title of its own.
func titled(title string, build func(t *table) (*plot.Plot, error)) chart {
	return chart{title: func(*table) string { return title }, build: build}
}

// distributionChart draws the samples of figure f per store, pooled over
// its runs, as a CDF on a log time axis; its title is the figure's label.
func distributionChart(f figure) chart {
	title := func(t *table) string {
		label, _ := strings.CutSuffix(f.labelFor(t.objects, t.held), " (median)")
		return label + " per store (CDF, log time axis)"
	}
	pick := func(c *column) []float64 { return pooled(c.records(f.phase, f.cache), f.samples) }
	build := func(t *table) (*plot.Plot, error) {
		if f.when != nil && !f.when(t) {
			return nil, nil // as the table: a row of a measurement not made
		}
		return cdf(pick, f.name+" ("+f.unit+")")(t)
	}
	return chart{title: title, build: build}
}

// servePlot draws one serve figure against the pool size, a line per
// variant; nil when the table has no serve records.
func servePlot(ylabel string, y func(s *results.Serve) float64) func(t *table) (*plot.Plot, error) {
	return func(t *table) (*plot.Plot, error) {
		var lines []any
		for _, v := range t.variants {
			var pts plotter.XYs
			for _, r := range t.columns[v].serves() {
				if r.Status == results.StatusOK {
					pts = append(pts, plotter.XY{X: float64(r.Serve.Pool), Y: y(r.Serve)})
				}
			}
			lines = addLine(lines, v, pts, 1)
		}
		return linesPlot("open stores in the pool", ylabel, lines)
	}
}

// addLine appends one variant's line, its points sorted by x, to lines
// (name, points, … as plotutil.AddLinePoints takes them) when it has at
// least least points.
func addLine(lines []any, name string, pts plotter.XYs, least int) []any {
	if len(pts) < least {
		return lines
	}
	slices.SortFunc(pts, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
	return append(lines, name, pts)
}

// linesPlot draws lines on a new plot with the axes' labels; nil when
// there is no line.
func linesPlot(xlabel, ylabel string, lines []any) (*plot.Plot, error) {
	if len(lines) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return nil, fmt.Errorf("chart %s: %w", ylabel, err)
	}
	return p, nil
}

func pooledOpen(c *column, pick func(r *results.Record) []float64) []float64 {
	return pooled(c.opens(), pick)
}

// pooled joins the samples pick takes from each record.
func pooled(recs []*results.Record, pick func(r *results.Record) []float64) []float64 {
	var xs []float64
	for _, r := range recs {
		xs = append(xs, pick(r)...)
	}
	return xs
}

// cdfPoints bounds the points of one CDF line.
const cdfPoints = 300

// cdf builds the empirical distribution of one sample per variant.
func cdf(pick func(c *column) []float64, xlabel string) func(t *table) (*plot.Plot, error) {
	return func(t *table) (*plot.Plot, error) {
		p := plot.New()
		p.X.Label.Text, p.Y.Label.Text = xlabel, "fraction of stores"
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		var lines []any
		lo, hi := math.Inf(1), 0.0
		for _, v := range t.variants {
			xs := slices.Clone(pick(t.columns[v]))
			xs = slices.DeleteFunc(xs, func(x float64) bool { return x <= 0 })
			if len(xs) == 0 {
				continue
			}
			slices.Sort(xs)
			lo, hi = math.Min(lo, xs[0]), math.Max(hi, xs[len(xs)-1])
			// at most cdfPoints points: the chart looks the same, the page stays small
			step := max(1, len(xs)/cdfPoints)
			var pts plotter.XYs
			for i := step - 1; i < len(xs); i += step {
				pts = append(pts, plotter.XY{X: xs[i], Y: float64(i+1) / float64(len(xs))})
			}
			lines = append(lines, v, pts)
		}
		if len(lines) == 0 {
			return nil, nil
		}
		if err := plotutil.AddLines(p, lines...); err != nil {
			return nil, fmt.Errorf("chart %s: %w", xlabel, err)
		}
		// a log axis needs a positive range, also when every value is equal
		p.X.Min, p.X.Max = lo*0.9, hi*1.1
		return p, nil
	}
}

func memoryBars(t *table) (*plot.Plot, error) {
	rss, anon := figureNamed("rss-per-open-store"), figureNamed("anon-per-open-store")
	var names []string
	var anonKB, fileKB plotter.Values
	has := false
	for _, v := range t.variants {
		c := t.columns[v]
		if c.last(job.PhaseHold) == nil {
			continue
		}
		r, a := rss.valueIn(c), anon.valueIn(c)
		if math.IsNaN(r) || math.IsNaN(a) {
			names, anonKB, fileKB = append(names, noBar(v)), append(anonKB, 0), append(fileKB, 0)
			continue
		}
		names, anonKB, fileKB = append(names, v), append(anonKB, a), append(fileKB, math.Max(0, r-a))
		has = true
	}
	if !has {
		return nil, nil
	}
	p := plot.New()
	p.Y.Label.Text = "KB per open store"
	a, err := plotter.NewBarChart(anonKB, vg.Points(20))
	if err != nil {
		return nil, fmt.Errorf("memory chart: %w", err)
	}
	f, err := plotter.NewBarChart(fileKB, vg.Points(20))
	if err != nil {
		return nil, fmt.Errorf("memory chart: %w", err)
	}
	a.Color, f.Color = plotutil.Color(0), plotutil.Color(1)
	f.StackOn(a)
	p.Add(a, f)
	p.Legend.Add("anonymous", a)
	p.Legend.Add("file-backed", f)
	p.NominalX(names...)
	return p, nil
}

func spaceBars(t *table) (*plot.Plot, error) {
	space := figureNamed("space-per-store")
	var names []string
	var vals plotter.Values
	has := false
	for _, v := range t.variants {
		c := t.columns[v]
		if c.last(job.PhaseSpace) == nil {
			continue
		}
		x := space.valueIn(c)
		if math.IsNaN(x) {
			names, vals = append(names, noBar(v)), append(vals, 0)
			continue
		}
		names, vals = append(names, v), append(vals, x)
		has = true
	}
	if !has {
		return nil, nil
	}
	p := plot.New()
	p.Y.Label.Text = "KB per store"
	b, err := plotter.NewBarChart(vals, vg.Points(20))
	if err != nil {
		return nil, fmt.Errorf("space chart: %w", err)
	}
	b.Color = plotutil.Color(0)
	p.Add(b)
	p.NominalX(names...)
	return p, nil
}

// noBar names a variant without a value in a bar chart, as a table shows
// it: "sqlite: –" (its bar has no height).
func noBar(variant string) string { return variant + ": –" }

// svg draws p as inline SVG.
func svg(p *plot.Plot) (template.HTML, error) {
	c := vgsvg.New(6*vg.Inch, 3.5*vg.Inch)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", fmt.Errorf("svg: %w", err)
	}
	return template.HTML(b.String()), nil
}

type htmlTable struct {
	Title, Workload string
	Variants        []string
	Rows            [][]string
	Notes           []string
	Charts          []htmlChart
	Sessions        string    // the sessions line: "" for one session
	Envs            []htmlEnv // one per session
}

// htmlEnv is the environment of one session.
type htmlEnv struct {
	Title string
	Env   map[string]string
}

type htmlChart struct {
	Title string
	SVG   template.HTML
}

// HTML writes one self-contained HTML page: per study and setting its
// table, with the spread of the open figures across runs, its charts and
// the environment of the sessions that recorded it.
func HTML(w io.Writer, recs []results.Record) error {
	recs, renamed := renameOldVariants(recs)
	tables := group(recs, renamed)
	if len(tables) == 0 {
		return fmt.Errorf("no study records found")
	}
	var page []htmlTable
	for _, t := range tables {
		ht := htmlTable{Title: t.title(), Workload: t.workload, Variants: t.variants, Sessions: t.sessionsLine()}
		if t.served {
			ht.Title = "Serve s" + ht.Title[1:]
			ht.Rows = t.serveRowsHTML()
		}
		for _, r := range t.rows() {
			if t.served {
				break
			}
			row := []string{r.label}
			for _, v := range t.variants {
				row = append(row, t.text(r.fig, t.columns[v]))
			}
			ht.Rows = append(ht.Rows, row)
		}
		var notes bytes.Buffer
		t.writeNotes(&notes)
		ht.Notes = splitLines(notes.String())
		for i, s := range t.sessions {
			title := "Environment"
			if len(t.sessions) > 1 {
				title = t.sessionTitle(i)
			}
			ht.Envs = append(ht.Envs, htmlEnv{Title: title, Env: s.env.Env})
		}
		for _, ch := range charts() {
			p, err := ch.build(t)
			if err != nil {
				return err
			}
			if p == nil {
				continue
			}
			s, err := svg(p)
			if err != nil {
				return err
			}
			ht.Charts = append(ht.Charts, htmlChart{Title: ch.title(t), SVG: s})
		}
		page = append(page, ht)
	}
	sweeps, err := sweepHTML(groupSweeps(recs))
	if err != nil {
		return err
	}
	page = append(page, sweeps...)
	return pageTemplate.Execute(w, page)
}

func splitLines(s string) []string {
	var out []string
	for _, l := range bytes.Split([]byte(s), []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, string(l))
		}
	}
	return out
}

var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>manydb report</title>
<style>
body{font-family:sans-serif;margin:1.5em;max-width:75em}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #bbb;padding:.2em .5em;text-align:right}
td:first-child,th:first-child{text-align:left}
figure{display:inline-block;margin:.5em;page-break-inside:avoid}
figcaption{font-size:.9em}
dl{font-size:.85em}
@media print{section{page-break-before:always}}
</style></head><body>
<h1>manydb report</h1>
{{range .}}<section>
<h2>{{.Title}}</h2>
<p>Workload {{.Workload}}. The open figures pool every warm run; after each timing figure, its spread across runs (the notes below the table say which).</p>
{{with .Sessions}}<p>{{.}}</p>{{end}}
<table><tr><th></th>{{range .Variants}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{range .Notes}}<p>{{.}}</p>
{{end}}
{{range .Charts}}<figure>{{.SVG}}<figcaption>{{.Title}}</figcaption></figure>
{{end}}
{{range .Envs}}<details open><summary>{{.Title}}</summary><dl>{{range $k, $v := .Env}}<dt>{{$k}}</dt><dd>{{$v}}</dd>{{end}}</dl></details>
{{end}}
</section>
{{end}}</body></html>
`))

// loadPlot draws the 1-minute load average the orchestrator sampled while
// each phase's worker ran (one sample per 10 s: load_during), against the
// minutes since the table's first phase started, with each phase's span
// shaded; nil when no record has samples. When the table has several
// machines, each machine has its own line (and its minutes count from its
// own first phase).
func loadPlot(t *table) (*plot.Plot, error) {
	var machines []string
	byMachine := map[string][]*results.Record{}
	for _, v := range t.variants {
		c := t.columns[v]
		for _, r := range c.all {
			if len(r.LoadDuring) == 0 || r.Started.IsZero() {
				continue
			}
			if !slices.Contains(machines, c.machine) {
				machines = append(machines, c.machine)
			}
			byMachine[c.machine] = append(byMachine[c.machine], r)
		}
	}
	if len(machines) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = "minutes since the first phase started", "load average (1 min)"
	top := 0.0
	for _, recs := range byMachine {
		for _, r := range recs {
			top = math.Max(top, stats.Max(r.LoadDuring))
		}
	}
	for m, machine := range machines {
		recs := byMachine[machine]
		slices.SortFunc(recs, func(a, b *results.Record) int { return a.Started.Compare(b.Started) })
		t0 := recs[0].Started
		var pts plotter.XYs
		for i, r := range recs {
			start := r.Started.Sub(t0).Minutes()
			for k, l := range r.LoadDuring {
				pts = append(pts, plotter.XY{X: start + float64(k+1)*10/60, Y: l})
			}
			end := start + r.WorkerS/60
			span, err := plotter.NewPolygon(plotter.XYs{{X: start, Y: 0}, {X: end, Y: 0}, {X: end, Y: top * 1.05}, {X: start, Y: top * 1.05}})
			if err != nil {
				return nil, fmt.Errorf("load chart: %w", err)
			}
			c := plotutil.Color(m*2 + i%2)
			cr, cg, cb, _ := c.RGBA()
			span.Color = color.NRGBA{R: uint8(cr >> 8), G: uint8(cg >> 8), B: uint8(cb >> 8), A: 40}
			span.LineStyle.Width = 0
			p.Add(span)
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("load chart: %w", err)
		}
		if len(machines) > 1 {
			line.Color = plotutil.Color(m)
			p.Legend.Add(machine, line)
		}
		p.Add(line)
	}
	return p, nil
}
