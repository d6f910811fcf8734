package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"manydb/internal/results"
	"manydb/internal/stats"
)

// A chart builder draws one kind of chart for a study and setting, or
// returns nil when the records have nothing to draw. The report draws,
// for every table, the distributions of the figures the registry marks
// drawn (cdf.go), then every chart of charts.
type chart struct {
	title func(t *table) string
	build func(t *table) (*plot.Plot, error)
	// legendRight draws the legend right of the plot, one entry per
	// variant, where it covers no line.
	legendRight bool
}

// charts are the report's charts below the distributions, in the order
// it draws them.
func charts() []chart {
	return []chart{
		titled("Load average over the study (1-minute, sampled every 10 s while each phase ran); the strip along the bottom: which family's variant ran when", loadPlot),
		{title: holdMemoryTitle, build: holdMemoryPlot, legendRight: true},
		{title: recallTitle, build: recallPlot},
		serveChart("manydb serve: p99 latency per pool size", "p99 latency", "ms", serveP99),
		serveChart("manydb serve: peak resident memory per pool size", "peak resident memory", "KB", servePeakRSS),
		{title: titleOf("manydb serve --memory-max: the most each pool's worker was charged in its memory cgroup, against the limit (dashed)"), build: serveChargedPlot, legendRight: true},
	}
}

// serveChart is the chart of one serve figure (what, in unit) against
// the pool size (servePlot), its title naming the points drawn at the
// edge of its value axis cut short.
func serveChart(title, what, unit string, y func(s *results.Serve) float64) chart {
	return chart{title: func(t *table) string {
		lines, ys := servePoolLines(t, y)
		if len(lines) == 0 {
			return title
		}
		return title + beyondAxis(farNames(lines, ys, func(col string, pt plotter.XY) string {
			return fmt.Sprintf("%s at pool %s %s", t.columns[col].variant, thousands(pt.X-1), natural(pt.Y, unit))
		}))
	}, build: servePlot(what, unit, y), legendRight: true}
}

// titled is a chart with a title of its own.
func titled(title string, build func(t *table) (*plot.Plot, error)) chart {
	return chart{title: titleOf(title), build: build}
}

// titleOf is a chart's title that does not depend on the table.
func titleOf(title string) func(*table) string { return func(*table) string { return title } }

// htmlPage is the whole report: its title, lead, table of contents,
// caveats and raw records, the overviews, then a section per study and
// setting, then the sweeps.
type htmlPage struct {
	Title     string
	About     htmlAbout
	Lead      *Lead
	TOC       []htmlTOC
	Caveats   []string
	Files     []Link
	Overviews []htmlOverview
	Serves    []htmlServe
	Sections  []htmlTable
}

// MainChart is the chart that answers at a glance, which the lead
// shows: the first frontier chart of the serve studies, else of the
// overviews; nil when there is none.
func (page htmlPage) MainChart() *htmlChart {
	var charts []htmlChart
	for _, s := range page.Serves {
		charts = append(charts, s.Charts...)
	}
	for _, o := range page.Overviews {
		charts = append(charts, o.Charts...)
	}
	for i := range charts {
		if charts[i].frontier {
			return &charts[i]
		}
	}
	return nil
}

// htmlOverview is an overview as the page shows it.
type htmlOverview struct {
	ID       string // its anchor
	Study    string
	Workload string
	Families []htmlFamily
	Headers  []string
	SortedBy string // the header of the column the rows are sorted by
	Rows     []htmlOverviewRow
	Notes    []string // the rows left out, and why
	Charts   []htmlChart
}

// htmlFamily is an engine family and its colour ("#4e79a7").
type htmlFamily struct{ Name, Color string }

// HTML writes one self-contained HTML page: an overview of each workload
// (a row per variant, the figures that decide, a chart per figure), then
// per study and setting its table, with the spread of the open figures
// across runs, its charts and the environment of the sessions that
// recorded it, then the sweeps.
func HTML(w io.Writer, recs []results.Record) error { return WritePage(w, recs, Page{}) }

