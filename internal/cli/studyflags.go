package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"manydb/internal/datasource"
	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/orchestrate"
	"manydb/internal/report"
	"manydb/internal/results"
	"manydb/internal/settings"
	"manydb/internal/workload"
)

// studyFlags are the flags manydb run and manydb serve both take: what to
// measure (engines, settings, workload), where (root, out, bin) and how
// (fresh, keep, the load gate). Each command adds the flags of its own.
type studyFlags struct {
	cmd  string // the command, named in error messages
	kind string // what its last line calls the study: "study", "serve study"

	engines    string
	settings   string
	workload   string
	data       string // --data
	dims       int
	pool       int     // --topic-pool
	oversample int     // --knn-oversample
	spread     float64 // --note-spread
	root       string
	out        string
	binDir     string
	fresh      bool
	postgres   string // --postgres
	sqldPool   int    // --sqld-max-active
	keep       bool
	maxLoad    float64
	gate       string // --gate
	loadWait   time.Duration
	stall      time.Duration
	procs      string // --procs: a count, or auto (run)

	// holdCap is how many stores the hold phase holds open unless told:
	// min(holdCap, stores). Not a flag of its own (see runStudyFlags).
	holdCap int
}

// runStudyFlags and serveStudyFlags are the two commands' study flags with
// their defaults. Two differ, on purpose:
//   - out: run appends to results.jsonl, serve to serve.jsonl (so since
//     serve was added); running the same command again resumes its study
//     from that file.
//   - holdCap: run's hold phase is the reference table's memory figure,
//     1,000 stores open; serve's only estimates the memory and open files
//     per open store that its pool sizes are checked against, so 100 stores
//     do, and it is not a flag there.
func runStudyFlags(o Options) studyFlags {
	return studyFlags{cmd: "run", kind: "study", out: "results.jsonl", holdCap: 1000, binDir: o.BinDir}
}

// serveStudyFlags: see runStudyFlags.
func serveStudyFlags(o Options) studyFlags {
	return studyFlags{cmd: "serve", kind: "serve study", out: "serve.jsonl", holdCap: 100, binDir: o.BinDir}
}

// AddFlags defines the study flags in fs; out and bin default to the
// values f holds.
func (f *studyFlags) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.engines, "engines", "all", "comma-separated variant ids in table order, or all (known: "+joinIDs()+")")
	fs.StringVar(&f.settings, "settings", "default", "comma-separated settings, one table each: "+strings.Join(settings.Names(), ", ")+", or A+B")
	fs.StringVar(&f.root, "root", "manydb-data", "data root for the stores")
	fs.StringVar(&f.out, "out", f.out, "results file, appended to")
	fs.StringVar(&f.workload, "workload", "large", "large (1,000 notes of 300 characters) or small (10 notes of 40)")
	fs.StringVar(&f.data, "data", datasource.Synthetic, datasource.Help())
	fs.IntVar(&f.dims, "dims", 0, fmt.Sprintf("values in each note's embedding (synthetic, clustered; 384 is a small sentence-embedding model's), searched by the knn query and by turns; 0: none, the reference's workload; at most %d", job.MaxDims))
	fs.IntVar(&f.pool, "topic-pool", 0, "with --dims: the number of topic centres all agents draw their topics from, so that agents write about the same things (a shared index then holds other agents' notes near each agent's); 0: each agent's own centres")
	fs.IntVar(&f.oversample, "knn-oversample", 1, "with --dims: an approximate knn (an index) asks its engine for this many times 10 notes and keeps the first 10, as an application does to make up for a filtered index; exact searches always ask for 10")
	fs.Float64Var(&f.spread, "note-spread", workload.NoteSpread, "with --dims: σ, the noise around a note's topic centre (two notes of one topic have a cosine of about 1/(1+σ²))")
	fs.BoolVar(&f.keep, "keep", false, "keep the stores after the study")
	fs.BoolVar(&f.fresh, "fresh", false, "start a new study even if the results file holds one to resume")
	fs.Float64Var(&f.maxLoad, "max-load", 0, "before each phase, wait until the 1-minute load average is below this (or, while the study's own servers run, the tasks active without manydb and its servers, over 2 s), or with --gate quiet until the machine is quiet (0: don't wait)")
	fs.StringVar(&f.gate, "gate", string(orchestrate.GateLoad), "with --max-load, what each phase waits for: load (the 1-minute load average below --max-load) or quiet ("+orchestrate.QuietRule()+"; Linux's pressure stall information); --max-load still marks phases whose load reached it as loud")
	fs.DurationVar(&f.loadWait, "load-wait", 30*time.Second, "how often to check the gate while waiting")
	fs.StringVar(&f.binDir, "bin", f.binDir, "directory of the worker binaries")
	fs.StringVar(&f.postgres, "postgres", "", "a PostgreSQL server of your own for the postgres variants' stores, as a libpq connection string (host=/run/postgresql user=me dbname=postgres); manydb makes databases of its own there (manydb_HASH_SETTING, marked with a comment), drops only those, and touches nothing else; the role needs CREATEDB (and pg_read_all_settings unless a superuser; pgvector under --dims needs a superuser) and the server must run on this machine (manydb reads its data directory and processes). Default: manydb starts its own server in the root")
	procsHelp := "worker processes each hold's stores and each serve step's agents are split over, by agent (consecutive ranges), as a router would, past one process' limits (open files, pthread keys); serve splits its pool and goroutines too"
	if f.cmd == "run" {
		procsHelp = "worker processes each hold's stores are split over, by agent (consecutive ranges), as a router would, past one process' limits (open files, pthread keys); auto: the fewest that fit, from the hold before"
	}
	fs.IntVar(&f.sqldPool, "sqld-max-active", 0, "the namespaces the study's sqld keeps loaded (its --max-active-namespaces), 1 or more; 0, the default, keeps every namespace loaded, or when their files (5 each) would pass the open-file limit the largest pool that fits. Past a smaller pool sqld 0.24.32 answers some requests \"namespace doesn't exist\", which manydb sends again and counts as retries (docs/engines.md)")
	fs.StringVar(&f.procs, "procs", "1", procsHelp)
	fs.DurationVar(&f.stall, "stall-limit", 0, "end a worker that makes no progress for this long and record its phase failed (0: 100 × the longest gap between its progress lines or those of the workers before it on the same stores, at least 1m)")
}

