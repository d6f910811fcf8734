package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"manydb/internal/job"
	"manydb/internal/results"
)

// htmlServe is a serve study's decision charts: per pool size, each
// variant's p99 latency against its memory.
type htmlServe struct {
	ID     string // its anchor
	Title  string
	Charts []htmlChart
}

// serveCharts draws a serve table's decision chart: each column's p99
// latency against the peak resident memory of its worker, one line per
// column through its pool sizes in order (its path as the pool grows),
// in its family's colour, each axis logarithmic where its values span
// more than ten times (valueAxis).
func serveCharts(t *table) ([]htmlChart, error) {
	var lines []any
	var xs, ys []float64
	for _, col := range t.variants {
		var pts plotter.XYs
		for _, pool := range t.servePools() {
			for _, r := range atLoad(t.columns[col].serves()) {
				if r.Serve.Pool == pool && r.Status == results.StatusOK && !math.IsNaN(servePeakRSS(r.Serve)) {
					pts = append(pts, plotter.XY{X: servePeakRSS(r.Serve), Y: serveP99(r.Serve)})
					xs, ys = append(xs, servePeakRSS(r.Serve)), append(ys, serveP99(r.Serve))
				}
			}
		}
		if len(pts) > 0 {
			lines = append(lines, col, pts)
		}
	}
	if len(lines) == 0 {
		return nil, nil
	}
	beyond := farNames(lines, ys, func(col string, pt plotter.XY) string {
		return fmt.Sprintf("%s at %s: %s", t.columns[col].variant, memory(pt.X), natural(pt.Y, "ms"))
	})
	far := cutLines(lines, ys, "ms", t.colorOf)
	var starts plotter.XYs // each path's first point, its smallest pool
	var startColors []color.NRGBA
	for i := 0; i < len(lines); i += 2 {
		starts, startColors = append(starts, lines[i+1].(plotter.XYs)[0]), append(startColors, t.colorOf(lines[i].(string)))
	}
	p, err := linesPlot("", "", lines, func(col string) string { return t.columns[col].variant })
	if p == nil || err != nil {
		return nil, err
	}
	rings := glyphs(starts, startColors, draw.RingGlyph{})
	rings.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		return draw.GlyphStyle{Color: startColors[i], Radius: vg.Points(6), Shape: draw.RingGlyph{}}
	}
	p.Add(rings)
	valueAxis(&p.X, xs, "KB") // logarithmic where the values span decades
	far.drawOn(p, ys, "ms")
	p.X.Label.Text = strings.TrimSpace("peak resident memory of the worker " + p.X.Label.Text)
	p.Y.Label.Text = "p99 latency, " + p.Y.Label.Text
	s, err := svgLegendRightSized(p, len(lines)/2, 600, 400)
	if err != nil {
		return nil, err
	}
	pools := make([]string, 0, len(t.servePools()))
	for _, n := range t.servePools() {
		pools = append(pools, thousands(float64(n)))
	}
	return []htmlChart{{SVG: s, Title: fmt.Sprintf("p99 latency against peak resident memory, each variant's path as its pool of open stores grows (%s; a ring marks the smallest pool; the tables below give each point): lower left is better%s", strings.Join(pools, ", "), beyondAxis(beyond))}}, nil
}

// serveChargedPlot draws, for a serve table run under a memory limit
// (serve --memory-max), the peak each pool's worker was charged in its
// memory cgroup against the pool size, a line per variant, with the
// limit drawn across; nil without a limit.
func serveChargedPlot(t *table) (*plot.Plot, error) {
	limit := 0.0
	for _, c := range t.columns {
		for _, r := range atLoad(c.serves()) {
			if r.Serve != nil && r.Serve.Limit != nil {
				limit = max(limit, float64(r.Serve.Limit.LimitBytes)/1024)
			}
		}
	}
	if limit == 0 {
		return nil, nil
	}
	p, err := servePlotCut("peak charged to the container", "KB", serveChargedPeak, false)(t)
	if p == nil || err != nil {
		return p, err
	}
	line, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: limit}, {X: p.X.Max, Y: limit}})
	if err != nil {
		return nil, err
	}
	line.Color, line.Width, line.Dashes = color.Gray{0x55}, vg.Points(1), []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(line)
	p.Legend.Add("the limit, "+memory(limit), line)
	p.Y.Max = math.Max(p.Y.Max, limit*1.15)
	return p, nil
}

