// Package report turns results records into the reference study's tables:
// one Markdown table per study and setting, one column per variant in the
// order the study ran them, with the reference's rows and number formats.
//
// Every figure is computed from the raw samples in the records (see
// internal/stats), so a table can be printed again from an old results file.
package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/settings"
	"manydb/internal/stats"
)

// cell is the records of one variant in one study and setting.
type cell struct {
	create     *results.Record
	opens      []*results.Record                   // warm open runs
	cached     map[job.CacheMode][]*results.Record // cold and drop open runs, by cache mode
	turns      []*results.Record
	serves     []*results.Record // serve phases, ok or n/a (skipped), by run
	hold       *results.Record
	space      *results.Record
	all        []*results.Record   // every ok record of the cell
	failed     map[job.Phase]bool  // phase → a failed record was seen
	failedRuns map[int]bool        // open runs whose last record failed
	failedTurn map[int]bool        // turn runs whose last record failed
	na         bool                // the setting does not apply to this variant
	storesFrom string              // serve: the study whose kept stores were reused
	version    map[string][]string // library → the versions its records name, in order
	variant    string              // the variant of the cell's records
	machine    string              // its machine's label when the table has several, else ""
	study      string              // the study of the cell's records
	runs       int                 // warm open runs its study asked for
	turnRuns   int                 // turn runs its study asked for
}

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
	cells    map[string]*cell
	workload string
	objects  int
	held     int
	runs     int             // warm open runs the studies asked for (the most)
	turnRuns int             // turn runs the studies asked for (the most)
	loud     []string        // phases during which the load rose above --max-load
	queries  []job.Query     // the open runs' queries beyond the default count
	modes    []job.CacheMode // cache modes other than warm, in the order seen
	turned   bool            // some cell has turn runs
	served   bool            // a manydb serve study
	failures []string        // "column phase run N: error" of each failed phase not redone
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
	if r.Run > 0 {
		what += fmt.Sprintf(" run %d", r.Run)
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

// Tables writes one Markdown table per study and setting found in recs, in
// the order they first appear. When a phase appears more than once (a
// rerun), its last record counts.
func Tables(w io.Writer, recs []results.Record) error {
	tables := group(recs)
	profiles := groupProfiles(recs)
	if len(tables) == 0 && len(profiles) == 0 {
		return fmt.Errorf("no study records found")
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

// group sorts recs into tables: one per study and setting, or, when the
// records come from several machines, one per setting and study shape
// with a column per variant and machine. Each record belongs to the
// session of the last env record of its study before it (its study's
// first env record when none is before it).
func group(recs []results.Record) []*table {
	var order []*table
	byKey := map[string]*table{}
	first := map[string]*results.Record{} // study → its first env record
	last := map[string]*results.Record{}  // study → its last env record
	for i := range recs {
		if r := &recs[i]; r.Phase == job.PhaseEnv {
			if first[r.Study] == nil {
				first[r.Study] = r
			}
			last[r.Study] = r
		}
	}
	ms := findMachines(recs)
	current := map[string]*results.Record{} // study → the env record of its session
	studiesOf := map[string][]string{}      // machine and shape → studies, in order
	for i := range recs {
		r := &recs[i]
		switch r.Phase {
		case job.PhaseEnv:
			current[r.Study] = r
			continue
		case job.PhaseEnd, job.PhaseProfile: // profiles: profile.go
			continue
		}
		env := current[r.Study]
		if env == nil {
			env = first[r.Study]
		}
		key, col, machine := r.Study+"\x00"+r.Setting, r.Variant, ""
		if ms.several() {
			machine = ms.label[machineKey(env)]
			shape := shapeOf(r, last[r.Study])
			sk := machine + "\x00" + shape
			if !slices.Contains(studiesOf[sk], r.Study) {
				studiesOf[sk] = append(studiesOf[sk], r.Study)
			}
			// the n-th study of this shape on each machine share a table
			key = fmt.Sprintf("%s\x00%d\x00%s", shape, slices.Index(studiesOf[sk], r.Study), r.Setting)
			col = r.Variant + " @ " + machine
		}
		t := byKey[key]
		if t == nil {
			t = &table{study: r.Study, setting: r.Setting, cells: map[string]*cell{}, machines: ms.several()}
			byKey[key] = t
			order = append(order, t)
		}
		if !slices.Contains(t.studies, r.Study) {
			t.studies = append(t.studies, r.Study)
		}
		t.addSession(env, machine)
		c := t.cells[col]
		if c == nil {
			c = &cell{failed: map[job.Phase]bool{}, failedRuns: map[int]bool{}, version: map[string][]string{}, cached: map[job.CacheMode][]*results.Record{}, failedTurn: map[int]bool{}, variant: r.Variant, machine: machine, study: r.Study}
			t.cells[col] = c
			t.variants = append(t.variants, col)
		}
		// a failure stays listed until a later record of the same phase and run
		what := failedWhat(col, r)
		t.failures = slices.DeleteFunc(t.failures, func(f string) bool { return strings.HasPrefix(f, what+": ") })
		if r.Status == results.StatusFailed {
			t.failures = append(t.failures, what+": "+failedWhy(r))
		}
		t.workload = fmt.Sprintf("%s: %s notes of %d characters per store", r.Workload.Name, thousands(float64(r.Workload.Objects)), r.Workload.TextLen)
		t.objects = r.Workload.Objects
		if r.Phase == job.PhaseServe && r.Status != results.StatusFailed {
			t.served = true
			c.serves = slices.DeleteFunc(c.serves, func(o *results.Record) bool { return o.Run == r.Run })
			c.serves = append(c.serves, r)
			continue
		}
		if r.StoresFrom != "" && r.Status == results.StatusNotApplicable {
			c.storesFrom = r.StoresFrom
			continue
		}
		if r.Status == results.StatusNotApplicable {
			c.na = true
			continue
		}
		if r.Status != results.StatusOK {
			c.failed[r.Phase] = true
			if r.Phase == job.PhaseTurn {
				c.failedTurn[r.Run] = true
				t.turned = true
			}
			if r.Phase == job.PhaseOpen && r.Cache == "" {
				c.failedRuns[r.Run] = true
			}
			continue
		}
		if r.MaxLoad > 0 && len(r.LoadDuring) > 0 && stats.Max(r.LoadDuring) >= r.MaxLoad {
			what := col + " " + string(r.Phase)
			if r.Run > 0 {
				what += fmt.Sprintf(" run %d", r.Run)
			}
			t.loud = append(t.loud, fmt.Sprintf("%s (max %.2f)", what, stats.Max(r.LoadDuring)))
		}
		delete(c.failed, r.Phase)
		c.all = append(c.all, r)
		for k, v := range r.Versions {
			if !slices.Contains(c.version[k], v) {
				c.version[k] = append(c.version[k], v)
			}
		}
		switch r.Phase {
		case job.PhaseCreate:
			c.create = r
		case job.PhaseOpen:
			if len(r.Queries) > 0 && t.queries == nil {
				t.queries = r.Queries
			}
			if r.Cache != "" {
				if !slices.Contains(t.modes, r.Cache) {
					t.modes = append(t.modes, r.Cache)
				}
				c.cached[r.Cache] = slices.DeleteFunc(c.cached[r.Cache], func(o *results.Record) bool { return o.Run == r.Run })
				c.cached[r.Cache] = append(c.cached[r.Cache], r)
				break
			}
			delete(c.failedRuns, r.Run)
			// a later record of the same run replaces an earlier one
			c.opens = slices.DeleteFunc(c.opens, func(o *results.Record) bool { return o.Run == r.Run })
			c.opens = append(c.opens, r)
		case job.PhaseHold:
			c.hold = r
			t.held = r.Hold.Held
		case job.PhaseSpace:
			c.space = r
		case job.PhaseTurn:
			t.turned = true
			delete(c.failedTurn, r.Run)
			c.turns = slices.DeleteFunc(c.turns, func(o *results.Record) bool { return o.Run == r.Run })
			c.turns = append(c.turns, r)
		}
	}
	for _, t := range order {
		if t.machines {
			// each variant's columns side by side, machines in the order seen
			var vs []string
			for _, col := range t.variants {
				if v := t.cells[col].variant; !slices.Contains(vs, v) {
					vs = append(vs, v)
				}
			}
			slices.SortStableFunc(t.variants, func(a, b string) int {
				return cmp.Compare(slices.Index(vs, t.cells[a].variant), slices.Index(vs, t.cells[b].variant))
			})
		}
		// the runs each study asked for (its last session's configuration,
		// which may have added turns), or without an env record the most seen
		runs, turnRuns := map[string]int{}, map[string]int{}
		for _, c := range t.cells {
			if env := last[c.study]; env != nil && env.Config != nil {
				runs[c.study], turnRuns[c.study] = env.Config.Runs, env.Config.Turns
				if t.held == 0 {
					t.held = env.Config.Hold // no hold record: the hold asked for
				}
			}
		}
		for _, c := range t.cells {
			for _, r := range c.opens {
				runs[c.study] = max(runs[c.study], r.Run)
			}
			for r := range c.failedRuns {
				runs[c.study] = max(runs[c.study], r)
			}
			for _, r := range c.turns {
				turnRuns[c.study] = max(turnRuns[c.study], r.Run)
			}
			for r := range c.failedTurn {
				turnRuns[c.study] = max(turnRuns[c.study], r)
			}
		}
		for _, c := range t.cells {
			c.runs, c.turnRuns = runs[c.study], turnRuns[c.study]
			t.runs, t.turnRuns = max(t.runs, c.runs), max(t.turnRuns, c.turnRuns)
		}
	}
	return order
}

// row is one line of a table: a label and how to get its figure from a cell.
type row struct {
	label string
	value func(c *cell) string
}

func (t *table) rows() []row {
	pooled := func(c *cell, pick func(r *results.Record) []float64) []float64 {
		var xs []float64
		for _, r := range c.opens {
			xs = append(xs, pick(r)...)
		}
		return xs
	}
	openStat := func(pick func(r *results.Record) []float64, stat func([]float64) float64) func(c *cell) string {
		return func(c *cell) string {
			if len(c.opens) == 0 {
				return missing(c, job.PhaseOpen)
			}
			xs := pooled(c, pick)
			if len(xs) == 0 {
				return "–" // e.g. a count row when --queries left count out
			}
			v := millis(stat(xs), 3) + spread(perRun(c.opens, pick, stat), 3)
			if len(c.opens) < c.runs {
				v += " †"
			}
			return v
		}
	}
	open := func(r *results.Record) []float64 { return r.OpenMs }
	query := func(r *results.Record) []float64 {
		if r.QueriesMs != nil {
			return r.QueriesMs["count"] // nil when the run did not count
		}
		return r.QueryMs
	}
	closeMs := func(r *results.Record) []float64 { return r.CloseMs }
	total := func(r *results.Record) []float64 { return r.TotalMs }
	rows := []row{
		{fmt.Sprintf("Create, write %s objects, close (median)", thousands(float64(t.objects))), func(c *cell) string {
			if c.create == nil {
				return missing(c, job.PhaseCreate)
			}
			return millis(stats.Median(c.create.CreateMs), 2)
		}},
		{"Stores per second", func(c *cell) string {
			switch {
			case c.create != nil && c.create.StoresFrom != "":
				return "n/a (made with more stores)"
			case c.create == nil || c.create.WallS <= 0:
				return missing(c, job.PhaseCreate)
			}
			return thousands(float64(len(c.create.CreateMs)) / c.create.WallS)
		}},
		{"Warm open runs pooled", t.runsPooled},
		{"Open (median)", openStat(open, stats.Median)},
		{"Count query (median)", openStat(query, stats.Median)},
		{"Open, query, close (median)", openStat(total, stats.Median)},
		{"same, p99", openStat(total, stats.P99)},
		{"Close (median)", openStat(closeMs, stats.Median)},
		{fmt.Sprintf("Memory per open store (%s open), resident", thousands(float64(t.held))), func(c *cell) string {
			if c.hold == nil {
				return missing(c, job.PhaseHold)
			}
			return thousands(c.hold.Hold.RssKB) + " KB"
		}},
		{"same, anonymous (process' own memory)", func(c *cell) string {
			if c.hold == nil {
				return missing(c, job.PhaseHold)
			}
			return thousands(c.hold.Hold.AnonKB) + " KB"
		}},
		{"Memory charged to a container per open store", t.container(func(c *results.Container) float64 { return float64(c.BytesAfter - c.BytesBefore) })},
		{"same, page cache", t.container(func(c *results.Container) float64 { return float64(c.FileAfter - c.FileBefore) })},
		{"same, anonymous", t.container(func(c *results.Container) float64 { return float64(c.AnonAfter - c.AnonBefore) })},
		{"Load at start of the warm open runs (max)", func(c *cell) string {
			if len(c.opens) == 0 {
				return missing(c, job.PhaseOpen)
			}
			var loads []float64
			for _, r := range c.opens {
				loads = append(loads, r.Load1)
			}
			return fmt.Sprintf("%.2f", stats.Max(loads))
		}},
		{"Space per store, files", func(c *cell) string {
			if c.space == nil {
				return missing(c, job.PhaseSpace)
			}
			return thousands(stats.Median(stats.Ints(c.space.Bytes))/1024) + " KB"
		}},
		{"Threads, open files, goroutines per open store", func(c *cell) string {
			if c.hold == nil {
				return missing(c, job.PhaseHold)
			}
			h := c.hold.Hold
			per := func(before, after int) string { return fmt.Sprintf("%.1f", float64(after-before)/float64(h.Held)) }
			return per(h.ThreadsBefore, h.Threads) + ", " + per(h.FDsBefore, h.FDs) + ", " + per(h.GoroutinesBefore, h.Goroutines)
		}},
	}
	return slices.Insert(rows, 8, t.extraRows()...)
}

// container returns the figure of a memory cgroup's charge per held store
// that delta picks, in KB.
func (t *table) container(delta func(c *results.Container) float64) func(c *cell) string {
	return func(c *cell) string {
		switch {
		case c.hold == nil:
			return missing(c, job.PhaseHold)
		case c.hold.Hold.Container == nil:
			return "n/a (needs a memory cgroup)"
		}
		return thousands(delta(c.hold.Hold.Container)/1024/float64(c.hold.Hold.Held)) + " KB"
	}
}

// runsPooled says how many warm runs a cell's open figures pool, of the
// runs the study asked for, and which are missing or failed.
func (t *table) runsPooled(c *cell) string { return pooledRuns(c, c.opens, c.failedRuns, c.runs) }

// pooledRuns says how many of want runs recs hold, and which failed or are
// missing.
func pooledRuns(c *cell, recs []*results.Record, failedRuns map[int]bool, want int) string {
	if c.na {
		return "n/a"
	}
	have := map[int]bool{}
	for _, r := range recs {
		have[r.Run] = true
	}
	var failed, missing []string
	for r := 1; r <= want; r++ {
		switch {
		case have[r]:
		case failedRuns[r]:
			failed = append(failed, fmt.Sprint(r))
		default:
			missing = append(missing, fmt.Sprint(r))
		}
	}
	s := fmt.Sprintf("%d of %d", len(recs), want)
	if len(failed) > 0 {
		s += "; failed: run " + strings.Join(failed, ", ")
	}
	if len(missing) > 0 {
		s += "; missing: run " + strings.Join(missing, ", ")
	}
	return s
}

// missing is what a table shows for a figure without a record.
func missing(c *cell, phase job.Phase) string {
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
			vals[i] = r.value(t.cells[v])
		}
		fmt.Fprintf(w, "| %s | %s |\n", r.label, strings.Join(vals, " | "))
	}
	fmt.Fprintln(w)
	t.writeNotes(w)
}

// writeNotes writes the lines below a table: what its marks mean, the
// load, the malloc variables, the versions and the environment.
func (t *table) writeNotes(w io.Writer) {
	if t.poolsFewer() {
		fmt.Fprintf(w, "†: pools fewer warm runs than %s (see \"Warm open runs pooled\"); rerun the same command to redo failed runs.\n", t.runsAsked())
	}
	if len(t.failures) > 0 {
		fmt.Fprintf(w, "Failed and not redone: %s.\n", strings.Join(t.failures, "; "))
	}
	if s := t.spreadNote(); s != "" {
		fmt.Fprintln(w, s)
	}
	if na := t.notApplicable(); na != "" {
		fmt.Fprintf(w, "n/a: the setting %s changes the C allocator (malloc) only, and %s do not allocate with it (pure Go).\n", t.setting, na)
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
	fmt.Fprintf(w, "Versions: %s.\n", t.versions())
	t.writeSessions(w)
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
		for _, r := range t.cells[v].all {
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

// poolsFewer tells whether a cell with open figures pools fewer runs than
// the study asked for.
func (t *table) poolsFewer() bool {
	for _, c := range t.cells {
		if len(c.opens) > 0 && len(c.opens) < c.runs {
			return true
		}
	}
	return false
}

// runsAsked says how many warm runs the table's studies asked for: "the
// study's 5", or "its study asked for" when they differ.
func (t *table) runsAsked() string {
	for _, c := range t.cells {
		if len(c.opens) > 0 && c.runs != t.runs {
			return "its study asked for"
		}
	}
	return fmt.Sprintf("the study's %d", t.runs)
}

func (t *table) notApplicable() string {
	var na []string
	for _, v := range t.variants {
		if t.cells[v].na {
			na = append(na, v)
		}
	}
	return strings.Join(na, ", ")
}

// versions lists each column's engine library versions (not its Go
// module versions, which the records keep); a library whose records name
// more than one version lists them all: "sqlite 3.54.1 / 3.55.0".
func (t *table) versions() string {
	var parts []string
	for _, v := range t.variants {
		c := t.cells[v]
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