// Validate checks what needs nothing but the flags (the engine and
// setting lists, the workload's name), before any worker is asked which
// engines it serves.
func (f studyFlags) Validate() error {
	if _, _, err := f.lists(); err != nil {
		return err
	}
	if _, err := workload.Lookup(f.workload, 0, 0); err != nil {
		return f.inputError(err.Error())
	}
	if _, err := datasource.Choose(f.data); err != nil {
		return f.inputError(err.Error())
	}
	if err := job.CheckDims(f.dims); err != nil {
		return f.inputError(err.Error())
	}
	if err := job.CheckTopics(f.pool, f.spread, f.dims); err != nil {
		return f.inputError(err.Error())
	}
	if err := job.CheckGenerated(f.data, datasource.Synthetic, f.pool, f.spread); err != nil {
		return f.inputError(err.Error())
	}
	if err := job.CheckOversample(f.oversample, f.dims); err != nil {
		return f.inputError(err.Error())
	}
	if err := job.CheckLoadGate(f.maxLoad, f.loadWait, f.gate, orchestrate.GateNames(), f.gate == string(orchestrate.GateQuiet)); err != nil {
		return f.inputError(err.Error())
	}
	if err := job.CheckStallLimit(f.stall); err != nil {
		return f.inputError(err.Error())
	}
	if err := job.CheckSqldMaxActive(f.sqldPool); err != nil {
		return f.inputError(err.Error())
	}
	_, _, err := f.procsValue()
	return err
}

// procsValue parses --procs: a count of 1 or more, or auto (run only).
func (f studyFlags) procsValue() (procs int, auto bool, err error) {
	if f.procs == "auto" && f.cmd == "run" {
		return 0, true, nil
	}
	procs, err = strconv.Atoi(f.procs)
	if err != nil || procs < 1 {
		what := "1 or more"
		if f.cmd == "run" {
			what += ", or auto"
		}
		return 0, false, f.inputError(fmt.Sprintf("--procs %q: give the worker processes, %s", f.procs, what))
	}
	return procs, false, nil
}

// lists parses --engines and --settings.
func (f studyFlags) lists() ([]string, []settings.Setting, error) {
	variants, err := engine.ParseList(f.engines)
	if err != nil {
		return nil, nil, f.inputError("--engines: " + err.Error())
	}
	sets, err := settings.ParseList(f.settings)
	if err != nil {
		return nil, nil, f.inputError("--settings: " + err.Error())
	}
	return variants, sets, nil
}

