package orchestrate

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/memcg"
	"manydb/internal/results"
	"manydb/internal/serve"
	"manydb/internal/settings"
	"manydb/internal/workload"
)

// Config is one study.
type Config struct {
	Variants []string           // variant ids, in table order
	Settings []settings.Setting // process-wide settings, one table each
	Layouts  []job.Layout       // store layouts, each its own columns (--layout; job.DefaultLayouts unless given)
	// KNNOversample, above 1, makes an approximate knn ask for that many
	// times 10 notes and keep 10 (job.Job.KNNOversample).
	KNNOversample int
	Stores        int         // stores per variant
	Runs          int         // open runs per cache mode (seeds 1..Runs)
	Queries       []job.Query // the open runs' queries in order; nil: count
	Cache         []string    // cache modes of the open runs: warm, cold, drop; nil: warm
	Turns         int         // turn runs after the space phase (0: none)
	Deletes       int         // agents the delete phase exports and deletes (job.Job.Deletes); 0: one in ten
	// Serve, when set, makes the study a manydb serve study: create, hold
	// (the memory per open store that the pool sizes are checked against)
	// and one serve phase per pool size, instead of the open runs, space
	// and turns.
	Serve *results.ServeConfig
	Hold  int // stores held open in the hold phase
	// Holds, when set, are several hold counts, each its own hold phase on
	// the same stores (Hold is then ignored); normalize sorts them.
	Holds []int
	// Procs, above 1, splits every hold phase's stores over Procs worker
	// processes (--procs; job.Job.Procs); 0 or 1: one. AutoProcs (--procs
	// auto) chooses each hold's processes from the hold before it
	// (results.Hold.ProcsFor; a hold of AutoProbe stores first).
	Procs     int
	AutoProcs bool
	Fanout    int // store directory layout (job.Job.Fanout); 0: flat
	// Sweep, when set, lists store counts: one study per count, the
	// largest first, linked by a sweep id; a variant's stores are made
	// once, for the largest count, and a smaller count's study uses the
	// first N of them (Stores is then ignored; normalize sets it to the
	// largest).
	Sweep   []int
	sweepID string // set by Run
	// AgentSweep, in a study of manydb sweep, names the sweep it is one
	// agent count of (recorded in the env record).
	AgentSweep *results.AgentSweepConfig
	// NoDelete leaves the delete phase out of a study of a layout that
	// has one (manydb sweep: deleting agents from a shared index of
	// hundreds of thousands of notes is a study of its own).
	NoDelete bool
	Workload workload.Spec // what each store holds
	Root     string        // data root (carries MarkerFile)
	Out      string        // results file (JSON Lines, appended)
	Keep     bool          // keep the stores after the study
	Fresh    bool          // start a new study even if one can be resumed
	BinDir   string        // where the worker binaries are
	// Postgres, when set, is a PostgreSQL server the user runs (a libpq
	// connection string, --postgres) to keep the stores of the variants
	// whose stores live in a server, instead of one manydb starts in the
	// root (pgserver.UserServer).
	Postgres string
	// SqldMaxActive is the --max-active-namespaces of the study's sqld
	// server (--sqld-max-active); 0 keeps every namespace loaded
	// (sqldserver.DefaultMaxActiveNamespaces).
	SqldMaxActive int
	// serverNoVectors, set by Validate, says why the server cannot keep
	// embeddings (the user's has no pgvector, or manydb's own pgvector
	// cannot run on this CPU: pgserver.NoVectors): under --dims the
	// server's variants are n/a with it.
	serverNoVectors string
	MaxLoad         float64       // wait before each phase until the gate lets it start (0: don't wait)
	Gate            Gate          // what the wait waits for: load1 < MaxLoad, or a quiet machine ("": GateLoad)
	LoadWait        time.Duration // how often to check the gate while waiting
	// StallLimit is how long a worker may go without progress before the
	// watchdog kills it and records its phase failed; 0 means the default
	// rule: 100 × the longest gap between its progress lines (or those of
	// the workers before it on the same stores), at least a
	// minute (docs/method.md, "The watchdog").
	StallLimit time.Duration
	// SkipSpaceCheck starts even if the data root's filesystem looks too
	// small for the study.
	SkipSpaceCheck bool
	// SkipTimeCheck starts a serve study whose open-loop schedule alone
	// takes longer than MaxScheduleTime.
	SkipTimeCheck bool
	Version       string    // manydb's own version, recorded in the environment
	Env           []string  // environment passed to workers (os.Environ())
	Log           io.Writer // progress and messages (stderr)
	// Bar reports progress; nil means NewProgress(Log).
	Bar Progress
	// Catalog maps variants to worker binaries; nil means engine.Catalog().
	// Tests use it to run fake workers.
	Catalog []engine.Family
	// SampleEvery is the load sampling interval while a worker runs; 0
	// means 10 s.
	SampleEvery time.Duration
	// LibDirs are the directories searched for the allocator settings'
	// libraries; nil means settings.LibDirs().
	LibDirs []string
	// Cgroups is where the hold workers' memory cgroups are made; nil
	// means memcg.Default(). Tests point it where none can be made.
	Cgroups *memcg.Hierarchy
	// ReadLoad reads the 1-minute load average; nil means measure.Load1.
	ReadLoad func() (float64, error) `json:"-"`
	// ReadQuiet watches the machine for the quiet gate; nil means
	// ReadQuiet.
	ReadQuiet func(ctx context.Context, window time.Duration, own func() uint64) (Quiet, error) `json:"-"`
	// OwnPIDs lists the processes of the study's own servers: while one
	// runs, the load gate reads the active tasks without manydb and its
	// children, and the quiet gate leaves the servers' CPU time out
	// (ownServers); nil means those manydb started (runServers.pids).
	OwnPIDs func() []int `json:"-"`
}