// buildPage groups recs into the page's overviews, serve charts, tables
// and sweeps.
func buildPage(recs []results.Record) (htmlPage, error) {
	recs, renamed := renameOldVariants(recs)
	tables := group(recs, renamed)
	if len(tables) == 0 {
		return htmlPage{}, ErrNoStudies
	}
	var page htmlPage
	for _, o := range overviews(tables) {
		ho, err := overviewHTML(o)
		if err != nil {
			return page, err
		}
		page.Overviews = append(page.Overviews, ho)
	}
	for _, t := range tables {
		if !t.served {
			continue
		}
		marks, agents := serveMarks(t)
		charts, err := frontierCharts(marks, "p99 latency", fmt.Sprintf("p99 latency against memory per agent at %s agents (the worker's peak resident memory over the agents): a dot per variant and pool size; the grey line, the frontier: what no other beats on both. Lower left is better.", thousands(float64(agents))))
		if err != nil {
			return page, err
		}
		paths, err := serveCharts(t)
		if err != nil {
			return page, err
		}
		charts = append(charts, paths...)
		page.Serves = append(page.Serves, htmlServe{Title: "Serve s" + t.title()[1:] + ": p99 latency against memory, per pool size", Charts: charts})
	}
	for _, t := range tables {
		ht, err := tableHTML(t)
		if err != nil {
			return page, err
		}
		page.Sections = append(page.Sections, ht)
	}
	sweeps, err := sweepHTML(groupSweeps(recs))
	if err != nil {
		return page, err
	}
	page.Sections = append(page.Sections, sweeps...)
	agentSweeps, err := agentSweepHTML(curves(groupAgentSweeps(recs)))
	page.Sections = append(page.Sections, agentSweeps...)
	return page, err
}

// overviewHTML is an overview as the page shows it, with its charts.
func overviewHTML(o *overview) (htmlOverview, error) {
	ho := htmlOverview{Workload: o.workload, Study: o.study}
	seen := map[string]bool{}
	for _, r := range o.rows {
		if !seen[r.family.name] {
			seen[r.family.name] = true
			ho.Families = append(ho.Families, htmlFamily{r.family.name, hex(r.family.color)})
		}
	}
	slices.SortStableFunc(ho.Families, func(a, b htmlFamily) int { return familyRank(o, a.Name) - familyRank(o, b.Name) })
	for i, l := range o.labels {
		ho.Headers = append(ho.Headers, header(l))
		if o.figs[i].perRun && ho.SortedBy == "" {
			ho.SortedBy = header(l)
		}
	}
	for _, r := range o.rows {
		hr := htmlOverviewRow{Label: r.label, Family: r.family.name, Color: hex(r.family.color)}
		for i, c := range r.cells {
			hc := htmlCell{Text: c.text, Spread: c.spreadText(o.figs[i].unit), Sort: sortValue(c.value)}
			if OutsideDomain(c.value, o.figs[i].unit) {
				hc = htmlCell{Text: "≈ 0", Spread: "measured " + c.text + ", not ranked"}
			}
			hr.Cells = append(hr.Cells, hc)
		}
		ho.Rows = append(ho.Rows, hr)
	}
	for _, n := range o.notApplied {
		ho.Notes = append(ho.Notes, n.String())
	}
	for _, setting := range o.settings() {
		if s := o.notWarmNote(setting); s != "" {
			ho.Notes = append(ho.Notes, s)
		}
	}
	var charts []htmlChart
	if marks, p99 := overviewMarks(o); len(marks) > 0 {
		caption := p99 + " against the anonymous memory per open store: a dot per row above; the grey line, the frontier: what no other beats on both. Lower left is better."
		front, err := frontierCharts(marks, "p99", caption)
		if err != nil {
			return ho, err
		}
		charts = front
	}
	dots, err := decisionCharts(o)
	ho.Charts = append(charts, dots...)
	return ho, err
}

// familyRank is the catalog rank of a family of the overview's rows.
func familyRank(o *overview, name string) int {
	for _, r := range o.rows {
		if r.family.name == name {
			return rank(r.family)
		}
	}
	return 0
}

// variantsAsColumns is the most variants a study's table shows as
// columns; with more, it shows a variant per row (htmlBlock).
const variantsAsColumns = 6

// figuresPerBlock is how many figures a block of a turned table shows
// side by side: seven fit in 1,280 pixels.
const figuresPerBlock = 7

