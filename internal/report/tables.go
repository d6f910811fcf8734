// Package report turns results records into the reference study's tables:
// one Markdown table per study and setting, one column per variant in the
// order the study ran them, with the reference's rows and number formats.
//
// Every figure is computed from the raw samples in the records (see
// internal/stats), so a table can be printed again from an old results file.
// Each figure is defined once, in the list figures (registry.go), which the
// tables, the HTML report, the sweeps, compare and the exports read.
//
// The HTML report (html.go, overview.go) draws its charts with
// gonum.org/v1/plot into inline SVG, hand-writing none: the library draws
// horizontal dot charts with the variants named on the axis (NominalY),
// small multiples and scatters well, once its ticks are relabelled to read
// naturally (dotchart.go).
package report

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/settings"
	"manydb/internal/stats"
)

// table is one study and setting. When the records come from several
// machines, a table is one setting of the studies of the same shape
// (workload, stores, stores held, serve or not) on each machine, and its
// columns are "variant @ machine".
type table struct {
	study    string   // the first study
	studies  []string // every study of the table
	setting  string
	sessions []*session // the sessions that wrote the table's records
	machines bool       // one column group per machine
	variants []string   // the columns: variants, or "variant @ machine"
	columns  map[string]*column
	workload string
	objects  int
	dims     int              // values per embedding (0: notes without)
	held     int              // the largest hold count (the hold rows' count when there is one)
	holds    []int            // every hold count of the table's hold records, smallest first
	runs     int              // warm open runs the studies asked for (the most)
	turnRuns int              // turn runs the studies asked for (the most)
	loud     []string         // phases during which the load rose above --max-load
	queries  []job.Query      // the open runs' queries beyond the default count
	modes    []job.CacheMode  // cache modes other than warm, in the order seen
	turned   bool             // some column has turn runs
	served   bool             // a manydb serve study
	failures []string         // "column phase run N: error" of each failed phase not redone
	renamed  []renamedVariant // variants recorded under an older id
}

// failedWhat names a record's phase in a column: "sqlite open run 2",
// "sqlite open cold run 1", "fake create".
func failedWhat(col string, r *results.Record) string {
	what := col + " " + string(r.Phase)
	if r.Cache != "" {
		what += " " + string(r.Cache)
	}
	if r.Phase == job.PhaseServe && r.Serve != nil {
		what += fmt.Sprintf(" pool %d", r.Serve.Pool)
	}
	if r.Phase == job.PhaseProfile && r.Profile != nil && r.Profile.Medium != "" {
		what += " on " + r.Profile.Medium
	}
	if n := r.Repeat(); n > 0 {
		what += fmt.Sprintf(" run %d", n)
	}
	return what
}

// failedWhy is a failed record's error and the last line of the worker's
// standard error.
func failedWhy(r *results.Record) string {
	why := r.Error
	if why == "" {
		why = "no error recorded"
	}
	lines := strings.Split(strings.TrimSpace(r.StderrTail), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		why += " (" + last + ")"
	}
	return why
}

// ErrNoStudies is returned when the records hold no study to show: no
// study phase and no profile.
var ErrNoStudies = errors.New("no study records found (only env or end records, or none)")

// Tables writes one Markdown table per study and setting found in recs, in
// the order they first appear. When a phase appears more than once (a
// rerun), its last record counts.
func Tables(w io.Writer, recs []results.Record) error {
	recs, renamed := renameOldVariants(recs)
	tables := group(recs, renamed)
	profiles := groupProfiles(recs)
	if len(tables) == 0 && len(profiles) == 0 {
		return ErrNoStudies
	}
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		t.write(w)
	}
	writeSweeps(w, groupSweeps(recs))
	writeProfiles(w, profiles, len(tables) > 0)
	return nil
}

// row is one line of a table: a figure (or a row that is no figure) and
// its label for the table's workload and stores held.
type row struct {
	label string
	fig   figure
}

