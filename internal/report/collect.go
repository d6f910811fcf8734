package report

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// latest keeps the last record of each key, in the order the keys first
// appear: a later record of a key replaces the earlier one. manydb records
// each cell once (a failed phase redone adds an ok record after the failed
// one, and only ok records are put here), so a key put twice is a file
// edited or joined by hand: duplicates says which.
type latest[K comparable] struct {
	keys  []K
	byKey map[K]*results.Record
	count map[K]int // records put of each key
}

// put makes r the record of key k.
func (l *latest[K]) put(k K, r *results.Record) {
	if l.byKey == nil {
		l.byKey, l.count = map[K]*results.Record{}, map[K]int{}
	}
	if _, seen := l.byKey[k]; !seen {
		l.keys = append(l.keys, k)
	}
	l.byKey[k] = r
	l.count[k]++
}

// records returns the records of the keys keep keeps, in key order.
func (l *latest[K]) records(keep func(k K) bool) []*results.Record {
	var recs []*results.Record
	for _, k := range l.keys {
		if keep(k) {
			recs = append(recs, l.byKey[k])
		}
	}
	return recs
}

// duplicates returns a warning for each key put more than once, in key
// order.
func (l *latest[K]) duplicates() []duplicate {
	var out []duplicate
	for _, k := range l.keys {
		if n := l.count[k]; n > 1 {
			out = append(out, duplicate{used: l.byKey[k], records: n})
		}
	}
	return out
}

// A duplicate is a warning, as a value: one cell (study, variant,
// setting, phase and run) has several records where manydb writes one,
// and the last of them is used.
type duplicate struct {
	used    *results.Record // the last record, the one used
	records int             // how many the cell has
}

func (d duplicate) Error() string {
	r := d.used
	line := "the last one is used"
	switch {
	case r.Line > 0 && r.File != "":
		line = fmt.Sprintf("the last one, %s:%d, is used", r.File, r.Line)
	case r.Line > 0:
		line = fmt.Sprintf("the last one, line %d, is used", r.Line)
	}
	return fmt.Sprintf("study %s, setting %s: %s has %d records, one expected; %s", r.Study, r.Setting, failedWhat(columnName(r), r), d.records, line)
}

// runKey names a repetition of a phase in a column (results.Record.Repeat):
// a phase redone replaces the record of the same phase, cache mode and
// repetition.
type runKey struct {
	phase  job.Phase
	cache  job.CacheMode
	repeat int
}

// column is the records of one column of a table: one variant (on one
// machine) in one study and setting.
type column struct {
	recs       latest[runKey]      // the last ok record of each run (serve: ok or skipped)
	all        []*results.Record   // every ok record of the column
	failed     map[job.Phase]bool  // phase → a failed record was seen
	failedRuns map[int]bool        // open runs whose last record failed
	failedTurn map[int]bool        // turn runs whose last record failed
	na         bool                // the setting does not apply to this variant
	naWhy      string              // why, as its record says
	options    map[string][]string // engine option → the values its records name (lean), in order
	// skippedHolds: hold count → why that hold was skipped before it
	// started (one of several hold counts that would not fit).
	skippedHolds map[int]string
	storesFrom   string                   // serve: the study whose kept stores were reused
	naCache      map[job.CacheMode]string // cache mode → why its open runs are n/a (engine.Family.NoCold)
	version      map[string][]string      // library → the versions its records name, in order
	variant      string                   // the variant of the column's records
	layout       job.Layout               // and their layout
	machine      string                   // its machine's label when the table has several, else ""
	study        string                   // the study of the column's records
	runs         int                      // warm open runs its study asked for
	turnRuns     int                      // turn runs its study asked for
	search       string                   // its knn search, as its records name it (--dims)
}

func newCell(r *results.Record, machine string) *column {
	return &column{failed: map[job.Phase]bool{}, failedRuns: map[int]bool{}, failedTurn: map[int]bool{}, version: map[string][]string{}, skippedHolds: map[int]string{},
		variant: r.Variant, layout: r.Layout, machine: machine, study: r.Study}
}

// records returns the column's last record of each run of a phase and cache
// mode, in the order the runs first appear.
func (c *column) records(phase job.Phase, cache job.CacheMode) []*results.Record {
	return c.recs.records(func(k runKey) bool { return k.phase == phase && k.cache == cache })
}

// last returns the column's last record of a phase of one record per study
// (create, hold, space), nil when it has none.
func (c *column) last(phase job.Phase) *results.Record {
	recs := c.records(phase, "")
	if len(recs) == 0 {
		return nil
	}
	return recs[len(recs)-1]
}

