package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// A dotRow is one row of a dot chart: a variant's value, its spread
// across runs and its p99 (NaN when the chart has none).
type dotRow struct {
	label string
	color color.NRGBA
	cell  cell
	p99   float64
}

// decisionCharts draws an overview's figures, one horizontal dot chart
// each, the variants on the vertical axis from the smallest value down;
// a p99 figure is drawn as a ring on the chart of its median.
func decisionCharts(o *overview) ([]htmlChart, error) {
	var out []htmlChart
	for i, f := range o.figs {
		if joinsAbove(o, i) {
			continue
		}
		withP99 := i+1 < len(o.figs) && joinsAbove(o, i+1)
		var rows []dotRow
		for _, r := range o.rows {
			if math.IsNaN(r.cells[i].value) || outsideDomain(r.cells[i].value, f.unit) {
				continue
			}
			row := dotRow{label: r.label, color: r.family.color, cell: r.cells[i], p99: math.NaN()}
			if withP99 {
				row.p99 = r.cells[i+1].value
			}
			rows = append(rows, row)
		}
		if len(rows) == 0 {
			continue
		}
		p, height, left := dotPlot(rows, f.unit)
		s, err := svgOf(p, chartWidth, height)
		if err != nil {
			return nil, err
		}
		title := header(o.labels[i])
		if withP99 {
			title += " (dot) and p99 (ring)"
		}
		if f.perRun {
			title += "; the line: its spread across runs"
		}
		title += notDrawn(o, i, left)
		out = append(out, htmlChart{Title: title, SVG: s})
	}
	return out, nil
}

// joinsAbove tells whether the overview's i-th figure is the p99 of the
// figure before it, which its chart draws.
func joinsAbove(o *overview, i int) bool {
	return i > 0 && o.figs[i].statistic == "p99" && o.figs[i].base == o.figs[i-1].name
}

// outsideDomain tells whether a value of a unit is outside what the
// figure can be: a memory below zero (a difference of two samples that
// reads as less than nothing), shown as "≈ 0" and never ranked.
func outsideDomain(v float64, unit string) bool { return unit == "KB" && v < 0 }

// notDrawn is the end of a dot chart's caption naming the rows of the
// overview's i-th figure the chart does not draw: those outside the
// figure's domain ("≈ 0") and those left (at or below zero on a log axis).
func notDrawn(o *overview, i int, left []dotRow) string {
	var names []string
	for _, r := range o.rows {
		if c := r.cells[i]; outsideDomain(c.value, o.figs[i].unit) {
			names = append(names, fmt.Sprintf("%s ≈ 0 (measured %s)", r.label, c.text))
		}
	}
	for _, r := range left {
		names = append(names, r.label+" "+r.cell.text)
	}
	if len(names) == 0 {
		return ""
	}
	return ". Not drawn, not ranked: " + strings.Join(names, "; ")
}

// dotPlot draws rows as a horizontal dot chart, smallest value at the
// top: a filled dot for the value in the row's colour, a line for its
// spread, a ring for its p99. The value axis is logarithmic when the
// positive values span more than ten times (logSpan); then the rows at or
// below zero are not drawn but returned. It returns the plot, the height
// that gives each row the same room, and the rows left out.
func dotPlot(rows []dotRow, unit string) (*plot.Plot, vg.Length, []dotRow) {
	var left []dotRow
	if spansDecade(dotValues(rows)) {
		if positive, out := splitPositive(rows); len(positive) > 0 {
			rows, left = positive, out
		}
	}
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b dotRow) int { return byValue(a.cell.value, b.cell.value) })
	n := len(rows)
	y := func(i int) float64 { return float64(n - 1 - i) } // the first row at the top
	p := plot.New()
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = color.Gray{0xdd}, color.Gray{0xee}
	p.Add(grid)
	var values []float64
	var dots, rings plotter.XYs
	var dotColors, ringColors []color.NRGBA
	for i, r := range rows {
		values = append(values, r.cell.value)
		if r.cell.spread {
			values = append(values, r.cell.lo, r.cell.hi)
			if line, err := plotter.NewLine(plotter.XYs{{X: r.cell.lo, Y: y(i)}, {X: r.cell.hi, Y: y(i)}}); err == nil {
				line.Color, line.Width = r.color, vg.Points(2)
				p.Add(line)
			}
		}
		dots, dotColors = append(dots, plotter.XY{X: r.cell.value, Y: y(i)}), append(dotColors, r.color)
		if !math.IsNaN(r.p99) {
			values = append(values, r.p99)
			rings, ringColors = append(rings, plotter.XY{X: r.p99, Y: y(i)}), append(ringColors, r.color)
		}
	}
	p.Add(glyphs(dots, dotColors, draw.CircleGlyph{}))
	if len(rings) > 0 {
		p.Add(glyphs(rings, ringColors, draw.RingGlyph{}))
	}
	names := make([]string, n)
	for i, r := range rows {
		names[n-1-i] = r.label
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	valueAxis(&p.X, values, unit)
	return p, vg.Length(rowHeight*max(n, 1) + axisHeight), left
}

// dotValues are the values a dot chart of rows draws: each value, its
// spread and its p99.
func dotValues(rows []dotRow) []float64 {
	var vs []float64
	for _, r := range rows {
		vs = append(vs, r.cell.value)
		if r.cell.spread {
			vs = append(vs, r.cell.lo, r.cell.hi)
		}
		if !math.IsNaN(r.p99) {
			vs = append(vs, r.p99)
		}
	}
	return vs
}

