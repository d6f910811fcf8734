package report

import (
	"bytes"
	"cmp"
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
	// group: the rows of one group are ranked together, the groups
	// apart in the order they first appear (rankGroup).
	group string
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
			if math.IsNaN(r.cells[i].value) || OutsideDomain(r.cells[i].value, f.unit) {
				continue
			}
			row := dotRow{label: r.label, color: r.family.color, cell: r.cells[i], p99: math.NaN(), group: rankGroup(r, f)}
			if withP99 {
				row.p99 = r.cells[i+1].value
			}
			rows = append(rows, row)
		}
		rows, bound, atBound := shareBounds(rows, f.unit)
		if len(rows) == 0 {
			continue
		}
		d := dotPlot(rows, f.unit)
		s, err := svgOf(d.plot, chartWidth, d.height)
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
		title += groupsText(rows, f) + notDrawn(o, i, d.left) + atBoundText(bound, atBound, "in every run") + beyondAxis(d.beyond)
		out = append(out, htmlChart{Title: title, SVG: s})
	}
	return out, nil
}

// rankGroup is the group a row of figure f is ranked within: its
// machine (figures of two machines are never ranked together) and, for a
// bare open, its layout (a shared store's agent open runs no SQL, a
// store's own opens its files: not the same work).
func rankGroup(r overviewRow, f figure) string {
	g := r.col.machine
	if f.name == string(FigureColdOpen) {
		g += "\x00" + string(r.col.layout)
	}
	return g
}

// groupsText is the end of a dot chart's caption when its rows are
// ranked in groups (rankGroup): what the groups are.
func groupsText(rows []dotRow, f figure) string {
	groups := map[string]bool{}
	for _, r := range rows {
		groups[r.group] = true
	}
	if len(groups) < 2 {
		return ""
	}
	if f.name == string(FigureColdOpen) {
		return ". Ranked by machine and layout, each from the smallest: a shared store's agent open runs no SQL, a store's own opens its files"
	}
	return ". Ranked by machine, each from the smallest: figures of two machines are not ranked together"
}

// shareBounds sets apart, for a share (unit "%"), the rows that are
// exactly at one end of its domain, 0 % or 100 %, in every run (an exact
// search's recall): when two or more are, and some row is not, those
// are named, not drawn, so that the chart's axis shows the rows that
// differ (else a dozen dots on one value and a few far from it leave the
// chart one dot wide). It returns the rows to draw, the end and the
// names of the rows at it.
func shareBounds(rows []dotRow, unit string) (drawn []dotRow, bound float64, names []string) {
	bound, at := atOneEnd(unit, len(rows), func(i int, b float64) bool { return onBound(rows[i], b) })
	if at == nil {
		return rows, 0, nil
	}
	for i, r := range rows {
		if at[i] {
			names = append(names, r.label)
		} else {
			drawn = append(drawn, r)
		}
	}
	return drawn, bound, names
}

// onBound tells whether row r is at b in every run: its value, its
// spread and its p99.
func onBound(r dotRow, b float64) bool {
	return r.cell.value == b && (!r.cell.spread || r.cell.lo == b && r.cell.hi == b) && (math.IsNaN(r.p99) || r.p99 == b)
}

// joinsAbove tells whether the overview's i-th figure is the p99 of the
// figure before it, which its chart draws.
func joinsAbove(o *overview, i int) bool {
	return i > 0 && o.figs[i].statistic == "p99" && o.figs[i].base == o.figs[i-1].name
}

// OutsideDomain tells whether a value of a unit is outside what the
// figure can be: a memory below zero (a difference of two samples that
// reads as less than nothing), shown as "≈ 0" and never ranked.
func OutsideDomain(v float64, unit string) bool { return unit == "KB" && v < 0 }

// notDrawn is the end of a dot chart's caption naming the rows of the
// overview's i-th figure the chart does not draw: those outside the
// figure's domain ("≈ 0") and those left (at or below zero on a log axis).
func notDrawn(o *overview, i int, left []dotRow) string {
	var names []string
	for _, r := range o.rows {
		if c := r.cells[i]; OutsideDomain(c.value, o.figs[i].unit) {
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

// A dotChart is a drawn dot chart: its plot, the height that gives each
// row the same room, the rows left out (at or below zero on a log axis)
// and the marks drawn at the edge of an axis cut short (cutAxis), each
// as "label value".
type dotChart struct {
	plot   *plot.Plot
	height vg.Length
	left   []dotRow
	beyond []string
}

// dotPlot draws rows as a horizontal dot chart, group by group (ranked),
// each from its smallest value at the top: a filled dot for the value in the row's colour, a line for its
// spread, a ring for its p99. The value axis is logarithmic when the
// positive values span more than ten times (logSpan); then the rows at or
// below zero are not drawn but left. The axis is cut short when a few
// marks lie far from the others (cutAxis): those are arrows at its edge.
func dotPlot(rows []dotRow, unit string) dotChart {
	var left []dotRow
	if spansDecade(dotValues(rows)) {
		if positive, out := splitPositive(rows); len(positive) > 0 {
			rows, left = positive, out
		}
	}
	rows = ranked(rows)
	n := len(rows)
	y := func(i int) float64 { return float64(n - 1 - i) } // the first row at the top
	p := plot.New()
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = color.Gray{0xdd}, color.Gray{0xee}
	p.Add(grid)
	cut := cutAxis(&p.X, dotValues(rows), unit)
	at := func(v float64) float64 { return cutAt(&p.X, cut, v) }
	var dots, rings cutMarks
	var beyond []string
	for i, r := range rows {
		if r.cell.spread {
			if line, err := plotter.NewLine(plotter.XYs{{X: at(r.cell.lo), Y: y(i)}, {X: at(r.cell.hi), Y: y(i)}}); err == nil {
				line.Color, line.Width = r.color, vg.Points(2)
				p.Add(line)
			}
		}
		dots.add(cut.side(r.cell.value), plotter.XY{X: at(r.cell.value), Y: y(i)}, r.color)
		if cut.side(r.cell.value) != 0 {
			beyond = append(beyond, r.label+" "+r.cell.text)
		}
		if !math.IsNaN(r.p99) {
			rings.add(cut.side(r.p99), plotter.XY{X: at(r.p99), Y: y(i)}, r.color)
			if cut.side(r.p99) != 0 {
				beyond = append(beyond, r.label+" p99 "+natural(r.p99, unit))
			}
		}
	}
	dots.draw(p, draw.CircleGlyph{}, vg.Points(3.5), true)
	rings.draw(p, draw.RingGlyph{}, vg.Points(3.5), true)
	names := make([]string, n)
	for i, r := range rows {
		names[n-1-i] = r.label
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	return dotChart{plot: p, height: vg.Length(rowHeight*max(n, 1) + axisHeight), left: left, beyond: beyond}
}

// ranked is rows in the order a dot chart draws them: group by group, in
// the order the groups first appear, each from the smallest value.
func ranked(rows []dotRow) []dotRow {
	rows = slices.Clone(rows)
	order := map[string]int{}
	for _, r := range rows {
		if _, ok := order[r.group]; !ok {
			order[r.group] = len(order)
		}
	}
	slices.SortStableFunc(rows, func(a, b dotRow) int {
		return cmp.Or(cmp.Compare(order[a.group], order[b.group]), byValue(a.cell.value, b.cell.value))
	})
	return rows
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