// A turnedRow is a row of a table before it is turned: its label, and its
// text in a column.
type turnedRow struct {
	label string
	text  func(col string) string
}

// turnedBlocks is the rows of table t turned (a row per column of t, a
// column per row), cut into blocks of figuresPerBlock columns; each
// block has the caption.
func turnedBlocks(t *table, caption string, rows []turnedRow) []htmlBlock {
	var blocks []htmlBlock
	for start := 0; start < len(rows); start += figuresPerBlock {
		part := rows[start:min(start+figuresPerBlock, len(rows))]
		b := htmlBlock{Caption: caption}
		for _, r := range part {
			b.Headers = append(b.Headers, r.label)
		}
		for _, v := range t.variants {
			f := familyOf(t.columns[v].variant)
			hr := htmlOverviewRow{Label: v, Family: f.name, Color: hex(f.color)}
			for _, r := range part {
				text, spread := splitSpread(r.text(v))
				hr.Cells = append(hr.Cells, htmlCell{Text: text, Spread: spread})
			}
			b.Rows = append(b.Rows, hr)
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// studyBlocks is a study's table turned.
func studyBlocks(t *table) []htmlBlock {
	var rows []turnedRow
	for _, r := range t.rows() {
		rows = append(rows, turnedRow{r.label, func(v string) string { return t.text(r.fig, t.columns[v]) }})
	}
	return turnedBlocks(t, "", rows)
}

// serveBlocks is a serve study's table turned: blocks per step (pool
// size, and rate of a ladder).
func serveBlocks(t *table) []htmlBlock {
	var blocks []htmlBlock
	for _, st := range t.serveSteps() {
		var rows []turnedRow
		for _, sr := range t.serveRows(st) {
			rows = append(rows, turnedRow{sr.label, func(v string) string { return t.serveCell(v, st, sr) }})
		}
		blocks = append(blocks, turnedBlocks(t, "Pool size "+thousands(float64(st.pool))+t.ladderText(st.rate, " at ", ", "), rows)...)
	}
	return blocks
}

// ladderBlocks are a rate ladder's tables of latency against the offered
// rate, turned: a block per pool size; none without a ladder.
func ladderBlocks(t *table) []htmlBlock {
	if !t.rateLadder() {
		return nil
	}
	var blocks []htmlBlock
	for _, pool := range t.servePools() {
		var rows []turnedRow
		for _, lr := range t.ladderRows(pool) {
			rows = append(rows, turnedRow{lr.label, lr.cell})
		}
		blocks = append(blocks, turnedBlocks(t, "Latency against the offered rate, pool size "+thousands(float64(pool)), rows)...)
	}
	return blocks
}

// splitSpread cuts a table's text into its value and the spread that
// follows it (spread writes " (a–b)" or " [a–b]"), so a turned table can
// show the spread on a line of its own: "0.27 ms (0.24–0.33)" gives
// "0.27 ms" and "(0.24–0.33)".
func splitSpread(text string) (value, spread string) {
	for i := 0; i+2 < len(text); i++ {
		if text[i] == ' ' && (text[i+1] == '(' || text[i+1] == '[') && text[i+2] >= '0' && text[i+2] <= '9' {
			return text[:i], text[i+1:]
		}
	}
	return text, ""
}

// tableHTML is one study and setting as the page shows it: its table,
// notes, charts and environments.
func tableHTML(t *table) (htmlTable, error) {
	ht := htmlTable{Title: t.title(), Workload: t.workload, Sessions: t.sessionsLine()}
	if t.served {
		ht.Title = "Serve s" + ht.Title[1:]
	}
	switch {
	case len(t.variants) > variantsAsColumns && t.served:
		ht.Blocks = append(serveBlocks(t), ladderBlocks(t)...)
	case len(t.variants) > variantsAsColumns:
		ht.Blocks = studyBlocks(t)
	case t.served:
		ht.Variants, ht.Rows = t.variants, append(t.serveRowsHTML(), t.ladderRowsHTML()...)
	default:
		ht.Variants = t.variants
		for _, r := range t.rows() {
			row := []string{r.label}
			for _, v := range t.variants {
				row = append(row, t.text(r.fig, t.columns[v]))
			}
			ht.Rows = append(ht.Rows, row)
		}
	}
	var notes bytes.Buffer
	t.writeNotes(&notes)
	ht.Notes = splitLines(notes.String())
	for i, s := range t.sessions {
		title := "Environment"
		if len(t.sessions) > 1 {
			title = t.sessionTitle(i)
		}
		ht.Envs = append(ht.Envs, htmlEnv{Title: title, Env: s.env.Env})
	}
	groups, err := cdfGroups(t)
	if err != nil {
		return ht, err
	}
	ht.Groups = groups
	growth, err := openGrowthGroup(t)
	if err != nil {
		return ht, err
	}
	if len(growth.Panels) > 0 {
		ht.Groups = append(ht.Groups, growth)
	}
	for _, ch := range charts() {
		p, err := ch.build(t)
		if err != nil {
			return ht, err
		}
		if p == nil {
			continue
		}
		s, err := svg(p)
		if ch.legendRight {
			s, err = svgLegendRight(p, len(t.variants))
		}
		if err != nil {
			return ht, err
		}
		ht.Charts = append(ht.Charts, htmlChart{Title: ch.title(t), SVG: s})
	}
	return ht, nil
}

func splitLines(s string) []string {
	var out []string
	for _, l := range bytes.Split([]byte(s), []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, string(l))
		}
	}
	return out
}

// pageStart and pageStyle are how every page manydb has drawn begins
// (its first bytes) and its style sheet begins (after the title): by them
// IsPage knows a page manydb wrote, and pageTemplate writes them.
const (
	pageStart = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	pageStyle = "</title>\n<style>\nbody{font-family:sans-serif;margin:1.5em;max-width:84em}\n"
)

// IsPage tells whether head, the first 8 KB or more of a file, is the
// start of a page manydb report wrote.
func IsPage(head []byte) bool {
	return bytes.HasPrefix(head, []byte(pageStart)) && bytes.Contains(head, []byte(pageStyle))
}

// pageTemplate is the page. Its one script sorts the overview by the
// column whose header is clicked (the numbers are in data-v); without
// scripts the rows stay sorted as the server sorted them.
var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{"long": longCell}).Parse(pageStart +
	`<meta name="viewport" content="width=device-width, initial-scale=1"><title>{{.Title}}` + pageStyle + `svg{max-width:100%;height:auto}
figure{max-width:100%}
dd{overflow-wrap:anywhere}
@media (max-width:600px){body{margin:.6em}.scroll td:first-child,.scroll th:first-child{min-width:7em}table.overview td:first-child{min-width:6em}}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #bbb;padding:.2em .5em;text-align:right}
td:first-child,th:first-child{text-align:left}
.scroll{overflow-x:auto;max-width:100%}
.scroll td:first-child,.scroll th:first-child{position:sticky;left:0;background:#fff;min-width:14em}
table.overview th,table.turned th{font-weight:normal;font-size:.85em;max-width:9em;vertical-align:bottom}
table.overview th{cursor:pointer}
table.overview td,table.turned td{white-space:nowrap}
table.overview td:first-child{white-space:normal;min-width:10em;max-width:16em}
table.overview small,table.turned small{color:#666}
.sw{display:inline-block;width:.8em;height:.8em;margin-right:.4em;vertical-align:baseline}
.legend span{margin-right:1.2em;white-space:nowrap}
.charts{display:flex;flex-wrap:wrap;gap:.5em 1.5em;align-items:flex-start}
figure .charts{gap:0 .5em}
figure .charts figure{width:235px}
figure .charts figcaption{font-size:.8em}
.scroll td{white-space:nowrap}
.scroll td:first-child{white-space:normal;max-width:22em}
table.turned td.long,.scroll td.long,table.overview td.long{white-space:normal;min-width:8em;max-width:13em}
figure{display:inline-block;margin:.5em 0;page-break-inside:avoid}
figcaption{font-size:.9em;max-width:36em}
dl{font-size:.85em}
#answer li,#answer p{overflow-wrap:anywhere}
#answer table{font-size:.9em}
#answer .scroll td:first-child,#answer .scroll th:first-child{min-width:0}
table.overview td.long{max-width:10em}
table.overview{font-size:.92em}
@media print{section{page-break-before:always}}
</style></head><body>
<h1>{{.Title}}</h1>
{{with .About}}<p class="about">{{range .Machines}}Machine: {{.}}.<br>{{end}}Measured by manydb {{.Measured}}; drawn by manydb {{.Drawn}}.{{with .Links}}<br>The record: {{range $i, $l := .}}{{if $i}} · {{end}}<a href="{{$l.Href}}">{{$l.Name}}</a>{{end}}.{{end}}</p>
{{end}}{{with .Lead}}<section id="answer">
<h2>{{.Heading}}</h2>
{{range .Paragraphs}}<p>{{.}}</p>
{{end}}{{range .Tables}}<p>{{.Caption}}</p>
<div class="scroll"><table class="turned"><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td{{if long .}} class="long"{{end}}>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}{{with .Items}}<ul>{{range .}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{with $.MainChart}}<figure>{{.SVG}}<figcaption>At a glance: {{.Title}} Drawn again below, with its study.</figcaption></figure>
{{end}}</section>
{{end}}<nav><h2>Contents</h2><ul>{{if .Lead}}<li><a href="#answer">{{.Lead.Heading}}</a></li>{{end}}{{range .TOC}}<li><a href="#{{.ID}}">{{.Title}}</a></li>{{end}}<li><a href="#caveats">What the figures rest on, and the raw records</a></li></ul></nav>
<section id="caveats"><h2>What the figures rest on, and the raw records</h2>
<ul>{{range .Caveats}}<li>{{.}}</li>{{end}}</ul>
{{with .Files}}<p>Raw records (JSON lines, every sample): {{range $i, $f := .}}{{if $i}}, {{end}}<a href="{{$f.Href}}">{{$f.Name}}</a>{{end}}.</p>{{end}}
</section>
{{range .Overviews}}<section id="{{.ID}}">
<h2>Overview of study {{.Study}}: {{.Workload}}</h2>
<p>One row per variant; each figure as in the tables below, with its spread across runs under it ([a–b]: the 95 % interval of the median of the per-run values, (a–b): their range). Sorted by {{.SortedBy}}; click a column's header to sort by it.</p>
<p class="legend">Engine families, one colour on every chart: {{range .Families}}<span><span class="sw" style="background:{{.Color}}"></span>{{.Name}}</span>{{end}}</p>
<div class="scroll"><table class="overview"><thead><tr><th>variant</th>{{range .Headers}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr><td data-v="{{.Label}}"><span class="sw" style="background:{{.Color}}" title="{{.Family}}"></span>{{.Label}}</td>{{range .Cells}}<td data-v="{{.Sort}}"{{if long .Text}} class="long"{{end}}>{{.Text}}{{with .Spread}}<br><small>{{.}}</small>{{end}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{range .Notes}}<p>{{.}}</p>
{{end}}<div class="charts">{{range .Charts}}<figure>{{.SVG}}<figcaption>{{.Title}}</figcaption></figure>
{{end}}</div>
</section>
{{end}}
{{range .Serves}}<section id="{{.ID}}">
<h2>{{.Title}}</h2>
<div class="charts">{{range .Charts}}<figure>{{.SVG}}<figcaption>{{.Title}}</figcaption></figure>
{{end}}</div>
</section>
{{end}}
{{range .Sections}}<section id="{{.ID}}">
<h2>{{.Title}}</h2>
<p>Workload {{.Workload}}. The open figures pool every warm run; after each timing figure, its spread across runs (the notes below the table say which).</p>
{{with .Sessions}}<p>{{.}}</p>{{end}}
{{if .Blocks}}{{range .Blocks}}{{with .Caption}}<h3>{{.}}</h3>{{end}}<div class="scroll"><table class="turned"><thead><tr><th>variant</th>{{range .Headers}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr><td><span class="sw" style="background:{{.Color}}" title="{{.Family}}"></span>{{.Label}}</td>{{range .Cells}}<td{{if long .Text}} class="long"{{end}}>{{.Text}}{{with .Spread}}<br><small>{{.}}</small>{{end}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}{{else}}<div class="scroll"><table><tr><th></th>{{range .Variants}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td{{if long .}} class="long"{{end}}>{{.}}</td>{{end}}</tr>
{{end}}</table></div>{{end}}
{{range .Notes}}<p>{{.}}</p>
{{end}}
{{with .Groups}}<div class="charts">{{range .}}<figure><div class="charts">{{range .Panels}}<figure>{{.SVG}}<figcaption>{{.Title}}</figcaption></figure>{{end}}</div><figcaption>{{.Title}}</figcaption></figure>
{{end}}</div>{{end}}
<div class="charts">{{range .Charts}}<figure>{{.SVG}}<figcaption>{{.Title}}</figcaption></figure>
{{end}}</div>
{{range .Envs}}<details open><summary>{{.Title}}</summary><dl>{{range $k, $v := .Env}}<dt>{{$k}}</dt><dd>{{$v}}</dd>{{end}}</dl></details>
{{end}}
</section>
{{end}}<script>
for (const th of document.querySelectorAll("table.overview th")) th.onclick = () => {
  const body = th.closest("table").tBodies[0], i = th.cellIndex, rows = [...body.rows];
  const key = r => r.cells[i].dataset.v === "" ? Infinity : (i === 0 ? r.cells[i].dataset.v : +r.cells[i].dataset.v);
  rows.sort((a, b) => key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0).forEach(r => body.appendChild(r));
};
</script></body></html>
`))