// logSpan is how many times the largest positive value of an axis must
// be the smallest for the axis to be logarithmic.
const logSpan = 10

// spansDecade tells whether the positive values span more than logSpan
// times: a log axis shows them.
func spansDecade(values []float64) bool {
	lo, hi := math.Inf(1), 0.0
	for _, v := range values {
		if v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return hi > 0 && hi/lo > logSpan
}

// splitPositive parts rows into those whose value is above zero, their
// spread and p99 cut to the positive (a spread down to zero or below
// starts at the smallest positive value), and the others.
func splitPositive(rows []dotRow) (positive, left []dotRow) {
	lowest := math.Inf(1)
	for _, v := range dotValues(rows) {
		if v > 0 {
			lowest = math.Min(lowest, v)
		}
	}
	for _, r := range rows {
		if r.cell.value <= 0 {
			left = append(left, r)
			continue
		}
		if r.cell.spread && r.cell.lo <= 0 {
			r.cell.lo = lowest
		}
		if r.p99 <= 0 {
			r.p99 = math.NaN()
		}
		positive = append(positive, r)
	}
	return positive, left
}

// glyphs is a scatter of points, each in its own colour.
func glyphs(pts plotter.XYs, colors []color.NRGBA, shape draw.GlyphDrawer) *plotter.Scatter {
	s, _ := plotter.NewScatter(pts) // points of finite values: no error
	s.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		return draw.GlyphStyle{Color: colors[i], Radius: vg.Points(3.5), Shape: shape}
	}
	return s
}

// valueAxis sets an axis for values of a unit: logarithmic when they are
// positive and span more than a decade (the label says so), else linear
// from zero; its ticks read naturally (naturalTicks).
func valueAxis(a *plot.Axis, values []float64, unit string) {
	lo, hi := slices.Min(values), slices.Max(values)
	if lo > 0 && spansDecade(values) {
		logAxis(a, values, unit)
		return
	}
	a.Label.Text = unitLabel(unit)
	a.Tick.Marker = naturalTicks{plot.DefaultTicks{}, unit}
	if unit == "KB" {
		a.Tick.Marker = memoryTicks{}
	}
	a.Min, a.Max = math.Min(0, lo*1.05), math.Max(hi*1.05, 1e-9)
}

// logAxis sets a logarithmic axis for positive values of a unit (the
// label says so), its ticks reading naturally; a linear one (valueAxis)
// when a value is not positive.
func logAxis(a *plot.Axis, values []float64, unit string) {
	lo, hi := slices.Min(values), slices.Max(values)
	if lo <= 0 {
		valueAxis(a, values, unit)
		return
	}
	a.Scale, a.Tick.Marker = plot.LogScale{}, naturalTicks{plot.LogTicks{Prec: -1}, unit}
	if unit == "KB" {
		a.Tick.Marker = memoryLogTicks{}
	}
	a.Min, a.Max = lo/1.3, hi*1.3
	a.Label.Text = strings.TrimSpace(unitLabel(unit) + " (log axis)")
}

// unitLabel is an axis label for a unit; memory needs none, its ticks
// say KB or MB.
func unitLabel(unit string) string {
	if unit == "KB" {
		return ""
	}
	return unit
}

// naturalTicks labels the ticks of another marker as a reader says the
// values: "0.01", "2.5", "500 KB", "2 MB", never "2500.00".
type naturalTicks struct {
	marker plot.Ticker
	unit   string
}

// Ticks implements plot.Ticker.
func (n naturalTicks) Ticks(min, max float64) []plot.Tick {
	ticks := n.marker.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label == "" {
			continue
		}
		if n.unit == "KB" {
			ticks[i].Label = memory(ticks[i].Value)
		} else {
			ticks[i].Label = significant(ticks[i].Value)
		}
	}
	return ticks
}

// memoryTicks marks a linear axis of KB at round numbers of the unit the
// largest value reads in (KB, MB or GB): "0 MB", "10 MB", "20 MB".
type memoryTicks struct{}

// Ticks implements plot.Ticker.
func (memoryTicks) Ticks(min, max float64) []plot.Tick {
	scale := 1.0
	for _, s := range []float64{1 << 10, 1 << 20} {
		if math.Max(math.Abs(min), math.Abs(max)) >= s {
			scale = s
		}
	}
	ticks := plot.DefaultTicks{}.Ticks(min/scale, max/scale)
	for i := range ticks {
		ticks[i].Value *= scale
		if ticks[i].Label != "" {
			ticks[i].Label = memory(ticks[i].Value)
		}
	}
	return ticks
}

// memoryLogTicks marks a logarithmic axis of KB at 1, 10 and 100 KB,
// MB and GB (1 MB = 1,024 KB), so that every label is a round number.
type memoryLogTicks struct{}

// Ticks implements plot.Ticker.
func (memoryLogTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for _, scale := range []float64{1, 1 << 10, 1 << 20} {
		for _, step := range []float64{1, 10, 100} {
			if v := scale * step; v >= min && v <= max {
				ticks = append(ticks, plot.Tick{Value: v, Label: memory(v)})
			}
		}
	}
	return ticks
}

// svgOf draws p as inline SVG of a size in points.
func svgOf(p *plot.Plot, width, height vg.Length) (template.HTML, error) {
	c := vgsvg.New(width, height)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", fmt.Errorf("svg: %w", err)
	}
	return template.HTML(b.String()), nil
}
