package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"manydb/internal/datasource"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// agentSweep is one manydb sweep under one setting: each variant and
// layout's figures against the number of agents a fixed total of notes
// was divided among, one study per agent count.
type agentSweep struct {
	id, setting string
	total, dims int
	data        string
	counts      []int                       // agent counts, smallest first
	notes       map[int]int                 // notes per agent, by agent count
	columns     []string                    // variant and layout, first seen first
	variantOf   map[string]string           // a column's variant
	figs        map[string]map[int]*Figures // by column and agent count
	answers     map[string]map[int]int      // knn answers checked, by column and agent count
	returned    map[string]map[int]int      // the ids those answers returned, in all
}

// agentStudy is what a sweep's study contributes: its sweep, setting
// and agent count.
type agentStudy struct {
	sweep *results.AgentSweepConfig
	count int
}

// groupAgentSweeps finds the studies of manydb sweep in recs, one sweep
// per sweep id and setting, in the order they appear.
func groupAgentSweeps(recs []results.Record) []*agentSweep {
	studies := map[string]agentStudy{}
	for _, r := range recs {
		if r.Phase == job.PhaseEnv && r.Config != nil && r.Config.AgentSweep != nil {
			studies[r.Study] = agentStudy{r.Config.AgentSweep, r.Stores}
		}
	}
	var order []*agentSweep
	byKey := map[sweepSetting]*agentSweep{}
	perStudy := map[studySetting][]results.Record{}
	for _, r := range recs {
		st, ok := studies[r.Study]
		if !ok || r.Setting == "" || r.Phase == job.PhaseEnv || r.Phase == job.PhaseEnd {
			continue
		}
		key := sweepSetting{st.sweep.ID, r.Setting}
		s := byKey[key]
		if s == nil {
			s = newAgentSweep(st.sweep, r)
			byKey[key] = s
			order = append(order, s)
		}
		s.add(st.count, r)
		ss := studySetting{r.Study, r.Setting}
		perStudy[ss] = append(perStudy[ss], r)
	}
	for ss, rs := range perStudy {
		s := byKey[sweepSetting{studies[ss.study].sweep.ID, ss.setting}]
		for _, f := range CollectFigures(rs) {
			s.figs[f.Layout.Mark(f.Variant, " ")][studies[ss.study].count] = f
		}
	}
	for _, s := range order {
		slices.Sort(s.counts)
	}
	return order
}

// newAgentSweep is an empty sweep named by c, of the setting and data of
// its first record r.
func newAgentSweep(c *results.AgentSweepConfig, r results.Record) *agentSweep {
	return &agentSweep{id: c.ID, setting: r.Setting, total: c.Total, dims: r.Workload.Dims, data: datasource.Name(r.Workload.Data),
		notes: map[int]int{}, variantOf: map[string]string{}, figs: map[string]map[int]*Figures{},
		answers: map[string]map[int]int{}, returned: map[string]map[int]int{}}
}

// add takes record r of the study of count agents.
func (s *agentSweep) add(count int, r results.Record) {
	if !slices.Contains(s.counts, count) {
		s.counts = append(s.counts, count)
	}
	s.notes[count] = r.Workload.Objects
	col := columnName(&r)
	if _, ok := s.variantOf[col]; !ok {
		s.columns = append(s.columns, col)
		s.variantOf[col] = r.Variant
		s.figs[col], s.answers[col], s.returned[col] = map[int]*Figures{}, map[int]int{}, map[int]int{}
	}
	if r.Status == results.StatusOK && r.Phase == job.PhaseOpen && r.Cache == "" {
		s.answers[col][count] += len(r.Recall)
		for _, n := range r.KNNReturned {
			s.returned[col][count] += n
		}
	}
}

// agentRow is one figure of a sweep: its label, unit and value for a
// column at an agent count (NaN when there is none).
type agentRow struct {
	label, unit string
	value       func(s *agentSweep, col string, n int) float64
}