// loadPlot draws the 1-minute load average the orchestrator sampled while
// each phase's worker ran (one sample per 10 s: load_during), against the
// minutes since the table's first phase started, with each phase's span
// shaded; nil when no record has samples. When the table has several
// machines, each machine has its own line (and its minutes count from its
// own first phase).
func loadPlot(t *table) (*plot.Plot, error) {
	var machines []string
	byMachine := map[string][]*results.Record{}
	for _, v := range t.variants {
		c := t.columns[v]
		for _, r := range c.all {
			if len(r.LoadDuring) == 0 || r.Started.IsZero() {
				continue
			}
			if !slices.Contains(machines, c.machine) {
				machines = append(machines, c.machine)
			}
			byMachine[c.machine] = append(byMachine[c.machine], r)
		}
	}
	if len(machines) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = "minutes since the first phase started", "load average (1 min)"
	p.Y.Tick.Marker = naturalTicks{plot.DefaultTicks{}, ""}
	top := 0.0
	for _, recs := range byMachine {
		for _, r := range recs {
			top = math.Max(top, stats.Max(r.LoadDuring))
		}
	}
	for m, machine := range machines {
		recs := byMachine[machine]
		slices.SortFunc(recs, func(a, b *results.Record) int { return a.Started.Compare(b.Started) })
		t0 := recs[0].Started
		var pts plotter.XYs
		for _, r := range recs {
			start := r.Started.Sub(t0).Minutes()
			for k, l := range r.LoadDuring {
				pts = append(pts, plotter.XY{X: start + float64(k+1)*10/60, Y: l})
			}
			end := start + r.WorkerS/60
			// a strip below zero, one per machine: the phase's span in its
			// family's colour, a thick stroke (a filled shape of a short
			// phase would read as a data point)
			mid := -top * (0.035 + 0.06*float64(m))
			span, err := plotter.NewLine(plotter.XYs{{X: start, Y: mid}, {X: end, Y: mid}})
			if err != nil {
				return nil, fmt.Errorf("load chart: %w", err)
			}
			span.Color, span.Width = familyOf(r.Variant).color, vg.Points(5)
			p.Add(span)
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("load chart: %w", err)
		}
		if len(machines) > 1 {
			line.Color = plotutil.Color(m)
			p.Legend.Add(machine, line)
		}
		p.Add(line)
	}
	if len(machines) > 1 {
		// The legend in a band of its own above every point.
		p.Legend.Top = true
		p.Y.Max = top * (1 + 0.15*float64(len(machines)))
	}
	return p, nil
}

// longCell tells whether a table cell's text is long enough to wrap (a
// sentence, such as a limit's description) rather than widen its column:
// a figure with its unit and spread stays on one line.
func longCell(text string) bool { return len([]rune(text)) > 28 }
