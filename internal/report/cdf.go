package report

import (
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"manydb/internal/stats"
)

// Sizes of a small multiple, in points: five side by side at 1280 px.
const (
	panelWidth  = 175
	panelHeight = 135
	// panelPoints bounds the points of one CDF line of a panel.
	panelPoints = 150
	// bandSteps is the number of quantiles the grey band of every
	// variant is drawn at.
	bandSteps = 40
)

// cdfGroups draws the distribution per store of each figure the registry
// marks drawn, as small multiples; a figure the table did not measure
// (its row's when) or without samples has none.
func cdfGroups(t *table) ([]htmlChartGroup, error) {
	var out []htmlChartGroup
	for _, f := range figures {
		if f.uses&drawn == 0 || (f.when != nil && !f.when(t)) {
			continue
		}
		g, err := cdfGroup(f, t)
		if err != nil {
			return nil, err
		}
		if len(g.Panels) > 0 {
			out = append(out, g)
		}
	}
	return out, nil
}

// cdfGroup draws one figure's samples per store: a panel per family of
// the table's columns, its variants as lines in the family's colour (a
// dash pattern each), and in grey behind them the band every variant of
// the table spans, so that each panel reads against all the others.
func cdfGroup(f figure, t *table) (htmlChartGroup, error) {
	label, _ := strings.CutSuffix(f.labelFor(t.objects, t.held), " (median)")
	g := htmlChartGroup{Title: label + " per store: the share of stores (vertical) done within a time (log axis), a panel per engine family; grey: the range of every variant"}
	samples := map[string][]float64{}
	var cols []string
	lo, hi := math.Inf(1), 0.0
	for _, col := range t.variants {
		xs := slices.DeleteFunc(slices.Clone(pooled(t.columns[col].records(f.phase, f.cache), f.samples)), func(x float64) bool { return x <= 0 })
		if len(xs) == 0 {
			continue
		}
		slices.Sort(xs)
		samples[col], cols = xs, append(cols, col)
		lo, hi = math.Min(lo, xs[0]), math.Max(hi, xs[len(xs)-1])
	}
	if len(cols) == 0 {
		return g, nil
	}
	var variants []string
	for _, col := range cols {
		variants = append(variants, t.columns[col].variant)
	}
	band := quantileBand(cols, samples)
	for _, fam := range familiesOf(variants) {
		p := plot.New()
		p.Add(band)
		var names []string
		for _, col := range cols {
			if familyOf(t.columns[col].variant).name != fam.name {
				continue
			}
			line, err := plotter.NewLine(cdfLine(samples[col], panelPoints))
			if err != nil {
				return g, err
			}
			line.Color, line.Width, line.Dashes = fam.color, vg.Points(1.5), dashes(len(names))
			p.Add(line)
			names = append(names, col+" ("+dashName(len(names))+")")
		}
		smallPanel(p, f.unit, lo, hi)
		s, err := svgOf(p, panelWidth, panelHeight)
		if err != nil {
			return g, err
		}
		g.Panels = append(g.Panels, htmlChart{Title: fam.name + ": " + strings.Join(names, ", "), SVG: s})
	}
	return g, nil
}

// smallPanel sets a panel's axes (a log time axis from lo to hi, the
// share of stores from 0 to 1) and their small fonts; its caption names
// its lines, as no legend inside so small a panel stays off them.
func smallPanel(p *plot.Plot, unit string, lo, hi float64) {
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, naturalTicks{plot.LogTicks{Prec: -1}, unit}
	// a log axis needs a positive range, also when every value is equal
	p.X.Min, p.X.Max = lo*0.9, hi*1.1
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = naturalTicks{plot.DefaultTicks{}, ""}
	p.X.Label.Text = unit
	smallFonts(p)
}

// smallFonts sets the small fonts of a small multiple's axes.
func smallFonts(p *plot.Plot) {
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Tick.Label.Font.Size, a.Label.TextStyle.Font.Size = vg.Points(7), vg.Points(8)
	}
}

// cdfLine is the empirical distribution of sorted samples xs as at most
// most points.
func cdfLine(xs []float64, most int) plotter.XYs {
	step := max(1, len(xs)/most)
	var pts plotter.XYs
	for i := step - 1; i < len(xs); i += step {
		pts = append(pts, plotter.XY{X: xs[i], Y: float64(i+1) / float64(len(xs))})
	}
	return pts
}

// quantileBand is the grey band between the fastest and the slowest
// variant at each share of stores.
func quantileBand(cols []string, samples map[string][]float64) *plotter.Polygon {
	var left, right plotter.XYs
	for i := 0; i <= bandSteps; i++ {
		q := float64(i) / bandSteps
		var at []float64
		for _, col := range cols {
			at = append(at, stats.Quantile(samples[col], q))
		}
		left = append(left, plotter.XY{X: slices.Min(at), Y: q})
		right = append(right, plotter.XY{X: slices.Max(at), Y: q})
	}
	slices.Reverse(right)
	band, _ := plotter.NewPolygon(append(left, right...)) // finite points: no error
	band.Color = color.Gray{0xe4}
	band.LineStyle.Width = 0
	return band
}

// dashName names the dash pattern of the k-th variant for a caption.
func dashName(k int) string {
	return []string{"solid", "dashed", "dotted", "dash-dot"}[k%4]
}
