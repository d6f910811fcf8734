package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"manydb/internal/results"
)

// A mark is one point of a frontier chart: a variant at a pool size (or
// in a layout), its memory per agent in KB and its p99 in ms.
type mark struct {
	label, variant, machine string
	kb, ms                  float64
}

// serveMarks are a serve table's marks: one per column and pool size,
// the worker's peak resident memory over the study's agents against the
// p99 of the requests; and the most agents of a mark.
func serveMarks(t *table) ([]mark, int) {
	var marks []mark
	agents := 0
	for _, col := range t.variants {
		c := t.columns[col]
		for _, r := range atLoad(c.serves()) {
			if r.Status != results.StatusOK || r.Stores <= 0 {
				continue
			}
			kb, ms := servePeakRSS(r.Serve)/float64(r.Stores), serveP99(r.Serve)
			if !math.IsNaN(kb) && !math.IsNaN(ms) {
				label := fmt.Sprintf("%s, pool %s", c.variant, thousands(float64(r.Serve.Pool)))
				marks = append(marks, mark{label: label, variant: c.variant, machine: c.machine, kb: kb, ms: ms})
				agents = max(agents, r.Stores)
			}
		}
	}
	return marks, agents
}

// byMachine parts marks by their machine, in the order the machines first
// appear: a frontier ranks the marks of one machine only.
func byMachine(marks []mark) [][]mark {
	var order []string
	parts := map[string][]mark{}
	for _, m := range marks {
		if _, ok := parts[m.machine]; !ok {
			order = append(order, m.machine)
		}
		parts[m.machine] = append(parts[m.machine], m)
	}
	out := make([][]mark, len(order))
	for i, machine := range order {
		out[i] = parts[machine]
	}
	return out
}

// overviewMarks are an overview's marks: one per row with both a p99 (a
// turn's when the overview has one, else its first p99) and the
// anonymous memory per open store; "" when it lacks either figure, else
// the p99's header.
func overviewMarks(o *overview) ([]mark, string) {
	mem, p99 := -1, -1
	for i, f := range o.figs {
		switch {
		case f.name == "anon-per-open-store":
			mem = i
		case f.statistic == "p99" && (p99 < 0 || strings.Contains(f.name, "turn") && !strings.Contains(o.figs[p99].name, "turn")):
			p99 = i
		}
	}
	if mem < 0 || p99 < 0 {
		return nil, ""
	}
	var marks []mark
	for _, r := range o.rows {
		kb, ms := r.cells[mem].value, r.cells[p99].value
		if !math.IsNaN(kb) && !math.IsNaN(ms) {
			marks = append(marks, mark{label: strings.TrimSuffix(r.label, " @ "+r.col.machine), variant: r.variant, machine: r.col.machine, kb: kb, ms: ms})
		}
	}
	return marks, header(o.labels[p99])
}

// frontierChart draws marks as ann-benchmarks draws its answers: p99
// against memory per agent, both axes logarithmic, a dot per mark in its
// family's colour named beside it, and the frontier (the marks no other
// beats on both) as a grey line through them; the marks at or below zero, which a log
// axis cannot show, are named in the caption. ok is false with fewer than
// two marks to draw.
func frontierChart(marks []mark, what, caption string) (htmlChart, bool, error) {
	drawn, left := splitMarks(marks)
	if m := marks[0].machine; m != "" {
		caption = "On " + m + ": " + caption
	}
	if len(drawn) < 2 {
		return htmlChart{}, false, nil
	}
	p := plot.New()
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = color.Gray{0xdd}, color.Gray{0xdd}
	p.Add(grid)
	var xs, ys []float64
	for _, m := range drawn {
		xs, ys = append(xs, m.kb), append(ys, m.ms)
	}
	logAxis(&p.X, xs, "KB")
	yCut, far := logAxisCut(&p.Y, ys, "ms")
	at := func(x, y float64) plotter.XY { return plotter.XY{X: x, Y: cutAt(&p.Y, yCut, y)} }
	line := frontierPoints(drawn)
	for i := range line {
		line[i] = at(line[i].X, line[i].Y)
	}
	step, err := plotter.NewLine(line)
	if err != nil {
		return htmlChart{}, false, fmt.Errorf("frontier chart: %w", err)
	}
	step.Color, step.Width = color.Gray{0x66}, vg.Points(1.5)
	p.Add(step)
	var pts plotter.XYs
	var colors []color.NRGBA
	var names, beyond []string
	for _, m := range drawn {
		pts, colors = append(pts, at(m.kb, m.ms)), append(colors, familyOf(m.variant).color)
		names = append(names, m.label)
		if yCut.side(m.ms) != 0 {
			beyond = append(beyond, m.label+" "+natural(m.ms, "ms"))
		}
	}
	p.Add(glyphs(pts, colors, draw.CircleGlyph{}), newRepelLabels(pts, names))
	caption += far(beyond)
	p.X.Max *= 3 // room for the names right of the dots
	p.X.Label.Text = "memory per agent " + p.X.Label.Text
	p.Y.Label.Text = what + ", " + p.Y.Label.Text
	s, err := svgOf(p, 600, 400)
	if err != nil {
		return htmlChart{}, false, err
	}
	for _, m := range left {
		caption += fmt.Sprintf(" Not drawn (at or below zero): %s, %s and %s.", m.label, memory(m.kb), natural(m.ms, "ms"))
	}
	return htmlChart{Title: caption, SVG: s, frontier: true}, true, nil
}

// splitMarks parts marks into those a log-log chart can draw (both
// figures above zero) and the others.
func splitMarks(marks []mark) (drawn, left []mark) {
	for _, m := range marks {
		if m.kb > 0 && m.ms > 0 {
			drawn = append(drawn, m)
		} else {
			left = append(left, m)
		}
	}
	return drawn, left
}

// frontierPoints is the frontier of marks from the least memory, the
// line ann-benchmarks draws through them: each mark with a lower p99 than
// every mark of less memory.
func frontierPoints(marks []mark) plotter.XYs {
	sorted := slices.Clone(marks)
	slices.SortFunc(sorted, func(a, b mark) int { return cmp.Or(cmp.Compare(a.kb, b.kb), cmp.Compare(a.ms, b.ms)) })
	var pts plotter.XYs
	best := math.Inf(1)
	for _, m := range sorted {
		if m.ms < best {
			pts, best = append(pts, plotter.XY{X: m.kb, Y: m.ms}), m.ms
		}
	}
	return pts
}

// frontierCharts are the frontier charts of marks, one per machine, each
// captioned by caption.
func frontierCharts(marks []mark, what, caption string) ([]htmlChart, error) {
	var out []htmlChart
	for _, part := range byMachine(marks) {
		ch, ok, err := frontierChart(part, what, caption)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, ch)
		}
	}
	return out, nil
}
