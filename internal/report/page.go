package report

// The parts of the HTML page that the chart files and html.go share: its
// tables, charts and their sizes, and the plot helpers that draw them.

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

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

// linesPlot draws lines on a new plot with the axes' labels, each line
// in the colour of its variant's family (variantOf names the variant of
// a line's name) and the k-th of a family with the k-th dash pattern;
// nil when there is no line.
func linesPlot(xlabel, ylabel string, lines []any, variantOf func(name string) string) (*plot.Plot, error) {
	if len(lines) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	perFamily := map[string]int{}
	for i := 0; i < len(lines); i += 2 {
		name, pts := lines[i].(string), lines[i+1].(plotter.XYs)
		fam := familyOf(variantOf(name))
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", ylabel, err)
		}
		line.Color, line.Width, line.Dashes = fam.color, vg.Points(1.5), dashes(perFamily[fam.name])
		points.Color, points.Shape = fam.color, draw.CircleGlyph{}
		perFamily[fam.name]++
		p.Add(line, points)
		p.Legend.Add(name, line) // the line alone: its colour and dashes name it, and a dot there would read as data

	}
	return p, nil
}

// svgLegendRight draws p as inline SVG with its legend right of the
// plot, where it covers no line; the height grows with the legend.
func svgLegendRight(p *plot.Plot, entries int) (template.HTML, error) {
	return svgLegendRightSized(p, entries, chartWidth, 252)
}

// svgLegendRightSized is svgLegendRight with a plot of width and at least
// height points.
func svgLegendRightSized(p *plot.Plot, entries int, plotWidth, plotHeight vg.Length) (template.HTML, error) {
	const legendWidth = 120
	width, height := plotWidth+legendWidth, max(plotHeight, vg.Length(rowHeight*entries+40))
	legend := p.Legend
	p.Legend = plot.NewLegend()
	c := vgsvg.New(width, height)
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	legend.Top, legend.Left = true, true
	legend.Draw(draw.Crop(dc, width-legendWidth, 0, 0, -10))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", fmt.Errorf("svg: %w", err)
	}
	return template.HTML(b.String()), nil
}

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
	ID              string // its anchor
	Title, Workload string
	Variants        []string
	Rows            [][]string
	// Blocks is the table turned, when it has more variants than
	// variantsAsColumns: a variant per row and a few figures per block, so
	// no block is wider than the page (Variants and Rows are then empty).
	Blocks   []htmlBlock
	Notes    []string
	Groups   []htmlChartGroup // the distributions: small multiples
	Charts   []htmlChart
	Sessions string    // the sessions line: "" for one session
	Envs     []htmlEnv // one per session
}

// htmlEnv is the environment of one session.
type htmlEnv struct {
	Title string
	Env   map[string]string
}

type htmlChart struct {
	Title string
	SVG   template.HTML
	// frontier: a frontier chart (p99 against memory per agent), the
	// chart that answers at a glance.
	frontier bool
}

// An htmlBlock is part of a turned table: a row per variant, a column
// per figure.
type htmlBlock struct {
	Caption string // "" or what the block shows: "Pool size 100"
	Headers []string
	Rows    []htmlOverviewRow
}

// A chart group is a figure's distribution as small multiples: one small
// CDF per engine family, on the same axes.
type htmlChartGroup struct {
	Title  string
	Panels []htmlChart
}

// Sizes of the charts, in points (an SVG point is 4/3 of a CSS pixel).
const (
	chartWidth = 420 // a decision chart: two side by side at 1280 px
	rowHeight  = 14  // one variant's row of a dot chart
	axisHeight = 56  // a dot chart's value axis and margins
)

// dashes is the dash pattern of the k-th variant of a family in a panel.
func dashes(k int) []vg.Length {
	patterns := [][]vg.Length{nil, {vg.Points(4), vg.Points(2)}, {vg.Points(1), vg.Points(1.5)}, {vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2)}}
	return patterns[k%len(patterns)]
}

type htmlOverviewRow struct {
	Label, Family, Color string
	Cells                []htmlCell
}

// htmlCell is a cell of the overview: its value, its spread below it,
// and the number the sort script compares ("" for none).
type htmlCell struct{ Text, Spread, Sort string }
