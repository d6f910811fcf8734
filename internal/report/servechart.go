package report

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"manydb/internal/results"
)

// htmlServe is a serve study's decision charts: per pool size, each
// variant's p99 latency against its memory.
type htmlServe struct {
	ID     string // its anchor
	Title  string
	Charts []htmlChart
}

// serveCharts draws, for each pool size of a serve table, each column's
// p99 latency against the peak resident memory of its worker: a dot per
// column in its family's colour, its name beside it.
func serveCharts(t *table) ([]htmlChart, error) {
	var out []htmlChart
	for _, pool := range t.servePools() {
		var pts plotter.XYs
		var colors []color.NRGBA
		var names []string
		for _, col := range t.variants {
			for _, r := range t.columns[col].serves() {
				if r.Serve.Pool == pool && r.Status == results.StatusOK {
					pts = append(pts, plotter.XY{X: servePeakRSS(r.Serve), Y: serveP99(r.Serve)})
					colors = append(colors, familyOf(t.columns[col].variant).color)
					names = append(names, col)
				}
			}
		}
		if len(pts) == 0 {
			continue
		}
		p, err := scatterPlot(pts, colors, names)
		if err != nil {
			return nil, err
		}
		s, err := svgOf(p, chartWidth, 260)
		if err != nil {
			return nil, err
		}
		out = append(out, htmlChart{Title: fmt.Sprintf("Pool of %s open stores: p99 latency against peak resident memory (lower left is better)", thousands(float64(pool))), SVG: s})
	}
	return out, nil
}

// scatterPlot draws named points of p99 latency (ms) against memory (KB),
// each in its colour with its name beside it.
func scatterPlot(pts plotter.XYs, colors []color.NRGBA, names []string) (*plot.Plot, error) {
	p := plot.New()
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = color.Gray{0xdd}, color.Gray{0xdd}
	p.Add(grid, glyphs(pts, colors, draw.CircleGlyph{}))
	p.Add(newRepelLabels(pts, names))
	var xs, ys []float64
	for _, pt := range pts {
		xs, ys = append(xs, pt.X), append(ys, pt.Y)
	}
	valueAxis(&p.X, xs, "KB")
	valueAxis(&p.Y, ys, "ms")
	p.X.Max *= 1.4 // room for the names right of the dots
	p.X.Label.Text = strings.TrimSpace("peak resident memory of the worker " + p.X.Label.Text)
	p.Y.Label.Text = "p99 latency, " + p.Y.Label.Text
	return p, nil
}