func (c *column) opens() []*results.Record  { return c.records(job.PhaseOpen, "") }
func (c *column) turns() []*results.Record  { return c.records(job.PhaseTurn, "") }
func (c *column) serves() []*results.Record { return c.records(job.PhaseServe, "") }

// studyEnvs are the first and last env record of each study.
type studyEnvs struct{ first, last map[string]*results.Record }

func findStudyEnvs(recs []results.Record) studyEnvs {
	e := studyEnvs{first: map[string]*results.Record{}, last: map[string]*results.Record{}}
	for i := range recs {
		if r := &recs[i]; r.Phase == job.PhaseEnv {
			if e.first[r.Study] == nil {
				e.first[r.Study] = r
			}
			e.last[r.Study] = r
		}
	}
	return e
}

// tableKey names a table: a study and setting, or, with several machines,
// the n-th study of a shape on each machine and a setting.
type tableKey struct {
	study, shape string
	nth          int
	setting      string
}

// shapeOnMachine names the studies of one shape on one machine.
type shapeOnMachine struct{ machine, shape string }

// grouping is the state of group as it reads the records in order.
type grouping struct {
	envs      studyEnvs
	machines  machines
	renamed   map[studyVariant]renamedVariant
	current   map[string]*results.Record // study → the env record of its session
	studiesOf map[shapeOnMachine][]string
	byKey     map[tableKey]*table
	order     []*table
}

// group sorts recs into tables: one per study and setting, or, when the
// records come from several machines, one per setting and study shape
// with a column per variant and machine. Each record belongs to the
// session of the last env record of its study before it (its study's
// first env record when none is before it).
func group(recs []results.Record, renamed map[studyVariant]renamedVariant) []*table {
	g := grouping{envs: findStudyEnvs(recs), machines: findMachines(recs), renamed: renamed, current: map[string]*results.Record{},
		studiesOf: map[shapeOnMachine][]string{}, byKey: map[tableKey]*table{}}
	for i := range recs {
		g.add(&recs[i])
	}
	for _, t := range g.order {
		if t.machines {
			t.sortColumnsByVariant()
		}
		t.askRuns(g.envs.last)
	}
	return g.order
}

// columnName names r's column: its variant, and its layout when that is
// not a store per agent.
func columnName(r *results.Record) string { return r.Layout.Mark(r.Variant, " ") }

// add puts one record in its table and column.
func (g *grouping) add(r *results.Record) {
	switch r.Phase {
	case job.PhaseEnv:
		g.current[r.Study] = r
		return
	case job.PhaseEnd, job.PhaseProfile: // profiles: profile.go
		return
	}
	env := g.current[r.Study]
	if env == nil {
		env = g.envs.first[r.Study]
	}
	t, col, machine := g.place(r, env)
	if !slices.Contains(t.studies, r.Study) {
		t.studies = append(t.studies, r.Study)
	}
	if ren, ok := g.renamed[studyVariant{r.Study, r.Variant}]; ok && !slices.Contains(t.renamed, ren) {
		t.renamed = append(t.renamed, ren)
	}
	t.addSession(env, machine)
	c := t.columns[col]
	if c == nil {
		c = newCell(r, machine)
		t.columns[col] = c
		t.variants = append(t.variants, col)
	}
	t.add(col, c, r)
}

// place finds r's table (making it when new), its column and its
// machine's label ("" with one machine).
func (g *grouping) place(r, env *results.Record) (t *table, col, machine string) {
	key, col := tableKey{study: r.Study, setting: r.Setting}, columnName(r)
	if g.machines.several() {
		machine = g.machines.label[machineKey(env)]
		shape := shapeOf(r, g.envs.last[r.Study])
		sm := shapeOnMachine{machine, shape}
		if !slices.Contains(g.studiesOf[sm], r.Study) {
			g.studiesOf[sm] = append(g.studiesOf[sm], r.Study)
		}
		// the n-th study of this shape on each machine share a table
		key = tableKey{shape: shape, nth: slices.Index(g.studiesOf[sm], r.Study), setting: r.Setting}
		col = columnName(r) + " @ " + machine
	}
	t = g.byKey[key]
	if t == nil {
		t = &table{study: r.Study, setting: r.Setting, columns: map[string]*column{}, machines: g.machines.several()}
		g.byKey[key] = t
		g.order = append(g.order, t)
	}
	return t, col, machine
}