// rows are the table's rows: each entry of figures the table shows, in
// that order.
func (t *table) rows() []row {
	var rows []row
	var holdRows []figure // the hold phase's rows, drawn once per hold count
	for _, f := range figures {
		switch {
		case f.when != nil && !f.when(t):
		case f.phase == job.PhaseHold && len(t.holds) > 1:
			if holdRows == nil {
				rows = append(rows, row{}) // where the blocks go
			}
			holdRows = append(holdRows, f)
		default:
			rows = append(rows, row{f.labelFor(t.objects, t.held), f})
		}
	}
	if holdRows == nil {
		return rows
	}
	// With several hold counts, a block of the hold rows per count, in
	// place of the first hold row.
	var blocks []row
	for _, h := range t.holds {
		for _, f := range holdRows {
			f.held = h
			blocks = append(blocks, row{f.labelFor(t.objects, h), f})
		}
	}
	at := slices.IndexFunc(rows, func(r row) bool { return r.label == "" })
	return slices.Concat(rows[:at], blocks, rows[at+1:])
}

// text is what a row shows in column c.
func (t *table) text(f figure, c *column) string {
	if f.text != nil {
		return f.text(t, c, f)
	}
	recs := t.recordsOf(f, c)
	switch {
	case len(recs) == 0 && f.phase == job.PhaseHold:
		return t.noHold(c, f)
	case len(recs) == 0:
		return missing(c, f.phase)
	}
	if f.na != nil {
		if why := f.na(recs); why != "" {
			return why
		}
	}
	if f.perRun {
		return t.pooledText(f, c, recs)
	}
	v := f.value(recs[len(recs)-1])
	switch {
	case math.IsNaN(v):
		return missing(c, f.phase)
	case f.unit == "ms":
		return millis(v, 2)
	case f.unit == "KB":
		return thousands(v) + " KB"
	case f.unit == "µs":
		return micros(v)
	case f.unit == "mappings" || f.unit == "keys":
		return significant(v)
	}
	return thousands(v)
}

// pooledText is a figure of one value per run as a table shows it: stat
// over the stores of every run pooled, then its spread across runs, and
// † when a warm figure pools fewer runs than the study asked for.
func (t *table) pooledText(f figure, c *column, recs []*results.Record) string {
	xs := pooled(recs, f.samples)
	switch {
	case len(xs) == 0:
		return "–" // e.g. a count row when --queries left count out
	case f.unit == "%":
		return fmt.Sprintf("%.0f %%", f.stat(xs))
	}
	v := millis(f.stat(xs), 3) + spread(perRun(recs, f.samples, f.stat), 3)
	if f.phase == job.PhaseOpen && f.cache == "" && len(recs) < c.runs {
		v += " †"
	}
	return v
}

// runsPooled says how many warm runs a column's open figures pool, of the
// runs the study asked for, and which are missing or failed.
func (t *table) runsPooled(c *column, _ figure) string {
	return pooledRuns(c, c.opens(), c.failedRuns, c.runs)
}

// turnRunsPooled says the same of the turn runs.
func (t *table) turnRunsPooled(c *column, _ figure) string {
	return pooledRuns(c, c.turns(), c.failedTurn, c.turnRuns)
}

// loadAtStart is the highest load at the start of a column's warm runs.
func (t *table) loadAtStart(c *column, _ figure) string {
	opens := c.opens()
	if len(opens) == 0 {
		return missing(c, job.PhaseOpen)
	}
	var loads []float64
	for _, r := range opens {
		loads = append(loads, r.Load1)
	}
	return fmt.Sprintf("%.2f", stats.Max(loads))
}

// perOpenStore is the threads, open files and goroutines a column's hold
// phase added per open store.
func (t *table) perOpenStore(c *column, f figure) string {
	hold := t.holdRecord(c, f)
	if hold == nil {
		return t.noHold(c, f)
	}
	h := hold.Hold
	per := func(before, after int) string { return fmt.Sprintf("%.1f", float64(after-before)/float64(h.Held)) }
	return per(h.ThreadsBefore, h.Threads) + ", " + per(h.FDsBefore, h.FDs) + ", " + per(h.GoroutinesBefore, h.Goroutines)
}

