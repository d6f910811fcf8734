package report

import (
	"image/color"
	"math"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// svgMarks are the centres of a drawn chart's filled marks: its dots
// (circles of radius r) and, apart, its arrows (filled triangles).
func svgMarks(t *testing.T, p *plot.Plot, width, height float64, r string) (dots, arrows [][2]float64) {
	t.Helper()
	s, err := svgOf(p, vg.Length(width), vg.Length(height))
	if err != nil {
		t.Fatal(err)
	}
	num := func(v string) float64 { f, _ := strconv.ParseFloat(v, 64); return f }
	circle := regexp.MustCompile(`<path d="M([0-9.]+),([0-9.]+)A` + regexp.QuoteMeta(r) + `,`)
	for _, m := range circle.FindAllStringSubmatch(string(s), -1) {
		dots = append(dots, [2]float64{num(m[1]) - num(r), num(m[2])})
	}
	triangle := regexp.MustCompile(`<path d="M([0-9.]+),([0-9.]+)L([0-9.]+),([0-9.]+)L([0-9.]+),([0-9.]+)Z" style="fill:#`)
	for _, m := range triangle.FindAllStringSubmatch(string(s), -1) {
		arrows = append(arrows, [2]float64{(num(m[1]) + num(m[3]) + num(m[5])) / 3, (num(m[2]) + num(m[4]) + num(m[6])) / 3})
	}
	return dots, arrows
}

// farCutAll is farCutOf over every value of an axis.
func farCutAll(values []float64, log bool) axisCut { return farCutOf(values, log, len(values)) }

// spanOf is the extent of the k-th coordinate (0: x, 1: y) of marks.
func spanOf(marks [][2]float64, k int) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, m := range marks {
		lo, hi = min(lo, m[k]), max(hi, m[k])
	}
	return lo, hi
}