// add collects one record of column col into c and what the
// table says of it.
func (t *table) add(col string, c *column, r *results.Record) {
	t.noteFailure(col, r)
	t.workload = workloadText(r.Workload)
	t.objects = r.Workload.Objects
	if r.Workload.Dims > 0 {
		t.dims = r.Workload.Dims
		t.workload += fmt.Sprintf(", each with an embedding of %d values", r.Workload.Dims) + topicsText(r.Workload)
	}
	if r.VectorSearch != "" && c.search == "" {
		c.search = r.VectorSearch + askedText(r.KNNAsked)
	}
	switch {
	case r.Phase == job.PhaseServe && r.Status != results.StatusFailed:
		t.served = true
		c.recs.put(runKey{r.Phase, r.Cache, r.Repeat()}, r)
	case r.Status == results.StatusNotApplicable && r.Phase == job.PhaseHold && r.HoldStep > 0 && r.Hold != nil:
		// One of several hold counts, skipped as it would not fit: the
		// setting applies to the variant.
		c.skippedHolds[r.Hold.Held] = r.Error
		t.noteHold(r.Hold.Held)
	case r.StoresFrom != "" && r.Status == results.StatusNotApplicable:
		c.storesFrom = r.StoresFrom
	case r.Status == results.StatusNotApplicable && r.Phase == job.PhaseOpen && r.Cache != "" && r.Cache != job.CacheWarm:
		c.naCache = withReason(c.naCache, r.Cache, r.Error)
	case r.Status == results.StatusNotApplicable:
		c.na, c.naWhy = true, r.Error
	case r.Status != results.StatusOK:
		t.addFailed(c, r)
	default:
		t.addOK(col, c, r)
	}
}

// noteFailure lists a failed record; a failure stays listed until a later
// record of the same phase and run.
func (t *table) noteFailure(col string, r *results.Record) {
	what := failedWhat(col, r)
	t.failures = slices.DeleteFunc(t.failures, func(f string) bool { return strings.HasPrefix(f, what+": ") })
	if r.Status == results.StatusFailed {
		t.failures = append(t.failures, what+": "+failedWhy(r))
	}
}

// addFailed marks a failed record's phase and run as failed in its column.
func (t *table) addFailed(c *column, r *results.Record) {
	c.failed[r.Phase] = true
	if r.Phase == job.PhaseTurn {
		c.failedTurn[r.Turn] = true
		t.turned = true
	}
	if r.Phase == job.PhaseOpen && r.Cache == "" {
		c.failedRuns[r.Run] = true
	}
}

