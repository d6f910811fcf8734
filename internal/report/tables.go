// Package report turns results records into the reference study's tables:
// one Markdown table per study and setting, one column per variant in the
// order the study ran them, with the reference's rows and number formats.
//
// Every figure is computed from the raw samples in the records (see
// internal/stats), so a table can be printed again from an old results file.
package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"manydb/internal/results"
	"manydb/internal/settings"
	"manydb/internal/stats"
)

// cell is the records of one variant in one study and setting.
type cell struct {
	create     *results.Record
	opens      []*results.Record            // warm open runs
	cached     map[string][]*results.Record // cold and drop open runs, by cache mode
	turns      []*results.Record
	serves     []*results.Record // serve phases, ok or n/a (skipped), by run
	hold       *results.Record
	space      *results.Record
	all        []*results.Record // every ok record of the cell
	failed     map[string]bool   // phase → a failed record was seen
	failedRuns map[int]bool      // open runs whose last record failed
	failedTurn map[int]bool      // turn runs whose last record failed
	na         bool              // the setting does not apply to this variant
	version    map[string]string
}

// table is one study and setting.
type table struct {
	study    string
	setting  string
	env      *results.Record
	variants []string
	cells    map[string]*cell
	workload string
	objects  int
	held     int
	runs     int      // warm open runs the study asked for
	turnRuns int      // turn runs the study asked for
	loud     []string // phases during which the load rose above --max-load
	queries  []string // the open runs' queries beyond the default count
	modes    []string // cache modes other than warm, in the order seen
	turned   bool     // some cell has turn runs
	served   bool     // a manydb serve study
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
	writeProfiles(w, profiles, len(tables) > 0)
	return nil
}

func group(recs []results.Record) []*table {
	var order []*table
	byKey := map[string]*table{}
	envs := map[string]*results.Record{}
	for i := range recs {
		r := &recs[i]
		switch r.Phase {
		case results.PhaseEnv:
			envs[r.Study] = r
			continue
		case results.PhaseEnd, results.PhaseProfile: // profiles: profile.go
			continue
		}
		key := r.Study + "\x00" + r.Setting
		t := byKey[key]
		if t == nil {
			t = &table{study: r.Study, setting: r.Setting, cells: map[string]*cell{}}
			byKey[key] = t
			order = append(order, t)
		}
		c := t.cells[r.Variant]
		if c == nil {
			c = &cell{failed: map[string]bool{}, failedRuns: map[int]bool{}, version: map[string]string{}, cached: map[string][]*results.Record{}, failedTurn: map[int]bool{}}
			t.cells[r.Variant] = c
			t.variants = append(t.variants, r.Variant)
		}
		t.workload = fmt.Sprintf("%s: %s notes of %d characters per store", r.Workload.Name, thousands(float64(r.Workload.Objects)), r.Workload.TextLen)
		t.objects = r.Workload.Objects
		if r.Phase == results.PhaseServe && r.Status != results.StatusFailed {
			t.served = true
			c.serves = slices.DeleteFunc(c.serves, func(o *results.Record) bool { return o.Run == r.Run })
			c.serves = append(c.serves, r)
			continue
		}
		if r.Status == results.StatusNotApplicable {
			c.na = true
			continue
		}
		if r.Status != results.StatusOK {
			c.failed[r.Phase] = true
			if r.Phase == results.PhaseTurn {
				c.failedTurn[r.Run] = true
				t.turned = true
			}
			if r.Phase == results.PhaseOpen && r.Cache == "" {
				c.failedRuns[r.Run] = true
			}
			continue
		}
		if r.MaxLoad > 0 && len(r.LoadDuring) > 0 && stats.Max(r.LoadDuring) >= r.MaxLoad {
			what := r.Variant + " " + r.Phase
			if r.Run > 0 {
				what += fmt.Sprintf(" run %d", r.Run)
			}
			t.loud = append(t.loud, fmt.Sprintf("%s (max %.2f)", what, stats.Max(r.LoadDuring)))
		}
		delete(c.failed, r.Phase)
		c.all = append(c.all, r)
		for k, v := range r.Versions {
			c.version[k] = v
		}
		switch r.Phase {
		case results.PhaseCreate:
			c.create = r
		case results.PhaseOpen:
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
		case results.PhaseHold:
			c.hold = r
			t.held = r.Hold.Held
		case results.PhaseSpace:
			c.space = r
		case results.PhaseTurn:
			t.turned = true
			delete(c.failedTurn, r.Run)
			c.turns = slices.DeleteFunc(c.turns, func(o *results.Record) bool { return o.Run == r.Run })
			c.turns = append(c.turns, r)
		}
	}
	for _, t := range order {
		t.env = envs[t.study]
		if t.held == 0 && t.env != nil && t.env.Config != nil {
			t.held = t.env.Config.Hold // no hold record: the hold asked for
		}
		if t.env != nil && t.env.Config != nil {
			t.runs = t.env.Config.Runs
			t.turnRuns = t.env.Config.Turns
		}
		for _, c := range t.cells { // no env record: the most runs seen
			for _, r := range c.opens {
				t.runs = max(t.runs, r.Run)
			}
			for r := range c.failedRuns {
				t.runs = max(t.runs, r)
			}
			for _, r := range c.turns {
				t.turnRuns = max(t.turnRuns, r.Run)
			}
			for r := range c.failedTurn {
				t.turnRuns = max(t.turnRuns, r)
			}
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
				return missing(c, results.PhaseOpen)
			}
			xs := pooled(c, pick)
			if len(xs) == 0 {
				return "–" // e.g. a count row when --queries left count out
			}
			v := millis(stat(xs), 3) + spread(perRun(c.opens, pick, stat), 3)
			if len(c.opens) < t.runs {
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
				return missing(c, results.PhaseCreate)
			}
			return millis(stats.Median(c.create.CreateMs), 2)
		}},
		{"Stores per second", func(c *cell) string {
			if c.create == nil || c.create.WallS <= 0 {
				return missing(c, results.PhaseCreate)
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
				return missing(c, results.PhaseHold)
			}
			return thousands(c.hold.Hold.RssKB) + " KB"
		}},
		{"same, anonymous (process' own memory)", func(c *cell) string {
			if c.hold == nil {
				return missing(c, results.PhaseHold)
			}
			return thousands(c.hold.Hold.AnonKB) + " KB"
		}},
		{"Memory charged to a container per open store", t.container(func(c *results.Container) float64 { return float64(c.BytesAfter - c.BytesBefore) })},
		{"same, page cache", t.container(func(c *results.Container) float64 { return float64(c.FileAfter - c.FileBefore) })},
		{"same, anonymous", t.container(func(c *results.Container) float64 { return float64(c.AnonAfter - c.AnonBefore) })},
		{"Load at start of the warm open runs (max)", func(c *cell) string {
			if len(c.opens) == 0 {
				return missing(c, results.PhaseOpen)
			}
			var loads []float64
			for _, r := range c.opens {
				loads = append(loads, r.Load1)
			}
			return fmt.Sprintf("%.2f", stats.Max(loads))
		}},
		{"Space per store, files", func(c *cell) string {
			if c.space == nil {
				return missing(c, results.PhaseSpace)
			}
			return thousands(stats.Median(stats.Ints(c.space.Bytes))/1024) + " KB"
		}},
		{"Threads, open files, goroutines per open store", func(c *cell) string {
			if c.hold == nil {
				return missing(c, results.PhaseHold)
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
			return missing(c, results.PhaseHold)
		case c.hold.Hold.Container == nil:
			return "n/a (needs a memory cgroup)"
		}
		return thousands(delta(c.hold.Hold.Container)/1024/float64(c.hold.Hold.Held)) + " KB"
	}
}