// The labels of the rows a sweep's charts draw.
const (
	rowRecall   = "recall@10, mean"
	rowRecallP5 = "recall@10, 5th percentile"
	rowKNNP99   = "knn, p99 (warm)"
)

// agentRows are a sweep's figures, in the order its tables show them.
func agentRows() []agentRow {
	return []agentRow{
		{rowRecall, "%", pooledFigure(FigureRecall)},
		{rowRecallP5, "%", pooledFigure(FigureRecallP5)},
		{"answers that found none of the 10", "%", pooledFigure(FigureRecallNone)},
		{"answers with fewer than 10 ids", "%", pooledFigure(FigureKNNShort)},
		{"ids an answer returned (mean, of 10 asked)", "ids", meanReturned},
		{"knn, median (warm)", "ms", pooledFigure(FigureKNN)},
		{rowKNNP99, "ms", pooledFigure(FigureKNNP99)},
		{"held stores: recall@10 asking 40 notes, keeping 10 (mean)", "%", pooledFigure(FigureName(recallAskingName(40)))},
		{"held stores: recall@10 asking 160 notes (mean)", "%", pooledFigure(FigureName(recallAskingName(160)))},
		{"held stores: recall@10 asking 640 notes (mean)", "%", pooledFigure(FigureName(recallAskingName(640)))},
		{"knn answers checked", "answers", answersChecked},
		{"build: every agent's notes written (create phase)", "s", buildSeconds},
		{"memory per agent held open, resident", "KB", pooledFigure(FigureRSSPerOpenStore)},
		{"space per agent", "KB", pooledFigure(FigureSpacePerStore)},
	}
}

// agentRowLabeled is the row of agentRows with label.
func agentRowLabeled(label string) agentRow {
	i := slices.IndexFunc(agentRows(), func(r agentRow) bool { return r.label == label })
	return agentRows()[i]
}

// pooledFigure is a figure of a column's study: over every run's samples
// pooled where the figure has one value per run, else the median of its
// values.
func pooledFigure(name FigureName) func(s *agentSweep, col string, n int) float64 {
	return func(s *agentSweep, col string, n int) float64 {
		f := s.figs[col][n]
		if f == nil {
			return math.NaN()
		}
		if v, ok := f.Pooled[string(name)]; ok {
			return v
		}
		xs := slices.DeleteFunc(slices.Clone(f.Values[string(name)]), math.IsNaN)
		if len(xs) == 0 {
			return math.NaN()
		}
		return stats.Median(xs)
	}
}

// answersChecked is the number of knn answers a column's warm runs made
// at agent count n; NaN for none (a layout the variant lacks).
func answersChecked(s *agentSweep, col string, n int) float64 {
	if s.answers[col][n] == 0 {
		return math.NaN()
	}
	return float64(s.answers[col][n])
}

// meanReturned is the mean number of ids a column's knn answers
// returned at agent count n (10 asked).
func meanReturned(s *agentSweep, col string, n int) float64 {
	if s.answers[col][n] == 0 {
		return math.NaN()
	}
	return float64(s.returned[col][n]) / float64(s.answers[col][n])
}

// buildSeconds is the create phase's wall time: the agents over the
// stores written per second.
func buildSeconds(s *agentSweep, col string, n int) float64 {
	sps := pooledFigure(FigureStoresPerSecond)(s, col, n)
	if math.IsNaN(sps) || sps <= 0 {
		return math.NaN()
	}
	return float64(n) / sps
}

// text is x as a cell of row r.
func (r agentRow) text(x float64) string {
	switch {
	case math.IsNaN(x):
		return "–"
	case r.unit == "ms":
		return millis(x, 3)
	case r.unit == "%":
		return fmt.Sprintf("%.1f %%", x)
	case r.unit == "s":
		return fmt.Sprintf("%.1f s", x)
	case r.unit == "answers":
		return thousands(x)
	case r.unit == "ids":
		return fmt.Sprintf("%.1f", x)
	}
	return thousands(x) + " " + r.unit
}