// recordsOf returns the records figure f is computed from in column c:
// of a hold figure, the column's hold of the row's count (holdRecord);
// else the last record of each run of its phase and cache mode.
func (t *table) recordsOf(f figure, c *column) []*results.Record {
	if f.phase != job.PhaseHold {
		return c.records(f.phase, f.cache)
	}
	if r := t.holdRecord(c, f); r != nil {
		return []*results.Record{r}
	}
	return nil
}

// heldOf is the hold count of a hold figure's row: its own in a table of
// several hold counts, else the table's.
func (t *table) heldOf(f figure) int { return cmp.Or(f.held, t.held) }

// holdRecord is a column's last ok hold record of the row's hold count
// (heldOf); with one hold count, its last hold record. nil when it has
// none.
func (t *table) holdRecord(c *column, f figure) *results.Record {
	recs := c.records(job.PhaseHold, "")
	for i := len(recs) - 1; i >= 0; i-- {
		if len(t.holds) <= 1 || (recs[i].Hold != nil && recs[i].Hold.Held == t.heldOf(f)) {
			return recs[i]
		}
	}
	return nil
}

// noHold is a hold row's text in a column without a hold of its count:
// "skipped" when that hold was skipped before it started (the notes say
// why), else as missing.
func (t *table) noHold(c *column, f figure) string {
	if _, ok := c.skippedHolds[t.heldOf(f)]; ok {
		return "skipped"
	}
	return missing(c, job.PhaseHold)
}

// firstLimit names the limit that stops a column's open stores first,
// what each open store takes of it and what was left of it before the
// hold's first open (results.Hold.Walls).
func (t *table) firstLimit(c *column, f figure) string {
	hold := t.holdRecord(c, f)
	if hold == nil {
		return t.noHold(c, f)
	}
	switch {
	case hold.Hold.Held < 1:
		return missing(c, job.PhaseHold)
	case hold.Hold.Limits == nil:
		return "– (not recorded)"
	}
	ws := hold.Hold.Walls()
	if len(ws) == 0 {
		return "none: the open stores took nothing of any limit"
	}
	w := ws[0]
	if w.Name == "memory" {
		return fmt.Sprintf("memory (%s anonymous per store; %s available)", memory(w.PerStore), memory(w.Left))
	}
	return fmt.Sprintf("%s (%s per store; %s left)", w.Name, significant(w.PerStore), thousands(w.Left))
}

