package report

import (
	"math"
	"testing"

	"gonum.org/v1/plot"
)

// TestDotPlotLogLeavesZero: values spanning more than ten times are drawn
// on a log axis, and a value at zero, which a log axis cannot show, is
// left out and returned to be named; values within ten times stay on a
// linear axis from zero with every row drawn.
func TestDotPlotLogLeavesZero(t *testing.T) {
	row := func(label string, v float64) dotRow {
		return dotRow{label: label, cell: cell{value: v, text: natural(v, "ms")}, p99: math.NaN()}
	}
	d := dotPlot([]dotRow{row("a", 0.5), row("b", 40), row("c", 0)}, "ms")
	p, left := d.plot, d.left
	if _, ok := p.X.Scale.(plot.LogScale); !ok {
		t.Error("0.5 to 40 ms on a linear axis, want a log axis")
	}
	if len(left) != 1 || left[0].label != "c" {
		t.Errorf("left out %v, want the row at 0", left)
	}
	d = dotPlot([]dotRow{row("a", 2), row("b", 15), row("c", 0)}, "ms")
	p, left = d.plot, d.left
	if _, ok := p.X.Scale.(plot.LogScale); ok || len(left) != 0 {
		t.Errorf("2 to 15 ms: log axis %v, %d rows left out; want a linear axis with every row", ok, len(left))
	}
}

// TestOutsideDomain: a memory below zero is outside what it can be; a
// time or a memory at zero is not.
func TestOutsideDomain(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		unit string
		want bool
	}{{-0.008, "KB", true}, {0, "KB", false}, {-1, "ms", false}, {3, "KB", false}} {
		if got := OutsideDomain(tt.v, tt.unit); got != tt.want {
			t.Errorf("OutsideDomain(%v, %q) = %v, want %v", tt.v, tt.unit, got, tt.want)
		}
	}
}
