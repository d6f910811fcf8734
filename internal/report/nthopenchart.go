package report

// The chart of the n-th open: one small panel per variant of its opens
// against the stores already open (the figures are in nthopen.go).

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// openGrowthGroup draws the n-th open as small multiples: a panel per
// column whose last hold record has two open samples or more, with the
// median open of each of growthBins bins of consecutive opens against the
// stores already open, in its family's colour, and the fitted line
// (openFit) dashed. The panels share the axis of stores open; each has
// its own time axis from zero, in µs or ms (valueAxis), as the engines'
// opens differ a hundredfold and what a panel shows is its own tilt; the
// caption gives the figures of the table's rows and the bins drawn at
// the edge of an axis cut short (cutAxis).
func openGrowthGroup(t *table) (htmlChartGroup, error) {
	g := htmlChartGroup{Title: fmt.Sprintf("Open against the stores already open (the n-th open, in the hold phase): "+
		"the median open of each of %d bins of consecutive opens, a panel per variant, each with its own time axis from zero "+
		"(stopping short of a few bins far from the others, drawn as arrows at its edge, their medians in the panel's caption); "+
		"dashed: the Theil–Sen fit; the caption: the median open of the first and the last 10 %% and the growth per 1,000 stores open; "+
		"a hold split over processes has a second panel, a line per process against its own stores open", growthBins)}
	var cols []string
	most := 0
	for _, col := range t.variants {
		if r := t.columns[col].last(job.PhaseHold); r != nil && len(heldOpens(r)) >= 2 {
			cols = append(cols, col)
			most = max(most, len(heldOpens(r)))
		}
	}
	for _, col := range cols {
		r := t.columns[col].last(job.PhaseHold)
		p, beyond, err := openGrowthPanel(heldOpens(r), familyOf(t.columns[col].variant).color, most)
		if err != nil {
			return g, err
		}
		s, err := svgOf(p, panelWidth, panelHeight)
		if err != nil {
			return g, err
		}
		title := fmt.Sprintf("%s: %s → %s, %s per 1,000 open", col, natural(heldOpenEdge(false)(r), "µs"),
			natural(heldOpenEdge(true)(r), "µs"), natural(openGrowth(r), "µs"))
		switch len(beyond) {
		case 0:
		case 1:
			title += "; one bin far from the others drawn as an arrow at the axis' edge: " + beyond[0]
		default:
			title += fmt.Sprintf("; %d bins far from the others drawn as arrows at the axis' edge: %s", len(beyond), strings.Join(beyond, ", "))
		}
		g.Panels = append(g.Panels, htmlChart{Title: title, SVG: s})
		if parts := processOpens(r); parts != nil {
			panel, err := processesPanel(col, r, parts)
			if err != nil {
				return g, err
			}
			g.Panels = append(g.Panels, panel)
		}
	}
	return g, nil
}

// processesPanel is the panel of a hold split over processes beside its
// variant's: each process' opens (parts, processOpens) against its own
// stores already open, a line each in the family's colour.
func processesPanel(col string, r *results.Record, parts [][]float64) (htmlChart, error) {
	p, err := openProcessesPlot(parts, familyOf(r.Variant).color)
	if err != nil {
		return htmlChart{}, err
	}
	s, err := svgOf(p, panelWidth, panelHeight)
	if err != nil {
		return htmlChart{}, err
	}
	title := fmt.Sprintf("%s, in each of its %d processes, against its own stores open: %s per 1,000 open (median of the processes)",
		col, len(parts), natural(openGrowthInProcess(r), "µs"))
	return htmlChart{Title: title, SVG: s}, nil
}

// openProcessesPlot draws each part's bins' medians (openGrowthPanel's
// bins) as a line in colour c, against the stores already open in its
// own process.
func openProcessesPlot(parts [][]float64, c color.NRGBA) (*plot.Plot, error) {
	var lines []plotter.XYs
	most, top := 1, 0.0
	for _, xs := range parts {
		bx, by := binMedians(xs, growthBins)
		pts := make(plotter.XYs, len(bx))
		for i := range bx {
			pts[i] = plotter.XY{X: bx[i], Y: by[i]}
		}
		lines, most, top = append(lines, pts), max(most, len(xs)), max(top, stats.Max(by))
	}
	unit, scale := openUnit(top)
	p := plot.New()
	var values []float64
	for _, pts := range lines {
		for i := range pts {
			pts[i].Y *= scale
			values = append(values, pts[i].Y)
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("n-th open chart: %w", err)
		}
		line.Color, line.Width = c, vg.Points(1)
		p.Add(line)
	}
	valueAxis(&p.Y, values, unit)
	openAxes(p, most, "stores already open in its process")
	return p, nil
}

// openGrowthPanel draws one panel of openGrowthGroup: the bins' medians
// of opens (ms, sample i with i stores open) as a line with points in
// colour c, the fit dashed, stores open from 0 to most − 1. A few bins
// far from the others are drawn at the edge of the time axis, which stops
// short of them (cutAxis); it returns their medians, as they read.
func openGrowthPanel(opens []float64, c color.NRGBA, most int) (*plot.Plot, []string, error) {
	bx, by := binMedians(opens, growthBins)
	unit, scale := openUnit(stats.Max(by))
	values := make([]float64, len(bx))
	for i := range by {
		values[i] = by[i] * scale
	}
	var fit plotter.XYs
	if slope, intercept := stats.TheilSen(bx, by); !math.IsNaN(slope) {
		x0, x1 := bx[0], bx[len(bx)-1]
		fit = plotter.XYs{{X: x0, Y: (intercept + slope*x0) * scale}, {X: x1, Y: (intercept + slope*x1) * scale}}
		values = append(values, fit[0].Y, fit[1].Y)
	}
	p := plot.New()
	cut := cutAxis(&p.Y, values, unit)
	pts := make(plotter.XYs, len(bx))
	var marks cutMarks
	var beyond []string
	for i := range bx {
		pts[i] = plotter.XY{X: bx[i], Y: cutAt(&p.Y, cut, values[i])}
		marks.add(cut.side(values[i]), pts[i], c)
		if cut.side(values[i]) != 0 {
			beyond = append(beyond, natural(values[i], unit))
		}
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return nil, nil, fmt.Errorf("n-th open chart: %w", err)
	}
	line.Color, line.Width = c, vg.Points(1)
	p.Add(line)
	marks.draw(p, draw.CircleGlyph{}, vg.Points(1.5), false)
	if fit != nil {
		l, err := plotter.NewLine(fit)
		if err != nil {
			return nil, nil, fmt.Errorf("n-th open chart: %w", err)
		}
		l.Color, l.Width, l.Dashes = color.Gray{0x33}, vg.Points(1), dashes(1)
		p.Add(l)
	}
	cutAxis(&p.Y, values, unit) // again: adding the lines widened it
	openAxes(p, most, "stores already open")
	return p, beyond, nil
}

// openAxes sets an n-th open panel's axis of stores open, from 0 to
// most − 1 under label, and its small fonts; its time axis is its own.
func openAxes(p *plot.Plot, most int, label string) {
	p.X.Min, p.X.Max = 0, float64(max(1, most-1))
	p.X.Label.Text = label
	p.X.Tick.Marker = naturalTicks{plot.DefaultTicks{}, ""}
	smallFonts(p)
}

// openUnit is the unit of an n-th open panel whose largest open is top
// ms, and the factor from ms to it: µs below 1 ms, else ms.
func openUnit(top float64) (unit string, scale float64) {
	if top >= 1 {
		return "ms", 1
	}
	return "µs", 1000
}