// runsPooled says how many warm runs a cell's open figures pool, of the
// runs the study asked for, and which are missing or failed.
func (t *table) runsPooled(c *cell) string { return pooledRuns(c, c.opens, c.failedRuns, t.runs) }

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
func missing(c *cell, phase string) string {
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
	fmt.Fprintf(w, "## Study %s, setting %s\n\n", t.study, t.setting)
	fmt.Fprintf(w, "Workload %s. Open figures pool the warm runs counted in the row \"Warm open runs pooled\" (each run: all stores in random order).\n\n", t.workload)
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
		fmt.Fprintf(w, "†: pools fewer warm runs than the study's %d (see \"Warm open runs pooled\"); rerun the same command to redo failed runs.\n", t.runs)
	}
	if s := t.spreadNote(); s != "" {
		fmt.Fprintln(w, s)
	}
	if na := t.notApplicable(); na != "" {
		fmt.Fprintf(w, "n/a: the setting %s changes the C allocator (malloc) only, and %s do not allocate with it (pure Go).\n", t.setting, na)
	}
	if len(t.queries) > 0 {
		fmt.Fprintf(w, "Open, query, close spans the queries %s, in that order; each query's row times it alone.\n", strings.Join(t.queries, ", "))
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
	writeEnv(w, t.env, true)
}

// writeEnv prints the environment line of a table.
func writeEnv(w io.Writer, env *results.Record, dataRoot bool) {
	if env == nil {
		return
	}
	e := env.Env
	root := ""
	if dataRoot {
		root = ", data root on " + e["root_fs"]
	}
	fmt.Fprintf(w, "Environment: %s, Linux %s, %s cores (%s), %s GiB%s, THP %s, %s, %s, manydb %s.\n",
		e["distro"], e["kernel"], e["cores"], e["cpu"], gib(e["memory_kb"]), root, e["thp"], e["glibc"], e["go"], e["manydb"])
}

// mallocVars lists the glibc malloc variables the table's workers saw that
// their setting did not set (passed on from the user's environment).
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
				if name == "thp_enabled" || own[name] || seen[name+"="+val] {
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
		if len(c.opens) > 0 && len(c.opens) < t.runs {
			return true
		}
	}
	return false
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

// versions lists each variant's engine library versions (not its Go
// module versions, which the records keep).
func (t *table) versions() string {
	var parts []string
	for _, v := range t.variants {
		if t.cells[v].na {
			continue
		}
		var libs []string
		for k, val := range t.cells[v].version {
			if strings.Contains(k, "/") || k == "go" || strings.HasSuffix(k, "_source_id") {
				continue
			}
			libs = append(libs, k+" "+val)
		}
		sort.Strings(libs)
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
