package report

import (
	"cmp"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// repelLabels names the points of a scatter chart without overprint: each
// name goes right of its dot, else left of it, else as near above or
// below as it fits clear of every other name and dot, with a thin line to
// its dot when it had to move away. (plotter.Labels puts every name at
// one offset, so the names of close dots overprint.)
type repelLabels struct {
	pts   plotter.XYs
	names []string
	style draw.TextStyle
}

// newRepelLabels names each point in 8-point type.
func newRepelLabels(pts plotter.XYs, names []string) *repelLabels {
	l := &repelLabels{pts: pts, names: names}
	l.style = draw.TextStyle{Color: color.Black, Font: plotter.DefaultFont, Handler: plot.DefaultTextHandler}
	l.style.Font.Size = vg.Points(8)
	return l
}

// Plot draws the names (plot.Plotter).
func (l *repelLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	dots := make([]vg.Point, len(l.pts))
	sizes := make([]vg.Point, len(l.pts))
	for i, pt := range l.pts {
		dots[i] = vg.Point{X: trX(pt.X), Y: trY(pt.Y)}
		r := l.style.Rectangle(l.names[i])
		sizes[i] = r.Size()
	}
	boxes, moved := placeLabels(dots, sizes, c.Rectangle)
	leader := draw.LineStyle{Color: color.Gray{0x99}, Width: vg.Points(0.5)}
	for i, b := range boxes {
		// FillText draws at the text's origin; Rectangle is the box
		// around that origin, so the origin is the box's corner less the
		// rectangle's own corner.
		origin := b.Min.Sub(l.style.Rectangle(l.names[i]).Min)
		c.FillText(l.style, origin, l.names[i])
		if moved[i] {
			edge := b.Min.X
			if dots[i].X > b.Max.X {
				edge = b.Max.X
			}
			c.StrokeLine2(leader, dots[i].X, dots[i].Y, edge, (b.Min.Y+b.Max.Y)/2)
		}
	}
}

// DataRange is the points' range (plot.DataRanger).
func (l *repelLabels) DataRange() (xmin, xmax, ymin, ymax float64) {
	return plotter.XYRange(l.pts)
}

// labelGap is the space between a dot and its name, and between names
// stacked above or below a dot.
const labelGap = vg.Length(3)

// placeLabels finds a box of the given size (X width, Y height) for each
// dot's name inside bounds, clear of every other box and of every dot:
// the dots from the top down, each name right of its dot, else left,
// else moved up or down a line at a time (moved). When nothing is clear
// within 12 lines, the name goes right of its dot regardless.
func placeLabels(dots, sizes []vg.Point, bounds vg.Rectangle) (boxes []vg.Rectangle, moved []bool) {
	const dotRadius = vg.Length(3)
	taken := make([]vg.Rectangle, 0, 2*len(dots))
	for _, d := range dots {
		r := vg.Point{X: dotRadius, Y: dotRadius}
		taken = append(taken, vg.Rectangle{Min: d.Sub(r), Max: d.Add(r)})
	}
	order := make([]int, len(dots))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(dots[b].Y, dots[a].Y) })
	boxes, moved = make([]vg.Rectangle, len(dots)), make([]bool, len(dots))
	for _, i := range order {
		d, s := dots[i], sizes[i]
		right := vg.Point{X: d.X + dotRadius + labelGap, Y: d.Y - s.Y/2}
		left := vg.Point{X: d.X - dotRadius - labelGap - s.X, Y: d.Y - s.Y/2}
		box := func(min vg.Point) vg.Rectangle { return vg.Rectangle{Min: min, Max: min.Add(s)} }
		boxes[i] = box(right)
		for k := 0; k <= 12; k++ {
			placed := false
			for _, dy := range []vg.Length{vg.Length(k) * (s.Y + labelGap), -vg.Length(k) * (s.Y + labelGap)} {
				for _, at := range []vg.Point{right, left} {
					b := box(vg.Point{X: at.X, Y: at.Y + dy})
					if within(b, bounds) && !slices.ContainsFunc(taken, func(t vg.Rectangle) bool { return overlaps(b, t) }) {
						boxes[i], moved[i], placed = b, k > 0, true
						break
					}
				}
				if placed || k == 0 {
					break
				}
			}
			if placed {
				break
			}
		}
		taken = append(taken, boxes[i])
	}
	return boxes, moved
}

// overlaps tells whether two rectangles share more than an edge.
func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// within tells whether rectangle r lies within bounds.
func within(r, bounds vg.Rectangle) bool {
	return r.Min.X >= bounds.Min.X && r.Max.X <= bounds.Max.X && r.Min.Y >= bounds.Min.Y && r.Max.Y <= bounds.Max.Y
}