// serveChargedPeak is the most a serve step's memory cgroup was charged,
// in KB (NaN without a limit or a recorded peak).
func serveChargedPeak(s *results.Serve) float64 {
	if s.Limit == nil || s.Limit.PeakBytes <= 0 {
		return math.NaN()
	}
	return float64(s.Limit.PeakBytes) / 1024
}

// holdMemoryPlot draws, for a table whose study held several counts of
// stores open (--hold 1,10,100,1000), each variant's anonymous memory per
// open store against the number held, a line per variant; nil with one
// count. The memory axis is cut short where a few values lie far from
// the others (cutLines), those named in the title (holdMemoryTitle).
func holdMemoryPlot(t *table) (*plot.Plot, error) {
	h := holdMemoryOf(t)
	if h.counts < 2 || len(h.lines) == 0 {
		return nil, nil
	}
	far := cutLines(h.lines, h.values, "KB", t.colorOf)
	p, err := linesPlot("stores held open (log axis)", "", h.lines, func(col string) string { return t.columns[col].variant })
	if p == nil || err != nil {
		return p, err
	}
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, naturalTicks{plot.LogTicks{Prec: -1}, ""}
	far.drawOn(p, h.values, "KB")
	p.Y.Label.Text = strings.TrimSpace("per open store " + p.Y.Label.Text)
	return p, nil
}

// holdMemoryTitle is the title of holdMemoryPlot's chart, naming the
// points drawn at the edge of its memory axis cut short.
func holdMemoryTitle(t *table) string {
	title := "Memory per open store against the number of stores held open (anonymous: the process' own memory)"
	h := holdMemoryOf(t)
	if h.counts < 2 || len(h.lines) == 0 {
		return title
	}
	return title + beyondAxis(farNames(h.lines, h.values, func(col string, pt plotter.XY) string {
		return fmt.Sprintf("%s with %s held %s", t.columns[col].variant, thousands(pt.X), memory(pt.Y))
	}))
}

// colorOf is the colour a column's lines are drawn in: its family's.
func (t *table) colorOf(col string) color.NRGBA { return familyOf(t.columns[col].variant).color }

// lineCut is a line chart's value axis cut short where a few values lie
// far from the others (cutAxis): their points drawn at its edge as
// arrows.
type lineCut struct {
	cut  axisCut
	axis plot.Axis // the axis as it will be drawn, to place the far points at its edge
	far  cutMarks
}

// cutLines cuts the value axis of lines (name, then its points, in
// pairs) over values of unit, moves each point beyond the cut to the
// axis' edge and gathers it as an arrow in its line's colour.
func cutLines(lines []any, values []float64, unit string, colorOf func(name string) color.NRGBA) *lineCut {
	c := &lineCut{}
	c.cut = cutAxis(&c.axis, values, unit)
	for i := 0; i < len(lines); i += 2 {
		pts := lines[i+1].(plotter.XYs)
		for j, pt := range pts {
			if side := c.cut.side(pt.Y); side != 0 {
				pts[j].Y = cutAt(&c.axis, c.cut, pt.Y)
				c.far.add(side, pts[j], colorOf(lines[i].(string)))
			}
		}
	}
	return c
}

// drawOn sets p's value axis as cutLines cut it and draws the arrows.
func (c *lineCut) drawOn(p *plot.Plot, values []float64, unit string) {
	cutAxis(&p.Y, values, unit)
	c.far.draw(p, draw.CircleGlyph{}, vg.Points(3.5), false)
}

// farNames names, with name, each point of lines (name, then its points,
// in pairs, not yet cut) whose value lies beyond the cut of values' axis.
func farNames(lines []any, values []float64, name func(col string, pt plotter.XY) string) []string {
	cut := cutOf(values)
	var names []string
	for i := 0; i < len(lines); i += 2 {
		for _, pt := range lines[i+1].(plotter.XYs) {
			if cut.side(pt.Y) != 0 {
				names = append(names, name(lines[i].(string), pt))
			}
		}
	}
	return names
}

