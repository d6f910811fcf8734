package report

import (
	"image/color"
	"manydb/internal/job"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// recallFloor is the share of the 10 nearest missed at which the recall
// chart's axis stops: an answer missing less (an exact search misses
// none) is drawn there, "≥ 99.9 %".
const recallFloor = 0.001

// recallPlot draws, for a table whose study made knn queries, each
// column's mean recall@10 against its knn latency (median, warm), as
// ann-benchmarks draws them: a dot per column in its family's colour,
// its name beside it. The recall axis is logarithmic in the share missed,
// so that 90 %, 99 % and 99.9 % stand a step apart; nil without knn.
func recallPlot(t *table) (*plot.Plot, error) {
	if !made(job.QueryKNN)(t) {
		return nil, nil
	}
	knn, recall := figureNamed(string(FigureKNN)), figureNamed(string(FigureRecall))
	var pts plotter.XYs
	var colors []color.NRGBA
	var names []string
	var xs []float64
	for _, col := range t.variants {
		c := t.columns[col]
		k, r := cellOf(knn, t, c).value, cellOf(recall, t, c).value
		if math.IsNaN(k) || math.IsNaN(r) || k <= 0 {
			continue
		}
		pts = append(pts, plotter.XY{X: k, Y: max(1-r/100, recallFloor)})
		colors, names, xs = append(colors, familyOf(c.variant).color), append(names, col), append(xs, k)
	}
	if len(pts) == 0 {
		return nil, nil
	}
	p := plot.New()
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = color.Gray{0xdd}, color.Gray{0xdd}
	p.Add(grid, glyphs(pts, colors, draw.CircleGlyph{}))
	p.Add(newRepelLabels(pts, names))
	valueAxis(&p.X, xs, "ms")
	p.X.Max *= 1.4 // room for the names right of the dots
	p.X.Label.Text = "knn latency, median, " + p.X.Label.Text
	p.Y.Scale = plot.InvertedScale{Normalizer: plot.LogScale{}}
	p.Y.Min, p.Y.Max = recallFloor/1.5, 1
	p.Y.Tick.Marker = recallTicks{}
	p.Y.Label.Text = "recall@10, mean (log scale)"
	return p, nil
}

// recallTicks marks the recall axis at 0 %, 50 %, 90 %, 99 % and ≥ 99.9 %.
type recallTicks struct{}

// Ticks implements plot.Ticker: the values are shares missed.
func (recallTicks) Ticks(_, _ float64) []plot.Tick {
	return []plot.Tick{{Value: 1, Label: "0 %"}, {Value: 0.5, Label: "50 %"}, {Value: 0.1, Label: "90 %"},
		{Value: 0.01, Label: "99 %"}, {Value: recallFloor, Label: "≥ 99.9 %"}}
}
