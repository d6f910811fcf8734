package report

import (
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"manydb/internal/results"
)

// TestShareBoundsNamesRowsAtAnEnd: rows of a share at 100 % in every run
// (an exact search's recall) are named, not drawn, when two or more are
// and another row is not; one such row, or every row there, is drawn.
func TestShareBoundsNamesRowsAtAnEnd(t *testing.T) {
	row := func(label string, v, lo, hi float64) dotRow {
		return dotRow{label: label, cell: cell{value: v, lo: lo, hi: hi, spread: true}, p99: math.NaN()}
	}
	rows := []dotRow{row("exact-a", 100, 100, 100), row("ann", 47, 40, 52), row("exact-b", 100, 100, 100), row("almost", 100, 98, 100)}
	drawn, bound, names := shareBounds(rows, "%")
	if bound != 100 || !slices.Equal(names, []string{"exact-a", "exact-b"}) || len(drawn) != 2 {
		t.Errorf("set apart %v at %v, drew %d rows; want exact-a and exact-b at 100, 2 drawn (almost's spread reaches 98)", names, bound, len(drawn))
	}
	if got := atBoundText(bound, names, "in every run"); got != ". At 100 % in every run, not drawn: exact-a, exact-b" {
		t.Errorf("caption %q", got)
	}
	if _, _, names := shareBounds(rows[:2], "%"); names != nil {
		t.Errorf("one row at 100 %%: set apart %v, want none", names)
	}
	if _, _, names := shareBounds([]dotRow{rows[0], rows[2]}, "%"); names != nil {
		t.Errorf("every row at 100 %%: set apart %v, want none (the chart is all of them)", names)
	}
	if _, _, names := shareBounds(rows, "ms"); names != nil {
		t.Errorf("a timing: set apart %v, want none", names)
	}
	zeros := []dotRow{row("exact-a", 0, 0, 0), row("exact-b", 0, 0, 0), row("ann", 12, 10, 14)}
	if _, bound, names := shareBounds(zeros, "%"); bound != 0 || len(names) != 2 {
		t.Errorf("two at 0 %%: set apart %v at %v, want both at 0", names, bound)
	}
}