// holdMemory is a table's holds: a line per column held at two counts
// or more (name, then its points: stores held, anonymous KB per open
// store), the values of those lines, and how many counts were held.
type holdMemory struct {
	lines  []any
	values []float64
	counts int
}

// holdMemoryOf gathers t's holds for holdMemoryPlot.
func holdMemoryOf(t *table) holdMemory {
	var h holdMemory
	counts := map[int]bool{}
	for _, col := range t.variants {
		var pts plotter.XYs
		for _, r := range t.columns[col].records(job.PhaseHold, "") {
			if r.Status == results.StatusOK && r.Hold != nil && r.Hold.Held > 0 {
				pts = append(pts, plotter.XY{X: float64(r.Hold.Held), Y: r.Hold.AnonKB})
				counts[r.Hold.Held] = true
			}
		}
		if len(pts) >= 2 { // a line: the axis covers the values drawn, no others
			h.lines = addLine(h.lines, col, pts, 2)
			for _, pt := range pts {
				h.values = append(h.values, pt.Y)
			}
		}
	}
	h.counts = len(counts)
	return h
}

// servePlot draws one serve figure (what, in unit) against the pool size,
// a line per variant; nil when the table has no serve records or serve
// measured one pool size only. The pool axis is logarithmic over pool +
// 1, so that pools of 0, 100 and 10,000 stand apart; the figure's axis is
// logarithmic when it spans more than ten times (valueAxis), and cut
// short where a few values lie far from the others (cutLines).
func servePlot(what, unit string, y func(s *results.Serve) float64) func(t *table) (*plot.Plot, error) {
	return servePlotCut(what, unit, y, true)
}

// servePlotCut is servePlot with its value axis cut short where a few
// values lie far (cut), or whole (a chart whose axis another line sets:
// serveChargedPlot's limit).
func servePlotCut(what, unit string, y func(s *results.Serve) float64, cut bool) func(t *table) (*plot.Plot, error) {
	return func(t *table) (*plot.Plot, error) {
		lines, ys := servePoolLines(t, y)
		pools := poolTicks(t.servePools())
		if len(pools) < 2 || len(lines) == 0 { // one pool: the serve table gives each variant's one value
			return nil, nil
		}
		far := &lineCut{}
		if cut {
			far = cutLines(lines, ys, unit, t.colorOf)
		}
		p, err := linesPlot("open stores in the pool (log axis)", "", lines, func(col string) string { return t.columns[col].variant })
		if p == nil || err != nil {
			return p, err
		}
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, pools
		p.X.Min, p.X.Max = 1/1.5, float64(slices.Max(pools)+1)*1.5
		if cut {
			far.drawOn(p, ys, unit)
		} else {
			valueAxis(&p.Y, ys, unit)
		}
		p.Y.Label.Text = strings.TrimSpace(what + " " + p.Y.Label.Text)
		return p, nil
	}
}

// servePoolLines are a serve figure's lines against pool + 1, one per
// column with a value (name, then its points), and every value.
func servePoolLines(t *table, y func(s *results.Serve) float64) ([]any, []float64) {
	var lines []any
	var ys []float64
	for _, v := range t.variants {
		var pts plotter.XYs
		for _, r := range atLoad(t.columns[v].serves()) {
			if v := y(r.Serve); r.Status == results.StatusOK && !math.IsNaN(v) {
				pts = append(pts, plotter.XY{X: float64(r.Serve.Pool) + 1, Y: v})
				ys = append(ys, v)
			}
		}
		lines = addLine(lines, v, pts, 1)
	}
	return lines, ys
}

// poolTicks marks the pool sizes on an axis of pool + 1.
type poolTicks []int

// Ticks implements plot.Ticker: a tick at each pool size, named by it.
func (p poolTicks) Ticks(_, _ float64) []plot.Tick {
	ticks := make([]plot.Tick, len(p))
	for i, n := range p {
		ticks[i] = plot.Tick{Value: float64(n) + 1, Label: thousands(float64(n))}
	}
	return ticks
}