// binary returns the file name of the worker serving variant v.
func (c *Config) binary(v string) string {
	f, _ := c.family(v)
	return f.Binary
}

// family returns the worker family serving variant v.
func (c *Config) family(v string) (engine.Family, bool) { return lookupFamily(c.Catalog, v) }

// lookupFamily returns the family serving variant v in catalog, or in
// engine.Catalog() when catalog is nil.
func lookupFamily(catalog []engine.Family, v string) (engine.Family, bool) {
	if catalog == nil {
		return engine.Lookup(v)
	}
	for _, f := range catalog {
		if slices.Contains(f.Variants, v) {
			return f, true
		}
	}
	return engine.Family{}, false
}

// checkWorker checks that variant v is known, its worker binary is in
// binDir and runs, and that it serves v with the engine built in.
func checkWorker(catalog []engine.Family, binDir, v string, env []string) error {
	fam, ok := lookupFamily(catalog, v)
	if !ok {
		return &job.InputError{Msg: fmt.Sprintf("unknown engine %q", v)}
	}
	bin := filepath.Join(binDir, fam.Binary)
	st, err := os.Stat(bin)
	switch {
	case err != nil || st.IsDir():
		return &job.InputError{Msg: fmt.Sprintf("worker binary %s for %s is missing: run 'make build' (it needs %s)", bin, v, fam.Needs)}
	case st.Mode()&0o111 == 0:
		return &job.InputError{Msg: fmt.Sprintf("worker binary %s for %s is not executable: chmod +x it or run 'make build'", bin, v)}
	}
	listing, err := listWorker(context.Background(), bin, env)
	if err != nil {
		return &job.InputError{Msg: fmt.Sprintf("worker binary %s for %s does not start (%v): run 'make build'", bin, v, err)}
	}
	for _, l := range listing {
		switch {
		case l.ID != v:
		case l.Disabled != "":
			return &job.InputError{Msg: fmt.Sprintf("%s: %s", v, l.Disabled)}
		case l.Error != "":
			return &job.InputError{Msg: fmt.Sprintf("%s cannot run here: %s", v, l.Error)}
		default:
			return nil
		}
	}
	return &job.InputError{Msg: fmt.Sprintf("worker binary %s does not serve %s: run 'make build'", bin, v)}
}