// config returns the orchestrator's configuration of the study flags:
// --engines all becomes every variant built here, and objects and textLen
// size the workload's notes (0: the workload's). The command adds what it
// measures.
func (f studyFlags) config(ctx context.Context, o Options, objects, textLen int) (orchestrate.Config, error) {
	variants, sets, err := f.lists()
	if err != nil {
		return orchestrate.Config{}, err
	}
	if f.engines == "all" {
		if variants = builtVariants(ctx, o, f.binDir); len(variants) == 0 {
			return orchestrate.Config{}, f.inputError(fmt.Sprintf("no engine is built in %s: run 'make build'", f.binDir))
		}
	}
	wl, err := workload.Lookup(f.workload, objects, textLen)
	if err == nil {
		wl.Data, err = datasource.Choose(f.data)
	}
	if err != nil {
		return orchestrate.Config{}, f.inputError(err.Error())
	}
	wl.Dims, wl.TopicPool, wl.Spread = f.dims, f.pool, f.spreadValue()
	procs, auto, err := f.procsValue()
	if err != nil {
		return orchestrate.Config{}, err
	}
	return orchestrate.Config{
		Procs:     procs,
		AutoProcs: auto,
		Variants:  variants,
		Settings:  sets,
		Fresh:     f.fresh,
		Workload:  wl,
		// 1 is no oversampling, recorded as before the flag (0).
		KNNOversample: oversampleValue(f.oversample),
		Root:          f.root,
		Out:           f.out,
		Keep:          f.keep,
		BinDir:        f.binDir,
		Postgres:      f.postgres,
		SqldMaxActive: f.sqldPool,
		MaxLoad:       f.maxLoad,
		Gate:          orchestrate.Gate(f.gate),
		LoadWait:      f.loadWait,
		StallLimit:    f.stall,
		Version:       o.Version,
		Env:           o.Environ,
		Log:           o.Stderr,
	}, nil
}

// run runs the study of cfg, prints its tables and says on stderr where
// its records are. A study that ran to its end with failed phases prints
// its tables too and returns orchestrate.Failed.
func (f studyFlags) run(ctx context.Context, o Options, cfg orchestrate.Config) error {
	if err := f.prepareData(o, &cfg); err != nil {
		return err
	}
	id, err := orchestrate.Run(ctx, cfg)
	var inputErr *job.InputError
	if errors.As(err, &inputErr) {
		return fmt.Errorf("%s: %w", f.cmd, err)
	}
	var failed *orchestrate.Failed
	if err != nil && !errors.As(err, &failed) {
		return err
	}
	if terr := printStudy(o, cfg.Out, id); terr != nil {
		return terr
	}
	fmt.Fprintf(o.Stderr, "records of %s %s are in %s\n", f.kind, id, cfg.Out)
	return err
}

// prepareData makes the corpus of the study's data source: see
// prepareWorkload.
func (f studyFlags) prepareData(o Options, cfg *orchestrate.Config) error {
	if err := prepareWorkload(o, f.binDir, &cfg.Workload, cfg.Stores); err != nil {
		return f.inputError(err.Error())
	}
	return nil
}

// prepareWorkload makes the corpus of a data source read from files
// before a study starts its workers (once: it is kept in
// datasource.CacheDir), checks that each of stores stores can be filled
// from it, and names it in wl by its version and the SHA-256 of its
// inputs. Its files are in third_party beside binDir, as make build puts
// them.
func prepareWorkload(o Options, binDir string, wl *workload.Spec, stores int) error {
	d, err := datasource.Prepare(datasource.Prep{
		Spec:       *wl,
		Stores:     stores,
		ThirdParty: filepath.Join(binDir, "..", "third_party"),
		Progress:   o.Stderr,
	})
	if err != nil {
		return err
	}
	wl.Data = d
	return nil
}

// builtVariants returns the variants built in binDir, in catalog order,
// and says on stderr which were left out and why: "all" means every
// engine that builds here.
func builtVariants(ctx context.Context, o Options, binDir string) []string {
	statuses, _ := orchestrate.ListEngines(ctx, o.Catalog, binDir, o.Environ)
	var built []string
	for _, s := range statuses {
		if s.State == orchestrate.EngineBuilt {
			built = append(built, s.Variant)
			continue
		}
		fmt.Fprintf(o.Stderr, "skipping %s (%s): %s\n", s.Variant, s.State, s.Detail)
	}
	return built
}

// hold is the number of stores the hold phase holds open when not told:
// min(holdCap, stores), at least one.
func (f studyFlags) hold(stores int) int {
	return min(f.holdCap, max(stores, 1))
}

// inputError is a bad-input error naming the command.
func (f studyFlags) inputError(msg string) error {
	return &job.InputError{Msg: f.cmd + ": " + msg}
}

func joinIDs() string {
	s := ""
	for i, id := range engine.AllVariants() {
		if i > 0 {
			s += ", "
		}
		s += id
	}
	return s
}

// printStudy prints the tables of one study, or of every study of one
// sweep, from the results file.
func printStudy(o Options, file, study string) error {
	recs, err := results.ReadFile(file)
	if err != nil {
		return err
	}
	var mine []results.Record
	for _, r := range recs {
		if r.Study == study || r.Sweep == study {
			mine = append(mine, r)
		}
	}
	fmt.Fprintln(o.Stdout)
	return report.Tables(o.Stdout, mine)
}

// spreadValue is --note-spread as the workload records it: 0 for the
// default, so that records of the default are those made before the flag.
func (f studyFlags) spreadValue() float64 {
	if f.spread == workload.NoteSpread {
		return 0
	}
	return f.spread
}

// oversampleValue is --knn-oversample as a study records it: 0 for 1 (no
// oversampling), so that its records are those made before the flag.
func oversampleValue(m int) int {
	if m == 1 {
		return 0
	}
	return m
}
