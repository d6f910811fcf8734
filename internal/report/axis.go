package report

// A chart's value axis: linear from zero, or logarithmic when the values
// span more than logSpan times, its ticks reading naturally; and an axis
// cut short: when one value, or a few, lie far from the others,
// the axis covers the others and the far ones are drawn at its edge as
// an arrow pointing out, their values in the caption, so that one slow
// open or one small store does not squeeze every other mark into a
// corner. The rule is the one a reader's eye applies: the widest empty
// stretch between two neighbouring values is more than a third of their
// span, and one value, or fewer than farShare of them, lie beyond it;
// cut again, the few beyond all cuts together stay under farShare, or,
// past a stretch of more than half the span, those on each side are at
// most farShare of them.

import (
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// farShare is the share of an axis' values beyond its cut at which they
// are no longer "a few far values" but the data's shape: fewer than it
// are cut (few), and past a gap of more than half the span up to it on
// each side (aFifth: four fifths of the marks in a sliver of the axis
// read worse than a fifth drawn as arrows). A lone value beyond the gap
// is always far.
const farShare = 0.2

// axisCut is where an axis is cut: the values kept lie in [lo, hi]; a
// value below lo is drawn at the axis' low edge, one above hi at its
// high edge. The zero axisCut (ok false) cuts nothing.
type axisCut struct {
	lo, hi float64
	ok     bool
	// wide: the gap cut is more than half the span of the values it was
	// found among (what a reader sees as most of the axis left empty).
	wide bool
}

// farCutOf finds the cut of an axis over values (on a log scale when
// log, as the axis will be drawn): the widest gap between neighbouring
// values, when it is more than a third of their span (a half would miss
// a few far values on each side, each gap under half) and one value, or
// less than farShare of all n values of the axis (of which values may be
// those left by an earlier cut), lie on its short side (at most farShare
// when the gap is more than half the span).
func farCutOf(values []float64, log bool, n int) axisCut {
	pos := func(v float64) float64 { return v }
	if log {
		pos = math.Log10
	}
	vs := slices.Clone(values)
	slices.Sort(vs)
	if n < 5 || len(vs) < 3 || log && vs[0] <= 0 { // an axis of five values at least; three left to cut again
		return axisCut{}
	}
	gap, at := 0.0, 0
	for i := 1; i < len(vs); i++ {
		if g := pos(vs[i]) - pos(vs[i-1]); g > gap {
			gap, at = g, i
		}
	}
	span := pos(vs[len(vs)-1]) - pos(vs[0])
	k := min(at, len(vs)-at)
	if span <= 0 || gap <= span/3 || !few(k, n) && !(gap > span/2 && aFifth(k, n)) {
		return axisCut{}
	}
	if at <= len(vs)-at { // the few lie below the gap
		return axisCut{lo: vs[at], hi: vs[len(vs)-1], ok: true, wide: gap > span/2}
	}
	return axisCut{lo: vs[0], hi: vs[at-1], ok: true, wide: gap > span/2}
}

// aFifth tells whether k values of an axis of n are at most farShare of
// them: beyond a gap of more than half the axis, that many on a side are
// still a few far values.
func aFifth(k, n int) bool { return k <= 1 || float64(k) <= farShare*float64(n) }

// few tells whether k values of an axis of n are a few far values: one,
// or fewer than farShare of them.
func few(k, n int) bool { return k <= 1 || float64(k) < farShare*float64(n) }

// side tells where v is drawn: -1 below the cut, +1 above, 0 within.
func (c axisCut) side(v float64) int {
	switch {
	case !c.ok || math.IsNaN(v):
		return 0
	case v < c.lo:
		return -1
	case v > c.hi:
		return 1
	}
	return 0
}

// cutAxis sets axis a for values of unit as valueAxis does, cut short
// where a few lie far from the others (cutOf): the axis covers the
// others, from zero when they are on a linear axis and the far values lie
// above them only, else just around them. It returns the cut; cutAt
// gives where a value is drawn.
func cutAxis(a *plot.Axis, values []float64, unit string) axisCut {
	c := cutOf(values)
	if !c.ok {
		valueAxis(a, values, unit)
		return c
	}
	var kept []float64
	for _, v := range values {
		if c.side(v) == 0 {
			kept = append(kept, v)
		}
	}
	valueAxis(a, kept, unit)
	if _, log := a.Scale.(plot.LogScale); !log && slices.ContainsFunc(values, func(v float64) bool { return c.side(v) < 0 }) {
		// far values below: the axis spans the kept ones, not from zero
		pad := max(0.05*(c.hi-c.lo), 0.01*math.Abs(c.hi), 1e-9)
		a.Min, a.Max = c.lo-pad, c.hi+pad
	}
	return c
}

// cutOf is the cut of an axis over values (farCut) on the scale
// valueAxis gives them: logarithmic when they are positive and span more
// than logSpan times. A cut that leaves a few far from the others is cut
// again while a few of all values lie beyond the cuts together (few), or,
// when the new cut leaves more than half the axis empty (wide), at most
// a fifth on each side (aFifth).
func cutOf(values []float64) axisCut {
	return cutOn(values, slices.Min(values) > 0 && spansDecade(values))
}

// cutOn is cutOf on a scale given: logarithmic when log.
func cutOn(values []float64, log bool) axisCut {
	c, kept := axisCut{lo: math.Inf(-1), hi: math.Inf(1)}, values
	for {
		found := farCutOf(kept, log, len(values))
		if !found.ok {
			return c
		}
		next := axisCut{lo: max(c.lo, found.lo), hi: min(c.hi, found.hi), ok: true}
		below, above := beyond(values, next)
		if !few(below+above, len(values)) && !(found.wide && aFifth(below, len(values)) && aFifth(above, len(values))) {
			return c
		}
		c, kept = next, slices.DeleteFunc(slices.Clone(kept), func(v float64) bool { return next.side(v) != 0 })
	}
}

// beyond counts the values below and above cut c.
func beyond(values []float64, c axisCut) (below, above int) {
	for _, v := range values {
		switch c.side(v) {
		case -1:
			below++
		case 1:
			above++
		}
	}
	return below, above
}

// cutAt is where value v is drawn on axis a cut by c: at the axis' edge
// when v lies beyond the cut, else at v.
func cutAt(a *plot.Axis, c axisCut, v float64) float64 {
	switch c.side(v) {
	case -1:
		return a.Min
	case 1:
		return a.Max
	}
	return v
}

// arrowGlyph is a filled triangle pointing out of the axis (dx, dy: the
// direction, each −1, 0 or 1): a value beyond an axis' cut, drawn at its
// edge.
type arrowGlyph struct{ dx, dy vg.Length }

// DrawGlyph implements draw.GlyphDrawer.
func (g arrowGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.2
	tip := vg.Point{X: pt.X + g.dx*r, Y: pt.Y + g.dy*r}
	// the base: perpendicular to the direction, behind the point
	bx, by := -g.dy*r*0.8, g.dx*r*0.8
	back := vg.Point{X: pt.X - g.dx*r*0.6, Y: pt.Y - g.dy*r*0.6}
	var p vg.Path
	p.Move(tip)
	p.Line(vg.Point{X: back.X + bx, Y: back.Y + by})
	p.Line(vg.Point{X: back.X - bx, Y: back.Y - by})
	p.Close()
	c.Fill(p)
}

// cutMarks are the marks of a chart on an axis cut short, gathered by
// where each is drawn: within the axis, or at its low or high edge.
type cutMarks struct {
	pts    [3]plotter.XYs // by side + 1: below, within, above
	colors [3][]color.NRGBA
}

// add gathers a mark at pt, drawn on side (axisCut.side) of the cut.
func (m *cutMarks) add(side int, pt plotter.XY, c color.NRGBA) {
	m.pts[side+1], m.colors[side+1] = append(m.pts[side+1], pt), append(m.colors[side+1], c)
}

// draw adds the marks to p, of radius r: those within the axis in shape,
// those at an edge as arrows pointing out of it, along x when horizontal,
// else y.
func (m *cutMarks) draw(p *plot.Plot, shape draw.GlyphDrawer, r vg.Length, horizontal bool) {
	for i, pts := range m.pts {
		if len(pts) == 0 {
			continue
		}
		s := shape
		if side := vg.Length(i - 1); side != 0 && horizontal {
			s = arrowGlyph{dx: side}
		} else if side != 0 {
			s = arrowGlyph{dy: side}
		}
		sc, _ := plotter.NewScatter(pts) // points of finite values: no error
		colors := m.colors[i]
		sc.GlyphStyleFunc = func(j int) draw.GlyphStyle { return draw.GlyphStyle{Color: colors[j], Radius: r, Shape: s} }
		p.Add(sc)
	}
}

// beyondAxis is the end of a chart's caption naming the marks drawn at
// the edge of its axis cut short (cutAxis), each "name value", as an
// arrow.
func beyondAxis(names []string) string { return beyondAxisAs(names, "as an arrow ") }

// beyondAxisAs is beyondAxis for marks drawn at the edge as how says
// ("" for the mark itself).
func beyondAxisAs(names []string, how string) string {
	if len(names) == 0 {
		return ""
	}
	return ". The axis stops short of a few values far from the others, drawn " + how + "at its edge: " + strings.Join(names, "; ")
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

// logAxisCut sets a log axis for values as logAxis does, cut short where
// one value or a few lie far from the others on the log scale (cutOn);
// it returns the cut and what to add to the chart's caption for the
// marks beyond it, each "name value", drawn at the axis' edge.
func logAxisCut(a *plot.Axis, values []float64, unit string) (axisCut, func([]string) string) {
	c := cutOn(values, true)
	kept := slices.DeleteFunc(slices.Clone(values), func(v float64) bool { return c.side(v) != 0 })
	logAxis(a, kept, unit)
	return c, func(names []string) string {
		if len(names) == 0 {
			return ""
		}
		return strings.TrimPrefix(beyondAxisAs(names, ""), ".") + "."
	}
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
// values: "0.01", "2.5", "500 KB", "2 MB", never "2500.00". When the
// marker labels fewer than two ticks within the axis (a log axis within
// one decade: 12–81 ms holds no power of ten), its ticks at 2, 3 and 5
// times a power of ten within it are labelled too, so that the axis can
// be read.
type naturalTicks struct {
	marker plot.Ticker
	unit   string
}

// Ticks implements plot.Ticker.
func (n naturalTicks) Ticks(min, max float64) []plot.Tick {
	ticks := n.marker.Ticks(min, max)
	within := func(t plot.Tick) bool { return t.Value >= min && t.Value <= max }
	labelled := 0
	for _, t := range ticks {
		if t.Label != "" && within(t) {
			labelled++
		}
	}
	unlabelled := labelled < 2
	for i := range ticks {
		if ticks[i].Label == "" && !(unlabelled && within(ticks[i]) && roundStep(ticks[i].Value)) {
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

// roundStep tells whether v is 2, 3 or 5 times a power of ten.
func roundStep(v float64) bool {
	if v <= 0 {
		return false
	}
	m := v / math.Pow(10, math.Floor(math.Log10(v)))
	return slices.ContainsFunc([]float64{2, 3, 5}, func(s float64) bool { return math.Abs(m-s) < 1e-9 })
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