// title is the sweep's heading.
func (s *agentSweep) title() string {
	return fmt.Sprintf("Sweep %s, setting %s: %s notes of %s (%d dims) divided among the agents", s.id, s.setting, thousands(float64(s.total)), s.data, s.dims)
}

// header is the column headers: one per agent count, with its notes.
func (s *agentSweep) header() []string {
	h := make([]string, len(s.counts))
	for i, n := range s.counts {
		h[i] = fmt.Sprintf("%s agents × %s", thousands(float64(n)), thousands(float64(s.notes[n])))
	}
	return h
}

// cells is row r for column col, one text per agent count, and whether
// any has a value.
func (s *agentSweep) cells(r agentRow, col string) ([]string, bool) {
	out, has := make([]string, len(s.counts)), false
	for i, n := range s.counts {
		x := r.value(s, col, n)
		has = has || !math.IsNaN(x)
		out[i] = r.text(x)
	}
	return out, has
}

// agentSweepAbout says how a sweep's figures were made.
const agentSweepAbout = "One study per agent count (its own tables above), each with its own stores: the notes divided among the agents, none in two; knn queries are held-out items of an agent's own topics, their exact answer the agent's own 10 nearest. Latencies and recall are over every warm run's answers pooled; memory per agent is the hold's, space the space phase's (a shared store's over its agents)."

// AgentSweeps writes the tables of the manydb sweep studies in recs: per
// sweep and figure, a row per variant and layout, a column per agent
// count. Records of no sweep are ignored.
func AgentSweeps(w io.Writer, recs []results.Record) error {
	writeAgentSweeps(w, groupAgentSweeps(recs))
	return nil
}

// curves are the sweeps of two agent counts or more: what the tables of
// one study's records (a sweep's study prints them) leave out.
func curves(sweeps []*agentSweep) []*agentSweep {
	return slices.DeleteFunc(sweeps, func(s *agentSweep) bool { return len(s.counts) < 2 })
}

// writeAgentSweeps writes the sweeps' tables (AgentSweeps).
func writeAgentSweeps(w io.Writer, sweeps []*agentSweep) {
	for _, s := range sweeps {
		fmt.Fprintf(w, "\n## %s\n\n%s\n", s.title(), agentSweepAbout)
		for _, r := range agentRows() {
			fmt.Fprintf(w, "\n### %s (%s)\n\n| | %s |\n| --- |%s\n", r.label, r.unit, strings.Join(s.header(), " | "), strings.Repeat(" ---: |", len(s.counts)))
			for _, col := range s.columns {
				if cells, has := s.cells(r, col); has {
					fmt.Fprintf(w, "| %s | %s |\n", col, strings.Join(cells, " | "))
				}
			}
		}
	}
}

// agentSweepHTML is the page's section of each sweep: its table (a row
// per figure and column) and its charts.
func agentSweepHTML(sweeps []*agentSweep) ([]htmlTable, error) {
	var out []htmlTable
	for _, s := range sweeps {
		ht := htmlTable{Title: s.title(), Workload: agentSweepAbout, Variants: s.header()}
		for _, r := range agentRows() {
			for _, col := range s.columns {
				if cells, has := s.cells(r, col); has {
					ht.Rows = append(ht.Rows, append([]string{r.label + ": " + col}, cells...))
				}
			}
		}
		charts, err := s.charts()
		if err != nil {
			return nil, err
		}
		ht.Charts = charts
		out = append(out, ht)
	}
	return out, nil
}