// addOK collects an ok record: the column's record of its run, its
// versions, and what the table learns from it (load, queries, cache
// modes, stores held, turns).
func (t *table) addOK(col string, c *column, r *results.Record) {
	if r.RanLoud() {
		what := col + " " + string(r.Phase)
		if n := r.Repeat(); n > 0 {
			what += fmt.Sprintf(" run %d", n)
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
	for k, v := range r.EngineOptions {
		if c.options == nil {
			c.options = map[string][]string{}
		}
		if !slices.Contains(c.options[k], v) {
			c.options[k] = append(c.options[k], v)
		}
	}
	c.recs.put(runKey{r.Phase, r.Cache, r.Repeat()}, r)
	switch r.Phase {
	case job.PhaseOpen:
		if len(r.Queries) > 0 && t.queries == nil {
			t.queries = r.Queries
		}
		if r.Cache != "" && !slices.Contains(t.modes, r.Cache) {
			t.modes = append(t.modes, r.Cache)
		}
		if r.Cache == "" {
			delete(c.failedRuns, r.Run)
		}
	case job.PhaseHold:
		t.noteHold(r.Hold.Held)
	case job.PhaseTurn:
		t.turned = true
		delete(c.failedTurn, r.Turn)
	case job.PhaseDelete:
		t.deleted = true
	}
}

// sortColumnsByVariant puts each variant's columns side by side, its
// machines in the order seen.
func (t *table) sortColumnsByVariant() {
	var vs []string
	for _, col := range t.variants {
		if v := t.columns[col].variant; !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	slices.SortStableFunc(t.variants, func(a, b string) int {
		return cmp.Compare(slices.Index(vs, t.columns[a].variant), slices.Index(vs, t.columns[b].variant))
	})
}

// askRuns sets the runs each study asked for (its last session's
// configuration, which may have added turns), or without an env record
// the most seen, and the stores held when no hold record says.
func (t *table) askRuns(lastEnv map[string]*results.Record) {
	runs, turnRuns := map[string]int{}, map[string]int{}
	for _, c := range t.columns {
		if env := lastEnv[c.study]; env != nil && env.Config != nil {
			runs[c.study], turnRuns[c.study] = env.Config.Runs, env.Config.Turns
			if t.held == 0 {
				t.held = env.Config.Hold // no hold record: the hold asked for
			}
		}
	}
	for _, c := range t.columns {
		runs[c.study] = max(runs[c.study], highestRun(c.opens(), c.failedRuns))
		turnRuns[c.study] = max(turnRuns[c.study], highestRun(c.turns(), c.failedTurn))
	}
	for _, c := range t.columns {
		c.runs, c.turnRuns = runs[c.study], turnRuns[c.study]
		t.runs, t.turnRuns = max(t.runs, c.runs), max(t.turnRuns, c.turnRuns)
	}
}

// highestRun is the highest run of recs and failed runs, 0 for none.
func highestRun(recs []*results.Record, failed map[int]bool) int {
	n := 0
	for _, r := range recs {
		n = max(n, r.Repeat())
	}
	for r := range failed {
		n = max(n, r)
	}
	return n
}

// noteHold notes a hold count of the table: the hold rows' count is the
// largest, and with several each gets a block of rows.
func (t *table) noteHold(held int) {
	if !slices.Contains(t.holds, held) {
		t.holds = append(t.holds, held)
		slices.Sort(t.holds)
	}
	t.held = max(t.held, held)
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
	deleted  bool             // some column has a delete phase
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

// A session is one manydb run that recorded part of a study: the env
// record it wrote when it started. A study resumed across sessions (the
// same command run again) has one env record per session; the records a
// session wrote follow its env record in the results file.
type session struct {
	env     *results.Record
	machine string // the machine's label when the input holds several machines, else ""
	records int    // records of the table this session wrote
}

// machineKey names the machine an env record ran on: its host name, CPU
// model, cores and memory, the hardware. The kernel, distribution, glibc,
// Go and THP mode do not make another machine (the report says when they
// were mixed). "" when the record names none of them (or there is none).
func machineKey(env *results.Record) string {
	if env == nil {
		return ""
	}
	var parts []string
	known := false
	for _, k := range []string{"host", "cpu", "cores", "memory_kb"} {
		v := env.Env[k]
		if v == "unknown" {
			v = ""
		}
		known = known || v != ""
		parts = append(parts, v)
	}
	if !known {
		return ""
	}
	return strings.Join(parts, "\x00")
}

// machines labels the machines of a set of records' env records.
type machines struct {
	label map[string]string // machine key → label
	order []string          // machine keys with a name, in order of first appearance
}

// findMachines names each machine the env records in recs ran on: its host
// name when it has one that no other machine has, else "machine N" in
// the order the machines first appear; records of no known machine are
// labelled "unknown machine".
func findMachines(recs []results.Record) machines {
	m := machines{label: map[string]string{"": "unknown machine"}}
	hosts := map[string]int{}
	for i := range recs {
		r := &recs[i]
		if r.Phase != job.PhaseEnv {
			continue
		}
		k := machineKey(r)
		if k == "" || slices.Contains(m.order, k) {
			continue
		}
		m.order = append(m.order, k)
		if h := r.Env["host"]; h != "" && h != "unknown" {
			hosts[h]++
		}
		m.label[k] = r.Env["host"]
	}
	for i, k := range m.order {
		if h := m.label[k]; h == "" || h == "unknown" || hosts[h] > 1 {
			m.label[k] = fmt.Sprintf("machine %d", i+1)
		}
	}
	return m
}

// several tells whether the records come from more than one known machine:
// then each table has one column group per machine.
func (m machines) several() bool { return len(m.order) > 1 }

// addSession counts one record of the table as written by the session of
// env (nil: a study without an env record).
func (t *table) addSession(env *results.Record, machine string) {
	if env == nil {
		return
	}
	for _, s := range t.sessions {
		if s.env == env {
			s.records++
			return
		}
	}
	t.sessions = append(t.sessions, &session{env: env, machine: machine, records: 1})
}

// pooled joins the samples pick takes from each record.
func pooled(recs []*results.Record, pick func(r *results.Record) []float64) []float64 {
	var xs []float64
	for _, r := range recs {
		xs = append(xs, pick(r)...)
	}
	return xs
}

// ErrNoStudies is returned when the records hold no study to show: no
// study phase and no profile.
var ErrNoStudies = errors.New("no study records found (only env or end records, or none)")