// Validate checks the configuration before anything is written: the
// values and the rules between flags (job's rules, and the study's own),
// then the root, the results file and the workers.
func (c *Config) Validate() error {
	if err := c.checkValues(); err != nil {
		return err
	}
	if err := c.checkCounts(); err != nil {
		return err
	}
	if err := checkNotesFit(c.Workload); err != nil {
		return err
	}
	if err := c.checkCache(); err != nil {
		return err
	}
	if err := c.checkServe(); err != nil {
		return err
	}
	if err := CheckRoot(c.Root, "--root"); err != nil {
		return err
	}
	if err := checkOut(c.Out, c.Root); err != nil {
		return err
	}
	if err := c.checkServer(); err != nil {
		return err
	}
	for _, v := range c.Variants {
		if err := checkWorker(c.Catalog, c.BinDir, v, c.Env); err != nil {
			return err
		}
	}
	return c.checkSomeApply()
}

// checkValues checks each flag's value and the rules between them (job's
// rules).
func (c *Config) checkValues() error {
	for _, err := range []error{job.CheckStores(c.Stores), job.CheckFanout(c.Fanout), job.CheckWorkload(c.Workload),
		job.CheckQueries(c.Queries, c.Workload.Dims), job.CheckLayouts(c.Layouts, len(c.Sweep) > 1, c.splits()),
		job.CheckOversample(max(c.KNNOversample, 1), c.Workload.Dims),
		job.CheckDeletes(c.Deletes, c.Stores, c.Layouts),
		job.CheckStudy(len(c.Variants), len(c.Settings), c.Root, c.Out), c.checkRuns(),
		job.CheckTurns(c.Turns, len(c.Sweep) > 1),
		job.CheckLoadGate(c.MaxLoad, c.LoadWait, string(c.Gate), GateNames(), c.Gate == GateQuiet),
		job.CheckStallLimit(c.StallLimit), job.CheckSqldMaxActive(c.SqldMaxActive)} {
		if err != nil {
			return &job.InputError{Msg: err.Error()}
		}
	}
	if c.Gate == GateQuiet && noPressure() {
		return &job.InputError{Msg: "--gate quiet needs the kernel's pressure stall information (/proc/pressure: Linux 4.20 or later, CONFIG_PSI): use --gate load"}
	}
	return nil
}

// checkRuns checks the open runs of a study, or serve's own rules for a
// serve study.
func (c *Config) checkRuns() error {
	if c.Serve == nil {
		return job.CheckRuns(c.Runs)
	}
	return job.CheckServeStudy(len(c.Sweep), len(c.Holds), c.Procs, c.AutoProcs, c.Serve.OpenLoop(), c.Serve.Concurrency)
}

// splits tells whether holds (and serve steps) may be split over
// processes (--procs).
func (c *Config) splits() bool { return c.Procs > 1 || c.AutoProcs }

// AutoProbe is the hold --procs auto makes first, in one process, when
// every hold given is larger: what a store takes of each limit, which
// the holds after it are split by.
const AutoProbe = 100

// autoHeadroom is the share of each limit of a process --procs auto fills
// at most.
const autoHeadroom = 0.9

// checkCounts checks the hold counts and the sweep's store counts, each in
// its range (the command line's lists have none twice: job.List).
func (c *Config) checkCounts() error {
	for _, h := range c.Holds {
		if err := job.CheckHold(h, c.Stores); err != nil {
			return &job.InputError{Msg: err.Error()}
		}
		if err := job.CheckProcs(c.Procs, h, "held stores"); err != nil {
			return &job.InputError{Msg: err.Error()}
		}
	}
	for _, n := range c.Sweep {
		if err := job.CheckStores(n); err != nil {
			return &job.InputError{Msg: err.Error()}
		}
	}
	return nil
}

// checkServe checks a serve study's traffic at each pool size, its
// open-loop schedule and its memory limit.
func (c *Config) checkServe() error {
	if c.Serve == nil {
		return nil
	}
	if len(c.Serve.Pools) == 0 {
		return &job.InputError{Msg: "--pool lists no pool size"}
	}
	for _, p := range c.Serve.Pools {
		for _, rate := range c.Serve.Ladder() {
			t := job.Serve{Pool: p, Requests: c.Serve.Requests, Concurrency: c.Serve.Concurrency, Zipf: c.Serve.Zipf, Rate: rate}
			if err := t.Validate(c.Stores); err != nil {
				return &job.InputError{Msg: err.Error()}
			}
		}
	}
	if err := c.checkScheduleTime(); err != nil {
		return err
	}
	return c.checkMemoryMax()
}