// TestLegendShowsNoDots: a line chart's legend names each line by its
// colour and dashes alone, so the only dots drawn are the data's.
func TestLegendShowsNoDots(t *testing.T) {
	lines := []any{"sqlite", plotter.XYs{{X: 1, Y: 1}, {X: 10, Y: 2}}, "bbolt", plotter.XYs{{X: 1, Y: 3}, {X: 10, Y: 4}, {X: 100, Y: 5}}}
	p, err := linesPlot("x", "y", lines, func(name string) string { return name })
	if err != nil {
		t.Fatal(err)
	}
	s, err := svgLegendRight(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	if dots := strings.Count(string(s), "A2.5,2.5 0 1 1"); dots != 2*5 { // each circle is two arcs
		t.Errorf("%d arcs drawn, want 10: the 5 points' dots and none in the legend", dots)
	}
}

// TestServePlotNeedsTwoPools: a serve figure against the pool size is
// drawn for two pools or more; with one, the table gives each value.
func TestServePlotNeedsTwoPools(t *testing.T) {
	for _, c := range []struct {
		pools []int
		drawn bool
	}{{[]int{100}, false}, {[]int{10, 100}, true}} {
		tables := group(synthServe("a", 10, c.pools...), nil)
		if len(tables) != 1 {
			t.Fatalf("%d tables, want 1", len(tables))
		}
		p, err := servePlot("p99 latency", "ms", serveP99)(tables[0])
		if err != nil {
			t.Fatal(err)
		}
		if (p != nil) != c.drawn {
			t.Errorf("pools %v: drawn %v, want %v", c.pools, p != nil, c.drawn)
		}
	}
}

// TestCutLinesMovesFarPointsToTheEdge: a line chart's point far from the
// others is drawn at the axis' edge, as an arrow, and named; the others
// keep their values.
func TestCutLinesMovesFarPointsToTheEdge(t *testing.T) {
	var lines []any
	var values []float64
	for i, name := range []string{"a", "b", "c", "d", "e", "f"} {
		pts := plotter.XYs{{X: 1, Y: 400 + float64(10*i)}, {X: 10, Y: 405 + float64(10*i)}}
		if name == "f" {
			pts[1].Y = 9000
		}
		lines = append(lines, name, pts)
		values = append(values, pts[0].Y, pts[1].Y)
	}
	names := farNames(lines, values, func(col string, pt plotter.XY) string { return col })
	far := cutLines(lines, values, "KB", func(string) color.NRGBA { return color.NRGBA{A: 255} })
	if !slices.Equal(names, []string{"f"}) {
		t.Errorf("named %v, want f", names)
	}
	f := lines[11].(plotter.XYs)
	if f[1].Y != far.axis.Max || f[0].Y != 450 {
		t.Errorf("f drawn at %v, want its far point at the axis' top %v and the other at 450", f, far.axis.Max)
	}
	if n := len(far.far.pts[2]); n != 1 {
		t.Errorf("%d arrows above, want 1", n)
	}
	if far.axis.Max > 500 {
		t.Errorf("axis up to %v: the far point still sets it", far.axis.Max)
	}
}

// TestByMachineParts: records of two machines part by the machine of
// their study's env record, in the order the machines appear, each named.
func TestByMachineParts(t *testing.T) {
	recs, err := results.ReadFile("testdata/machines.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	parts, machines := ByMachine(recs)
	if len(parts) != 2 || len(machines) != 2 {
		t.Fatalf("%d parts, %d machines, want 2 and 2", len(parts), len(machines))
	}
	for i, host := range []string{"laptop", "server"} {
		if !strings.Contains(machines[i], host) {
			t.Errorf("machine %d named %q, want %s", i, machines[i], host)
		}
		for _, r := range parts[i] {
			if !strings.HasSuffix(r.Study, host) {
				t.Errorf("part %d (%s) holds a record of study %s", i, host, r.Study)
			}
		}
	}
	if len(parts[0])+len(parts[1]) != len(recs) {
		t.Errorf("%d + %d records parted, want %d", len(parts[0]), len(parts[1]), len(recs))
	}
	orphan := results.Record{Schema: results.Schema, Study: "no-env", Variant: "sqlite", Phase: "create", Status: results.StatusOK}
	parts, machines = ByMachine(append([]results.Record{orphan}, recs...))
	if len(parts) != 2 || !strings.Contains(machines[0], "laptop") || parts[0][0].Study != "no-env" {
		t.Errorf("a study without an env record first: %d parts, machines %q; want 2, laptop's part holding it", len(parts), machines)
	}
	if one, _ := ByMachine(parts[0]); len(one) != 1 {
		t.Errorf("one machine's records: %d parts, want 1", len(one))
	}
}

// TestRankedWithinGroups: a dot chart ranks its rows within their group
// (a machine, or a machine and layout), the groups in the order they
// first appear, never one group's rows among another's.
func TestRankedWithinGroups(t *testing.T) {
	row := func(label, group string, v float64) dotRow {
		return dotRow{label: label, group: group, cell: cell{value: v}, p99: math.NaN()}
	}
	rows := []dotRow{row("a5", "machine 1", 5), row("b3", "machine 2", 3), row("a1", "machine 1", 1), row("b0", "machine 2", 0.5)}
	var got []string
	for _, r := range ranked(rows) {
		got = append(got, r.label)
	}
	if want := []string{"a1", "a5", "b0", "b3"}; !slices.Equal(got, want) {
		t.Errorf("ranked %v, want %v", got, want)
	}
	if text := groupsText(rows, figure{name: "turn-p99"}); !strings.Contains(text, "Ranked by machine") {
		t.Errorf("caption %q", text)
	}
	if text := groupsText(rows[:1], figure{name: "turn-p99"}); text != "" {
		t.Errorf("one group: caption %q, want none", text)
	}
}