// TestFarCut: one value far from nine close ones is cut off, on the side
// it lies; values spread evenly, or two even halves, are not.
func TestFarCut(t *testing.T) {
	close9 := []float64{400, 410, 420, 430, 440, 450, 460, 470, 480}
	if c := farCutAll(append(slices.Clone(close9), 80), false); !c.ok || c.lo != 400 || c.hi != 480 || c.side(80) != -1 {
		t.Errorf("80 beside 400–480: cut %+v, want 400–480 with 80 below", c)
	}
	if c := farCutAll(append(slices.Clone(close9), 5000), false); !c.ok || c.side(5000) != 1 {
		t.Errorf("5000 beside 400–480: cut %+v, want 5000 above", c)
	}
	if c := farCutAll([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, false); c.ok {
		t.Errorf("1 to 10 evenly: cut %+v, want none", c)
	}
	if c := farCutAll([]float64{1, 1, 1, 1, 1, 9, 9, 9, 9, 9}, false); c.ok {
		t.Errorf("two halves: cut %+v, want none (half the values are not a few)", c)
	}
}

// TestDotPlotFarValueSqueezesNone: a dot chart of nine stores of
// 400–480 KB and one of 80 KB spreads the nine over most of the chart's
// width and draws the one as an arrow left of them, named in the caption;
// on an axis from zero the nine would share a fifth of it.
func TestDotPlotFarValueSqueezesNone(t *testing.T) {
	var rows []dotRow
	for i, v := range []float64{400, 410, 420, 430, 440, 450, 460, 470, 480, 80} {
		rows = append(rows, dotRow{label: strconv.Itoa(i), color: color.NRGBA{R: uint8(i * 20), A: 255},
			cell: cell{value: v, text: memory(v)}, p99: math.NaN()})
	}
	d := dotPlot(rows, "KB")
	dots, arrows := svgMarks(t, d.plot, chartWidth, float64(d.height), "3.5")
	if len(dots) != 9 || len(arrows) != 1 {
		t.Fatalf("%d dots and %d arrows, want 9 and 1", len(dots), len(arrows))
	}
	lo, hi := spanOf(dots, 0)
	if hi-lo < 0.5*chartWidth {
		t.Errorf("the nine dots span %.0f of %d pt, want more than half", hi-lo, chartWidth)
	}
	if arrows[0][0] >= lo {
		t.Errorf("the arrow of 80 KB at x %.0f, want left of the dots (from %.0f)", arrows[0][0], lo)
	}
	if want := []string{"9 80 KB"}; !slices.Equal(d.beyond, want) {
		t.Errorf("beyond the axis %q, want %q", d.beyond, want)
	}
}

// TestOpenPanelOneSlowBin: an n-th open panel whose opens grow from 1 to
// 2 ms but for one bin of 40 ms spreads the other bins over a third of
// the panel's height or more (on an axis from zero to 40 ms, a twentieth)
// and draws the slow one as an arrow at the top, returned to be named in
// the caption.
func TestOpenPanelOneSlowBin(t *testing.T) {
	opens := make([]float64, 500)
	for i := range opens {
		opens[i] = 1 + float64(i)/500
	}
	for i := 250; i < 260; i++ { // one bin of 10 opens
		opens[i] = 40
	}
	p, beyond, err := openGrowthPanel(opens, color.NRGBA{R: 200, A: 255}, len(opens))
	if err != nil {
		t.Fatal(err)
	}
	dots, arrows := svgMarks(t, p, panelWidth, panelHeight, "1.5")
	if len(arrows) != 1 || len(dots) != growthBins-1 {
		t.Fatalf("%d dots and %d arrows, want %d and 1", len(dots), len(arrows), growthBins-1)
	}
	lo, hi := spanOf(dots, 1)
	if hi-lo < panelHeight/3 {
		t.Errorf("the other bins span %.0f of %d pt in height, want a third or more", hi-lo, panelHeight)
	}
	if arrows[0][1] < hi { // y grows upwards in the plot's SVG
		t.Errorf("the slow bin's arrow at y %.0f, want above the others (to %.0f)", arrows[0][1], hi)
	}
	if len(beyond) != 1 || beyond[0] != "40 ms" {
		t.Errorf("beyond the axis %q, want [40 ms]", beyond)
	}
}

// TestRecallYsSpreadExact: three exact searches, which all miss none,
// are drawn a step apart each on the recall axis, the fastest at the
// top (the least missed), and an approximate one at the share it misses.
func TestRecallYsSpreadExact(t *testing.T) {
	marks := []recallMark{{name: "slow", knn: 3}, {name: "ann", knn: 0.1, missed: 0.08}, {name: "fast", knn: 1}, {name: "mid", knn: 2}}
	ys := recallYs(marks)
	want := []float64{recallFloor / recallStep / recallStep, 0.08, recallFloor, recallFloor / recallStep}
	for i := range want {
		if math.Abs(ys[i]-want[i]) > 1e-12 {
			t.Errorf("%s drawn at %g missed, want %g", marks[i].name, ys[i], want[i])
		}
	}
}

// TestCutOfBothSides: one value far above eighteen close ones and,
// among those, one far below are both cut, the axis covering the others;
// a fifth of the values far above, past a gap of more than half the
// span, is cut too (else four fifths of the marks sit in a sliver of the
// axis), but three of ten there are the data's shape, not cut.
func TestCutOfBothSides(t *testing.T) {
	values := []float64{100, 5000}
	for v := 400.0; v < 490; v += 5 {
		values = append(values, v)
	}
	if c := cutOf(values); !c.ok || c.lo != 400 || c.hi != 485 {
		t.Errorf("cut %+v, want 400–485", c)
	}
	step := []float64{1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 9, 9.5}
	if c := cutOf(step); !c.ok || c.lo != 1 || c.hi != 1.7 {
		t.Errorf("two of ten far above: cut %+v, want 1–1.7", c)
	}
	step = []float64{1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 8.5, 9, 9.5}
	if c := cutOf(step); c.ok {
		t.Errorf("three of ten far above: cut %+v, want none", c)
	}
}

// TestCutOfTwoNearFarSides: one value far below and one far above, each
// gap a little over a third of the span and under half (make run's space
// per store: pebble's 80 KB and sqld's 752 KB beside 344–472 KB): both
// are cut, so the others are not squeezed into a third of the axis.
func TestCutOfTwoNearFarSides(t *testing.T) {
	values := []float64{80, 348, 360, 364, 424, 472, 752}
	for range 11 {
		values = append(values, 344)
	}
	if c := cutOf(values); !c.ok || c.lo != 344 || c.hi != 472 {
		t.Errorf("cut %+v, want 344–472", c)
	}
}

// TestCutOfCountsEachSide: one value far below (pebble's 80 KB) and,
// past a gap of more than half the rest's span, three of sixteen far
// above (ObjectBox's 472 KB beside 344–364 KB: 2026-12-04's space per
// store) are each few on their own side, so both are cut; four of ten
// above are not.
func TestCutOfCountsEachSide(t *testing.T) {
	values := []float64{80, 472, 472, 472, 360, 360, 364, 348}
	for range 8 {
		values = append(values, 344)
	}
	if c := cutOf(values); !c.ok || c.lo != 344 || c.hi != 364 {
		t.Errorf("cut %+v, want 344–364", c)
	}
	many := []float64{80, 344, 345, 346, 348, 350, 472, 472, 472, 472}
	if c := cutOf(many); !c.ok || c.lo != 344 || c.hi != 472 {
		t.Errorf("cut %+v, want 344–472: 80 alone cut, four of ten far above not", c)
	}
}

// TestLogTicksWithinADecade: a log axis from 12 to 81 ms holds no power
// of ten, the only ticks a log marker labels; its ticks at 20, 30 and 50
// are labelled instead, so that the axis can be read.
func TestLogTicksWithinADecade(t *testing.T) {
	var labels []string
	for _, tk := range (naturalTicks{plot.LogTicks{Prec: -1}, "ms"}).Ticks(12, 81) {
		if tk.Label != "" && tk.Value >= 12 && tk.Value <= 81 { // the axis draws no tick outside it
			labels = append(labels, tk.Label)
		}
	}
	if !slices.Equal(labels, []string{"20", "30", "50"}) {
		t.Errorf("labels %v, want 20, 30, 50", labels)
	}
}

// TestLogTicksOneLabel: a log axis from 5 to 40 ms labels only 10 as a
// log marker does; 5, 20 and 30 are labelled beside it.
func TestLogTicksOneLabel(t *testing.T) {
	var labels []string
	for _, tk := range (naturalTicks{plot.LogTicks{Prec: -1}, "ms"}).Ticks(5, 40) {
		if tk.Label != "" && tk.Value >= 5 && tk.Value <= 40 {
			labels = append(labels, tk.Label)
		}
	}
	if !slices.Equal(labels, []string{"5", "10", "20", "30"}) {
		t.Errorf("labels %v, want 5, 10, 20, 30", labels)
	}
}

// TestCutOfALoneFarValue: one value far from four others (the serve
// ladder record's p99 against memory: pebble's 62.6 ms above 15.8–27.3
// ms on a log axis) is cut, though it is a fifth of the values: a lone
// value is a far value, not the data's shape.
func TestCutOfALoneFarValue(t *testing.T) {
	values := []float64{15.8, 18.2, 21.0, 27.3, 62.6}
	if c := farCutAll(values, true); !c.ok || c.lo != 15.8 || c.hi != 27.3 {
		t.Errorf("cut %+v, want 15.8–27.3", c)
	}
	if c := farCutAll([]float64{15.8, 18.2, 21.0, 55, 62.6}, true); c.ok {
		t.Errorf("two of five far above: cut %+v, want none", c)
	}
}