// checkMemoryMax checks, for serve --memory-max, that a memory cgroup can
// be made here (one is made and removed at once).
func (c *Config) checkMemoryMax() error {
	if c.Serve.MemoryMaxBytes <= 0 {
		return nil
	}
	g, err := c.cgroups().New(cgroupPrefix)
	if err != nil {
		return &job.InputError{Msg: fmt.Sprintf("--memory-max needs a memory cgroup for each serve worker: %v", err)}
	}
	if err := g.Remove(); err != nil {
		return fmt.Errorf("--memory-max: remove the trial cgroup: %w", err)
	}
	return nil
}

// MaxScheduleTime is the longest an open-loop serve study's schedule may
// take unless Config.SkipTimeCheck.
const MaxScheduleTime = 24 * time.Hour

// ScheduleSeconds returns how long the open-loop schedule of a serve study
// takes at the least, in seconds: every pool size of every variant and
// setting serves its warm-up and its requests at each open loop's rate
// (--rate, or each of --rates but max), or until --pool-time, if sooner.
// 0 for a closed loop, which has no schedule. In seconds, as a tiny rate
// gives more than a time.Duration holds.
func (c *Config) ScheduleSeconds() float64 {
	if c.Serve == nil {
		return 0
	}
	var perPool float64
	for _, rate := range c.Serve.Ladder() {
		if rate <= 0 {
			continue // the closed loop: no schedule
		}
		step := float64(serve.Warmup(c.Serve.Requests)+c.Serve.Requests) / rate
		if c.Serve.PoolTimeS > 0 { // --pool-time stops each step then
			step = min(step, c.Serve.PoolTimeS)
		}
		perPool += step
	}
	return perPool * float64(len(c.Serve.Pools)*len(c.Variants)*len(c.Settings))
}

// rateText is the open loop's rates as the flags gave them: 100, or
// 10,100,max for a ladder.
func (c *Config) rateText() string {
	var rates []string
	for _, r := range c.Serve.Ladder() {
		rates = append(rates, job.FormatRate(r))
	}
	return strings.Join(rates, ",")
}

// checkScheduleTime refuses an open-loop serve study that cannot end
// within MaxScheduleTime, unless SkipTimeCheck.
func (c *Config) checkScheduleTime() error {
	secs := c.ScheduleSeconds()
	if c.SkipTimeCheck || secs <= MaxScheduleTime.Seconds() {
		return nil
	}
	flagName := "--rate"
	if len(c.Serve.Rates) > 0 {
		flagName = "--rates"
	}
	return &job.InputError{Msg: fmt.Sprintf("%s %s: the open-loop schedule of --requests %d (and its warm-up) for %d pool sizes × %d variants × %d settings takes about %s, more than %s: raise the rate, lower --requests, or add --skip-time-check",
		flagName, c.rateText(), c.Serve.Requests, len(c.Serve.Pools), len(c.Variants), len(c.Settings), FormatSeconds(secs), FormatSeconds(MaxScheduleTime.Seconds()))}
}

// checkNotesFit refuses a workload whose notes for one store (generated
// in the worker in one allocation) would take more than half the machine's
// memory.
func checkNotesFit(w workload.Spec) error {
	memKB, err := measure.MemTotalKB()
	if err != nil {
		return nil // the worker will say what is wrong
	}
	need := float64(w.Objects) * (float64(w.TextLen) + 64) // text and the note's fields
	if limit := float64(memKB) * 1024 / 2; need > limit {
		return &job.InputError{Msg: fmt.Sprintf("--objects %d × --text-len %d: one store's notes would take %s of memory in the worker, more than half of this machine's %s: choose a smaller workload",
			w.Objects, w.TextLen, bytesText(need), bytesText(float64(memKB)*1024))}
	}
	return nil
}

