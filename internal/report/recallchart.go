package report

import (
	"cmp"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"manydb/internal/job"
)

// recallFloor is the share of the 10 nearest missed at which the recall
// chart's axis stops: an answer missing less (an exact search misses
// none) is drawn there, "≥ 99.9 %".
const recallFloor = 0.001

// recallStep is how many times lower each variant at ≥ 99.9 % is drawn
// than the one before it on the recall axis: a step each, so that
// marks that would sit on one another stand apart.
const recallStep = 2

// A recallMark is one column of a table whose study made knn queries:
// its name, colour, median knn latency (ms) and share of the 10 nearest
// missed.
type recallMark struct {
	name        string
	color       color.NRGBA
	knn, missed float64
}

// recallMarks are a table's columns with a knn latency and a recall, in
// the table's order; nil without knn.
func recallMarks(t *table) []recallMark {
	if !made(job.QueryKNN)(t) {
		return nil
	}
	knn, recall := figureNamed(string(FigureKNN)), figureNamed(string(FigureRecall))
	var marks []recallMark
	for _, col := range t.variants {
		c := t.columns[col]
		k, r := cellOf(knn, t, c).value, cellOf(recall, t, c).value
		if math.IsNaN(k) || math.IsNaN(r) || k <= 0 {
			continue
		}
		marks = append(marks, recallMark{name: col, color: familyOf(c.variant).color, knn: k, missed: 1 - r/100})
	}
	return marks
}

// recallPlot draws, for a table whose study made knn queries, each
// column's mean recall@10 against its knn latency (median, warm), as
// ann-benchmarks draws them: a dot per column in its family's colour,
// its name beside it. The recall axis is logarithmic in the share missed,
// so that 90 %, 99 % and 99.9 % stand a step apart; the columns at
// ≥ 99.9 % (an exact search) are drawn a step apart each (recallStep),
// the fastest at the top. The latency axis stops short of a few far
// values (cutAxis). Nil without knn.
func recallPlot(t *table) (*plot.Plot, error) {
	marks := recallMarks(t)
	if len(marks) == 0 {
		return nil, nil
	}
	p := plot.New()
	xs := make([]float64, len(marks))
	for i, m := range marks {
		xs[i] = m.knn
	}
	cut := cutAxis(&p.X, xs, "ms")
	ys := recallYs(marks)
	var dots cutMarks
	pts := make(plotter.XYs, len(marks))
	names := make([]string, len(marks))
	for i, m := range marks {
		pts[i], names[i] = plotter.XY{X: cutAt(&p.X, cut, m.knn), Y: ys[i]}, m.name
		dots.add(cut.side(m.knn), pts[i], m.color)
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = color.Gray{0xdd}, color.Gray{0xdd}
	p.Add(grid)
	dots.draw(p, draw.CircleGlyph{}, vg.Points(3.5), true)
	p.Add(newRepelLabels(pts, names))
	cutAxis(&p.X, xs, "ms") // again: adding the marks widened it
	p.X.Max *= 1.4          // room for the names right of the dots
	p.X.Label.Text = "knn latency, median, " + p.X.Label.Text
	p.Y.Scale = plot.InvertedScale{Normalizer: plot.LogScale{}}
	p.Y.Min, p.Y.Max = slices.Min(ys)/1.5, 1
	p.Y.Tick.Marker = recallTicks{}
	p.Y.Label.Text = "recall@10, mean (log scale)"
	return p, nil
}

// recallYs are where marks are drawn on the recall axis: at the share
// they miss, those missing recallFloor or less a step apart from
// recallFloor down (recallStep), in order of latency.
func recallYs(marks []recallMark) []float64 {
	ys := make([]float64, len(marks))
	var top []int
	for i, m := range marks {
		ys[i] = m.missed
		if m.missed <= recallFloor {
			top = append(top, i)
		}
	}
	slices.SortStableFunc(top, func(a, b int) int { return cmp.Compare(marks[a].knn, marks[b].knn) })
	for step, i := range top {
		ys[i] = recallFloor / math.Pow(recallStep, float64(step))
	}
	return ys
}

// recallTitle is the recall chart's caption: what it draws, and the
// columns whose latency lies beyond its axis (cutAxis).
func recallTitle(t *table) string {
	marks := recallMarks(t)
	xs := make([]float64, len(marks))
	for i, m := range marks {
		xs[i] = m.knn
	}
	var beyond []string
	if len(xs) > 0 {
		cut := cutOf(xs)
		for _, m := range marks {
			if cut.side(m.knn) != 0 {
				beyond = append(beyond, m.name+" "+natural(m.knn, "ms"))
			}
		}
	}
	return "Recall against latency: each variant's mean recall@10 and its median knn time, warm (upper left is better); " +
		"the variants at ≥ 99.9 % (an exact search) a step apart each, the fastest at the top, so that none hides another" +
		beyondAxis(beyond)
}

// recallTicks marks the recall axis at 0 %, 50 %, 90 %, 99 % and ≥ 99.9 %.
type recallTicks struct{}

// Ticks implements plot.Ticker: the values are shares missed.
func (recallTicks) Ticks(_, _ float64) []plot.Tick {
	return []plot.Tick{{Value: 1, Label: "0 %"}, {Value: 0.5, Label: "50 %"}, {Value: 0.1, Label: "90 %"},
		{Value: 0.01, Label: "99 %"}, {Value: recallFloor, Label: "≥ 99.9 %"}}
}
