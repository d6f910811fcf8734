package report

import (
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

// TestFrontierPoints: the frontier runs through the marks no other beats
// on both memory and p99, from the least memory; a mark beaten on both is
// not on it.
func TestFrontierPoints(t *testing.T) {
	marks := []mark{{label: "c", kb: 100, ms: 1}, {label: "a", kb: 10, ms: 5}, {label: "beaten", kb: 50, ms: 6}, {label: "b", kb: 20, ms: 2}}
	got := frontierPoints(marks)
	want := plotter.XYs{{X: 10, Y: 5}, {X: 20, Y: 2}, {X: 100, Y: 1}}
	if len(got) != len(want) {
		t.Fatalf("frontier %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("frontier %v, want %v", got, want)
			break
		}
	}
}

// TestFrontierCharts: one chart per machine, each naming its machine, its
// marks named beside their dots; a mark at zero memory is named in the
// caption, not drawn.
func TestFrontierCharts(t *testing.T) {
	marks := []mark{
		{label: "bbolt, pool 0", variant: "bbolt", machine: "vm", kb: 2, ms: 6},
		{label: "bbolt, pool 100", variant: "bbolt", machine: "vm", kb: 40, ms: 3},
		{label: "sqlite, pool 0", variant: "sqlite", machine: "vm", kb: 0, ms: 9},
		{label: "pebble, pool 0", variant: "pebble", machine: "other", kb: 5, ms: 1},
		{label: "pebble, pool 100", variant: "pebble", machine: "other", kb: 50, ms: 0.5},
	}
	charts, err := frontierCharts(marks, "p99 latency", "p99 against memory.")
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 2 {
		t.Fatalf("%d charts, want one per machine", len(charts))
	}
	if c := charts[0]; !strings.HasPrefix(c.Title, "On vm: ") || !strings.Contains(c.Title, "Not drawn (at or below zero): sqlite, pool 0") ||
		!strings.Contains(string(c.SVG), "bbolt, pool 100") || strings.Contains(string(c.SVG), "pebble") {
		t.Errorf("the first machine's chart: %q, its marks or its caption wrong", c.Title)
	}
}