// checkOut refuses a results file that is a directory, is the data root
// or lies inside it (where removing stores could delete it).
func checkOut(out, root string) error {
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return &job.InputError{Msg: fmt.Sprintf("--out %s is a directory: name a results file", out)}
	} else if err == nil && !st.Mode().IsRegular() {
		return &job.InputError{Msg: fmt.Sprintf("--out %s is not a regular file (a device, pipe or socket): name a results file", out)}
	}
	if resolve(out) == resolve(root) {
		return &job.InputError{Msg: fmt.Sprintf("--out %s is also --root: the results file and the data root need paths of their own; put the results file outside --root", out)}
	}
	if inside(root, out) {
		return &job.InputError{Msg: fmt.Sprintf("--out %s is inside the data root %s, where removing stores could delete it: put the results file outside --root", out, root)}
	}
	return nil
}

// normalize puts the lists in order before Validate: hold counts
// smallest first (each hold's memory estimate comes from the one before),
// store counts largest first (the largest set is made first), Stores the
// largest count and Hold the largest hold count.
func (c *Config) normalize() {
	if len(c.Holds) == 0 {
		c.Holds = []int{c.Hold}
	}
	c.Holds = slices.Clone(c.Holds)
	slices.Sort(c.Holds)
	if c.AutoProcs && c.Holds[0] > AutoProbe && c.Stores > AutoProbe {
		c.Holds = append([]int{AutoProbe}, c.Holds...)
	}
	c.Hold = c.Holds[len(c.Holds)-1]
	if len(c.Sweep) > 0 {
		c.Sweep = slices.Clone(c.Sweep)
		slices.Sort(c.Sweep)
		slices.Reverse(c.Sweep)
		c.Stores = c.Sweep[0]
	}
}

// config returns the configuration as recorded in the study's env record.
func (c *Config) config() *results.StudyConfig {
	names := make([]string, len(c.Settings))
	for i, s := range c.Settings {
		names[i] = s.Name
	}
	root, err := filepath.Abs(c.Root)
	if err != nil {
		root = c.Root
	}
	sc := &results.StudyConfig{Variants: c.Variants, Settings: names, Stores: c.Stores, Runs: c.Runs,
		Hold: c.Hold, Fanout: c.Fanout, Queries: c.Queries, Cache: c.Cache, Turns: c.Turns, Serve: c.Serve, Workload: c.Workload, Root: root, MaxLoad: c.MaxLoad}
	if c.MaxLoad > 0 {
		sc.Gate = string(c.Gate) // setDefaults made "" GateLoad
	}
	if len(c.Holds) > 1 {
		sc.Holds = c.Holds
	}
	sc.Layouts = job.RecordedLayouts(c.Layouts)
	if c.KNNOversample > 1 {
		sc.KNNOversample = c.KNNOversample
	}
	if c.Procs > 1 {
		sc.Procs = c.Procs
	}
	sc.ProcsAuto = c.AutoProcs
	sc.Deletes = c.Deletes
	sc.UserServer = c.Postgres != "" && c.needsServer(serverPostgres)
	if c.needsServer(serverSqld) {
		sc.SqldMaxActive = c.SqldMaxActive
	}
	if len(c.Sweep) > 1 {
		sc.Sweep = &results.SweepConfig{ID: c.sweepID, Stores: c.Sweep}
	}
	sc.AgentSweep, sc.NoDelete = c.AgentSweep, c.NoDelete
	return sc
}

// isCacheMode says whether --cache knows the mode name.
func isCacheMode(name string) bool {
	_, ok := job.CacheModeNamed(name)
	return ok
}

// checkCache checks the cache modes: known, each once, and drop only for
// root (it writes /proc/sys/vm/drop_caches).
func (c *Config) checkCache() error {
	for i, m := range c.Cache {
		switch {
		case !isCacheMode(m):
			return &job.InputError{Msg: fmt.Sprintf("--cache: unknown mode %q: use %s, comma-separated", m, job.CacheModeNames())}
		case slices.Contains(c.Cache[:i], m):
			return &job.InputError{Msg: fmt.Sprintf("--cache: %s is listed twice", m)}
		case m == job.CacheDrop.Name() && os.Geteuid() != 0:
			return &job.InputError{Msg: "--cache drop writes /proc/sys/vm/drop_caches and needs root: run as root, or use --cache cold (no root needed)"}
		}
	}
	return nil
}