// charts are a sweep's charts: recall@10 (mean and 5th percentile) and
// the knn p99 against the number of agents, and recall against p99.
func (s *agentSweep) charts() ([]htmlChart, error) {
	recall, p5, p99 := agentRowLabeled(rowRecall), agentRowLabeled(rowRecallP5), agentRowLabeled(rowKNNP99)
	var out []htmlChart
	meanBound, meanAt := s.atBound(recall)
	p5Bound, p5At := s.atBound(p5)
	for _, c := range []struct {
		title string
		p     func() (*plot.Plot, error)
	}{
		{"recall@10 (mean) against the number of agents (log axis)" + atBoundText(meanBound, meanAt, "at every agent count"), func() (*plot.Plot, error) { return s.againstAgents(recall, meanAt) }},
		{"recall@10 (5th percentile) against the number of agents (log axis)" + atBoundText(p5Bound, p5At, "at every agent count"), func() (*plot.Plot, error) { return s.againstAgents(p5, p5At) }},
		{"knn p99 against the number of agents (log axes)", func() (*plot.Plot, error) { return s.againstAgents(p99, nil) }},
		{"recall@10 (mean) against knn p99, a line per variant through its agent counts (upper left is better)" + atBoundText(meanBound, meanAt, "at every agent count (their knn p99: the chart above)"), func() (*plot.Plot, error) { return s.recallAgainstP99(recall, p99, meanAt) }},
	} {
		p, err := c.p()
		if err != nil || p == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		svg, err := svgLegendRight(p, len(s.columns))
		if err != nil {
			return nil, err
		}
		out = append(out, htmlChart{Title: c.title, SVG: svg})
	}
	return out, nil
}

// atBound names, for a share (unit "%"), the columns at one end of its
// domain (0 % or 100 %) at every agent count, when two or more are and
// some column is not: those are named under the charts, not drawn
// (shareBounds).
func (s *agentSweep) atBound(r agentRow) (float64, []string) {
	bound, at := atOneEnd(r.unit, len(s.columns), func(i int, b float64) bool { return s.allAt(r, s.columns[i], b) })
	var names []string
	for i, col := range s.columns {
		if at != nil && at[i] {
			names = append(names, col)
		}
	}
	return bound, names
}

// allAt tells whether row r of column col is b at every agent count it
// was measured at (and at one at least).
func (s *agentSweep) allAt(r agentRow, col string, b float64) bool {
	seen := false
	for _, n := range s.counts {
		y := r.value(s, col, n)
		if math.IsNaN(y) {
			continue
		}
		if y != b {
			return false
		}
		seen = true
	}
	return seen
}

// againstAgents draws row r against the number of agents (a log axis), a
// line per column but those left out (at one end of a share: atBound);
// a timing's axis is logarithmic, a share's linear from 0 to 100 %.
func (s *agentSweep) againstAgents(r agentRow, leftOut []string) (*plot.Plot, error) {
	var lines []any
	for _, col := range s.columns {
		if slices.Contains(leftOut, col) {
			continue
		}
		var pts plotter.XYs
		for _, n := range s.counts {
			if y := r.value(s, col, n); !math.IsNaN(y) && (r.unit == "%" || y > 0) {
				pts = append(pts, plotter.XY{X: float64(n), Y: y})
			}
		}
		lines = addLine(lines, col, pts, 1)
	}
	p, err := linesPlot("agents", fmt.Sprintf("%s (%s)", r.label, r.unit), lines, func(col string) string { return s.variantOf[col] })
	if p == nil || err != nil {
		return nil, err
	}
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	if r.unit == "%" {
		p.Y.Min, p.Y.Max = 0, 100
	} else {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	return p, nil
}

// recallAgainstP99 draws each column's recall against its knn p99, a
// point per agent count joined in the order of their p99, but the
// columns left out (at 100 % at every count: atBound).
func (s *agentSweep) recallAgainstP99(recall, p99 agentRow, leftOut []string) (*plot.Plot, error) {
	var lines []any
	for _, col := range s.columns {
		if slices.Contains(leftOut, col) {
			continue
		}
		var pts plotter.XYs
		for _, n := range s.counts {
			x, y := p99.value(s, col, n), recall.value(s, col, n)
			if !math.IsNaN(x) && !math.IsNaN(y) && x > 0 {
				pts = append(pts, plotter.XY{X: x, Y: y})
			}
		}
		lines = addLine(lines, col, pts, 1)
	}
	p, err := linesPlot("knn p99 (ms, log axis)", "recall@10, mean (%)", lines, func(col string) string { return s.variantOf[col] })
	if p == nil || err != nil {
		return nil, err
	}
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = 0, 100
	return p, nil
}