// runRanges lists ascending run numbers with each stretch of consecutive
// runs as a range: 1, 3–7, 9. An edited record's run 1000000 gives a short
// line, not a million numbers.
func runRanges(runs []int) string {
	var parts []string
	for i := 0; i < len(runs); {
		j := i
		for j+1 < len(runs) && runs[j+1] == runs[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, fmt.Sprint(runs[i]))
		case j == i+1:
			parts = append(parts, fmt.Sprint(runs[i]), fmt.Sprint(runs[j]))
		default:
			parts = append(parts, fmt.Sprintf("%d–%d", runs[i], runs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// pooledRuns says how many of want runs recs hold, and which failed or are
// missing.
func pooledRuns(c *column, recs []*results.Record, failedRuns map[int]bool, want int) string {
	if c.na {
		return "n/a"
	}
	have := map[int]bool{}
	for _, r := range recs {
		have[r.Repeat()] = true
	}
	var failed, missing []int
	for r := 1; r <= want; r++ {
		switch {
		case have[r]:
		case failedRuns[r]:
			failed = append(failed, r)
		default:
			missing = append(missing, r)
		}
	}
	s := fmt.Sprintf("%d of %d", len(recs), want)
	if len(failed) > 0 {
		s += "; failed: run " + runRanges(failed)
	}
	if len(missing) > 0 {
		s += "; missing: run " + runRanges(missing)
	}
	return s
}

// missing is what a table shows for a figure without a record.
func missing(c *column, phase job.Phase) string {
	if c.na {
		return "n/a"
	}
	if c.failed[phase] {
		return "failed"
	}
	return "–"
}

func (t *table) write(w io.Writer) {
	if t.served {
		t.writeServe(w)
		return
	}
	fmt.Fprintf(w, "## %s\n\n", t.title())
	fmt.Fprintf(w, "Workload %s. Open figures pool the warm runs counted in the row \"Warm open runs pooled\" (each run: all stores in random order).\n\n", t.workload)
	if s := t.sessionsLine(); s != "" {
		fmt.Fprintf(w, "%s\n\n", s)
	}
	fmt.Fprintf(w, "| |%s|\n", " "+strings.Join(t.variants, " | ")+" ")
	fmt.Fprintf(w, "| --- |%s\n", strings.Repeat(" --- |", len(t.variants)))
	for _, r := range t.rows() {
		vals := make([]string, len(t.variants))
		for i, v := range t.variants {
			vals[i] = t.text(r.fig, t.columns[v])
		}
		fmt.Fprintf(w, "| %s | %s |\n", r.label, strings.Join(vals, " | "))
	}
	fmt.Fprintln(w)
	t.writeNotes(w)
}

// writeNotes writes the lines below a table: what its marks mean, the
// load, the malloc variables, the versions and the environment.
func (t *table) writeNotes(w io.Writer) {
	t.writeDuplicates(w)
	if t.poolsFewer() {
		fmt.Fprintf(w, "†: pools fewer warm runs than %s (see \"Warm open runs pooled\"); rerun the same command to redo failed runs.\n", t.runsAsked())
	}
	if len(t.failures) > 0 {
		fmt.Fprintf(w, "Failed and not redone: %s.\n", strings.Join(t.failures, "; "))
	}
	if s := t.spreadNote(); s != "" {
		fmt.Fprintln(w, s)
	}
	if s := t.skippedHoldsNote(); s != "" {
		fmt.Fprintln(w, s)
	}
	if s := t.oomNote(); s != "" {
		fmt.Fprintln(w, s)
	}
	malloc, lean, vectors := t.notApplicable()
	if malloc != "" {
		fmt.Fprintf(w, "n/a: the setting %s changes the C allocator (malloc) only, and %s do not allocate with it (pure Go).\n", t.setting, malloc)
	}
	if lean != "" {
		fmt.Fprintf(w, "n/a: the lean setting has no engine option %s.\n", lean)
	}
	if vectors != "" {
		fmt.Fprintf(w, "n/a: no knn search %s.\n", vectors)
	}
	if len(t.queries) > 0 {
		fmt.Fprintf(w, "Open, query, close spans the queries %s, in that order; each query's row times it alone.\n", job.JoinNames(t.queries, ", "))
	}
	if t.turned {
		fmt.Fprintln(w, "Turn rows: one agent turn per store and run (open, the 20 newest notes, one note appended in its own transaction, close), after the space phase.")
	}
	if len(t.loud) > 0 {
		fmt.Fprintf(w, "The load rose to --max-load or above during: %s.\n", strings.Join(t.loud, ", "))
	}
	if vars := t.mallocVars(); vars != "" {
		fmt.Fprintf(w, "The workers ran with %s from manydb's environment.\n", vars)
	}
	t.writeRenamed(w)
	fmt.Fprintf(w, "Versions: %s.\n", t.versions())
	t.writeEngineOptions(w)
	t.writeSessions(w)
}

// duplicates warns of each cell of the table that has several records,
// column by column.
func (t *table) duplicates() []duplicate {
	var out []duplicate
	for _, v := range t.variants {
		out = append(out, t.columns[v].recs.duplicates()...)
	}
	return out
}

// writeDuplicates writes the table's warnings of duplicate records.
func (t *table) writeDuplicates(w io.Writer) {
	for _, d := range t.duplicates() {
		fmt.Fprintf(w, "Warning: %v (a results file edited or joined by hand?).\n", d)
	}
}

// writeRenamed says which columns were recorded under an older id.
func (t *table) writeRenamed(w io.Writer) {
	for _, rv := range t.renamed {
		fmt.Fprintln(w, rv.note())
	}
}

// writeEnv prints the environment line of one env record.
func writeEnv(w io.Writer, env *results.Record, dataRoot bool) {
	if env == nil {
		return
	}
	fmt.Fprintf(w, "Environment: %s.\n", envText(env, dataRoot))
}

// shapeOf names what two studies on two machines must share to share a
// table: the workload, the number of stores and of stores held, and
// whether they are serve studies.
func shapeOf(r, env *results.Record) string {
	hold, serve := 0, false
	if env != nil && env.Config != nil {
		hold, serve = env.Config.Hold, env.Config.Serve != nil
	}
	return fmt.Sprintf("%s/%d/%d/%d/%d/%t", r.Workload.Name, r.Workload.Objects, r.Workload.TextLen, r.Stores, hold, serve)
}

// title names the table: "Study S, setting X", or with several studies
// "Studies S1, S2, setting X".
func (t *table) title() string {
	if len(t.studies) > 1 {
		return fmt.Sprintf("Studies %s, setting %s", strings.Join(t.studies, ", "), t.setting)
	}
	return fmt.Sprintf("Study %s, setting %s", t.study, t.setting)
}

// mallocVars lists the glibc malloc variables the table's workers saw that
// their setting did not set (passed on from the user's environment); the
// record's other process entries (engine_thread, yield_every, thp_enabled)
// are not variables.
func (t *table) mallocVars() string {
	own := map[string]bool{}
	if set, ok := settings.Lookup(t.setting); ok {
		for _, kv := range set.Env {
			name, _, _ := strings.Cut(kv, "=")
			own[name] = true
		}
	}
	seen := map[string]bool{}
	var vars []string
	for _, v := range t.variants {
		for _, r := range t.columns[v].all {
			for name, val := range r.Process {
				if !slices.Contains(results.MallocVars(), name) || own[name] || seen[name+"="+val] {
					continue
				}
				seen[name+"="+val] = true
				vars = append(vars, name+"="+val)
			}
		}
	}
	sort.Strings(vars)
	return strings.Join(vars, ", ")
}

// poolsFewer tells whether a column with open figures pools fewer runs than
// the study asked for.
func (t *table) poolsFewer() bool {
	for _, c := range t.columns {
		if n := len(c.opens()); n > 0 && n < c.runs {
			return true
		}
	}
	return false
}

// runsAsked says how many warm runs the table's studies asked for: "the
// study's 5", or "its study asked for" when they differ.
func (t *table) runsAsked() string {
	for _, c := range t.columns {
		if len(c.opens()) > 0 && c.runs != t.runs {
			return "its study asked for"
		}
	}
	return fmt.Sprintf("the study's %d", t.runs)
}

// notApplicable lists the table's n/a columns that a malloc setting does
// not apply to (pure-Go engines), and says why lean does not apply to the
// others: the catalog's reason (engine.Family.NoLean), its variants
// grouped, else the record's; and, with embeddings, why a variant keeps
// none (engine.Family.NoVectors).
func (t *table) notApplicable() (malloc, lean, vectors string) {
	set, _ := settings.Lookup(t.setting)
	var na []string
	var whys, vecWhys []string
	byWhy, byVecWhy := map[string][]string{}, map[string][]string{}
	for _, v := range t.variants {
		c := t.columns[v]
		if !c.na {
			continue
		}
		fam, ok := engine.Lookup(c.variant)
		if why := fam.NoVectors[c.variant]; t.dims > 0 && why != "" {
			if byVecWhy[why] == nil {
				vecWhys = append(vecWhys, why)
			}
			byVecWhy[why] = append(byVecWhy[why], v)
			continue
		}
		if !set.Lean || (set.CgoOnly && (!ok || !fam.Cgo)) {
			na = append(na, v)
			continue
		}
		why := fam.NoLean[c.variant]
		if why == "" {
			why = c.naWhy
		}
		if byWhy[why] == nil {
			whys = append(whys, why)
		}
		byWhy[why] = append(byWhy[why], v)
	}
	return strings.Join(na, ", "), forEach(whys, byWhy), forEach(vecWhys, byVecWhy)
}

// forEach writes each reason with the variants it is given for: "for a,
// b: why; for c: other".
func forEach(whys []string, byWhy map[string][]string) string {
	var parts []string
	for _, why := range whys {
		parts = append(parts, fmt.Sprintf("for %s: %s", strings.Join(byWhy[why], ", "), why))
	}
	return strings.Join(parts, "; ")
}

// writeEngineOptions writes the line of engine options the columns'
// records name (the lean setting's), if any does, and with embeddings the
// line of each column's knn search.
func (t *table) writeEngineOptions(w io.Writer) {
	if opts := t.engineOptions(); opts != "" {
		fmt.Fprintf(w, "Engine options (docs/engines.md): %s.\n", opts)
	}
	if s := t.vectorSearches(); s != "" {
		fmt.Fprintf(w, "With embeddings a turn is open, knn, recent, append, close, and each held store answered one knn before the memory snapshot. knn search (docs/engines.md): %s.\n", s)
	}
}

// vectorSearches names each column's knn search, "" without embeddings.
func (t *table) vectorSearches() string {
	var parts []string
	for _, v := range t.variants {
		if c := t.columns[v]; c.search != "" {
			parts = append(parts, v+": "+c.search)
		}
	}
	return strings.Join(parts, "; ")
}

// engineOptions lists the engine options each column's records name (the
// lean setting's), "" when none does.
func (t *table) engineOptions() string {
	var parts []string
	for _, v := range t.variants {
		c := t.columns[v]
		if len(c.options) == 0 {
			continue
		}
		var opts []string
		for _, k := range slices.Sorted(maps.Keys(c.options)) {
			opts = append(opts, k+" "+strings.Join(c.options[k], " / "))
		}
		parts = append(parts, v+": "+strings.Join(opts, ", "))
	}
	return strings.Join(parts, "; ")
}

// versions lists each column's engine library versions (not its Go
// module versions, which the records keep); a library whose records name
// more than one version lists them all: "sqlite 3.54.1 / 3.55.0".
func (t *table) versions() string {
	var parts []string
	for _, v := range t.variants {
		c := t.columns[v]
		if c.na {
			continue
		}
		joined := map[string]string{}
		for k, vals := range c.version {
			joined[k] = strings.Join(vals, " / ")
		}
		libs := libraries(joined)
		if len(libs) == 0 {
			libs = []string{"unknown"}
		}
		parts = append(parts, v+": "+strings.Join(libs, ", "))
	}
	return strings.Join(parts, "; ")
}

func gib(kb string) string {
	var n float64
	if _, err := fmt.Sscan(kb, &n); err != nil {
		return "?"
	}
	return fmt.Sprintf("%.0f", n/(1<<20))
}

// millis formats milliseconds as the reference does: "0.302 ms".
func millis(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.*f ms", decimals, v)
}

// thousands rounds v to an integer and groups its digits: "2,538".
func thousands(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	s := fmt.Sprintf("%.0f", math.Abs(v))
	var b strings.Builder
	if v < 0 && s != "0" {
		b.WriteByte('-')
	}
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

// skippedHoldsNote says which hold counts were skipped before they
// started, in which column, and why (their records say): "" when none.
func (t *table) skippedHoldsNote() string {
	var parts []string
	for _, v := range t.variants {
		c := t.columns[v]
		for _, h := range t.holds {
			if why, ok := c.skippedHolds[h]; ok {
				parts = append(parts, fmt.Sprintf("%s at %s open: %s", v, thousands(float64(h)), why))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Holds skipped before they started: " + strings.Join(parts, "; ") + "."
}