// cacheModes returns the cache modes of the open runs, warm alone when
// none are given.
func (c *Config) cacheModes() []string {
	if len(c.Cache) == 0 {
		return []string{job.CacheWarm.Name()}
	}
	return c.Cache
}

// removeStaleCgroups removes the memory cgroups that manydb processes now
// gone left behind (a SIGKILL during a hold), and says so.
func (c *Config) removeStaleCgroups() {
	removed, err := c.cgroups().RemoveStale(cgroupPrefix)
	if len(removed) > 0 {
		fmt.Fprintf(c.Log, "removed %d memory cgroups left by manydb processes that are gone: %s\n", len(removed), strings.Join(removed, ", "))
	}
	if err != nil {
		fmt.Fprintf(c.Log, "warning: %v\n", err)
	}
}

// cgroupPrefix starts the name of every memory cgroup manydb makes.
const cgroupPrefix = "manydb"

// cgroups returns where hold workers' memory cgroups are made.
func (c *Config) cgroups() memcg.Hierarchy {
	if c.Cgroups != nil {
		return *c.Cgroups
	}
	return memcg.Default()
}

// cells lists the study's variants under each setting in each layout,
// in the order they run: by setting, then variant, then layout, so that
// a variant's layouts run one after the other and its columns stand side
// by side.
func (c *Config) cells() []where {
	var out []where
	for _, set := range c.Settings {
		for _, v := range c.Variants {
			for _, l := range c.Layouts {
				out = append(out, where{set, l, v})
			}
		}
	}
	return out
}

// notApplicable says why w is not measured, or "": the setting does not
// change its variant (settings.Setting.NotApplicable), the workload has
// embeddings and its catalog family says why it cannot keep them
// (engine.Family.NoVectors), or the layout does not apply to it
// (layoutNotApplicable).
func (c *Config) notApplicable(w where) string {
	fam, _ := c.family(w.v)
	if why := w.set.NotApplicable(fam, w.v); why != "" {
		return why
	}
	if c.Workload.Dims > 0 && fam.NoVectors[w.v] != "" {
		return fam.NoVectors[w.v]
	}
	if c.Workload.Dims > 0 && fam.Server == serverPostgres && c.serverNoVectors != "" {
		return c.serverNoVectors
	}
	if fam.Server != "" && c.Serve != nil && c.Serve.MemoryMaxBytes > 0 {
		return "--memory-max limits the worker's cgroup, and the stores' memory is the server's processes', outside it"
	}
	return c.layoutNotApplicable(fam, w)
}

// layoutNotApplicable says why w's layout does not apply to its variant,
// of family fam, in this study, or "": the catalog's reasons
// (engine.Family.LayoutGaps) and the layout's under the wal setting.
func (c *Config) layoutNotApplicable(fam engine.Family, w where) string {
	gaps := fam.LayoutGaps(w.layout)
	switch v := w.v; {
	case gaps.Always[v] != "":
		return gaps.Always[v]
	case w.set.WAL && w.layout.NotUnderWAL(w.set.Name) != "":
		return w.layout.NotUnderWAL(w.set.Name)
	case c.Workload.Dims > 0 && gaps.Vectors[v] != "":
		return gaps.Vectors[v]
	case c.Serve != nil && gaps.Serve[v] != "":
		return gaps.Serve[v]
	}
	return ""
}

// checkSomeApply refuses a study in which no variant applies under any
// setting (each would be recorded n/a): it would measure nothing.
func (c *Config) checkSomeApply() error {
	var whys []string
	for _, w := range c.cells() {
		why := c.notApplicable(w)
		if why == "" {
			return nil
		}
		whys = append(whys, fmt.Sprintf("%s under %s (%s): %s", w.v, w.set.Name, w.layout.Name(), why))
	}
	return &job.InputError{Msg: "no variant applies to this study, so it would measure nothing: " + strings.Join(whys, "; ")}
}
