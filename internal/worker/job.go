package worker

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"manydb/internal/engine"
	"manydb/internal/results"
	"manydb/internal/serve"
	"manydb/internal/workload"
)

// PhaseVersions is the worker's phase that only reports the engine's and
// the worker's versions (no stores).
const PhaseVersions = "versions"

// Job is one phase for one variant, as given on the worker's command line.
type Job struct {
	Variant  string        // variant id
	Phase    string        // create, open, hold, space, turn, serve, profile or versions
	Dir      string        // the directory holding this variant's stores
	Stores   int           // number of stores (000000 … Stores-1)
	Workload workload.Spec // what each store holds
	Run      int           // open: run number 1..R
	Seed     uint64        // open: seed of the run's random store order
	Hold     int           // hold: stores to keep open
	// Fanout is the store directories' layout: 0 is flat (dir/001234),
	// f > 0 nests them f levels deep by the last 2f digits of the name
	// (--fanout 2: dir/12/34/001234).
	Fanout int
	// Queries are an open run's queries in order (QueryCount … QueryScan);
	// nil means count alone, the reference's query.
	Queries []string
	// Cache is an open run's cache mode: CacheWarm or CacheCold (evict each
	// store's files before its open). CacheDrop is recorded as given; the
	// orchestrator drops the caches before the worker starts.
	Cache string
	// Prewarm, for a warm open run, reads every store's files once before
	// the run (untimed), so that its stores are in the page cache as their
	// create left them: a sweep's smaller count uses stores that the larger
	// counts' runs may have pushed out of the cache.
	Prewarm bool
	// Appended is the number of notes the turn phase appended to every
	// store before this phase (0 before the first turn run).
	Appended int
	// Serve is the serve phase's traffic (manydb serve).
	Serve ServeJob
	// Cgroup is a fresh memory cgroup (its directory) the hold worker moves
	// itself into, to report what it is charged.
	Cgroup   string
	Progress bool // print progress lines on stderr
	THPOff   bool // disable transparent huge pages before the engine starts
	List     bool // print the variants served (see Listing) instead of running a phase
	// Allocator, when set, is the malloc the phase must run with (glibc,
	// jemalloc, mimalloc, tcmalloc: settings.Setting.Malloc); the phase
	// fails before it measures anything when the process has another.
	Allocator string
	// CPUProfile, when set, is a file for a pprof CPU profile of the
	// create or profile phase's loop.
	CPUProfile string
}

// Args returns the worker command line for j, which parseJob reads back as
// j: a flag for each field that is set. The three workload flags go
// together and are left out only when Workload is zero (the parser's
// defaults then apply, as for the versions phase). The orchestrator starts
// every worker with it.
func (j Job) Args() []string {
	var args []string
	str := func(flag, v string) {
		if v != "" {
			args = append(args, flag, v)
		}
	}
	num := func(flag string, v int) {
		if v != 0 {
			args = append(args, flag, strconv.Itoa(v))
		}
	}
	boolean := func(flag string, v bool) {
		if v {
			args = append(args, flag)
		}
	}
	str("--variant", j.Variant)
	str("--phase", j.Phase)
	str("--dir", j.Dir)
	num("--stores", j.Stores)
	if j.Workload != (workload.Spec{}) {
		args = append(args, "--workload", j.Workload.Name,
			"--objects", strconv.Itoa(j.Workload.Objects),
			"--text-len", strconv.Itoa(j.Workload.TextLen))
	}
	boolean("--progress", j.Progress)
	boolean("--thp-off", j.THPOff)
	str("--allocator", j.Allocator)
	num("--run", j.Run)
	if j.Seed != 0 {
		args = append(args, "--seed", strconv.FormatUint(j.Seed, 10))
	}
	num("--hold", j.Hold)
	num("--fanout", j.Fanout)
	if len(j.Queries) > 0 {
		args = append(args, "--queries", strings.Join(j.Queries, ","))
	}
	str("--cache", j.Cache)
	boolean("--prewarm", j.Prewarm)
	num("--appended", j.Appended)
	str("--cgroup", j.Cgroup)
	if j.Phase == results.PhaseServe {
		args = append(args, "--pool", strconv.Itoa(j.Serve.Pool), "--requests", strconv.Itoa(j.Serve.Requests),
			"--concurrency", strconv.Itoa(j.Serve.Concurrency), "--zipf", strconv.FormatFloat(j.Serve.Zipf, 'g', -1, 64))
		if j.Serve.Rate > 0 {
			args = append(args, "--rate", strconv.FormatFloat(j.Serve.Rate, 'g', -1, 64))
		}
	}
	str("--cpuprofile", j.CPUProfile)
	boolean("--list", j.List)
	return args
}

func parseJob(args []string, stderr io.Writer, factories []engine.Factory) (Job, error) {
	var ids []string
	for _, f := range factories {
		ids = append(ids, f.ID)
	}
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s --variant ID --phase PHASE [flags]\n\n"+
			"A manydb worker runs one phase of a study for one variant (%s).\n"+
			"It is started by 'manydb run'; you rarely start it yourself.\n\n",
			filepath.Base(os.Args[0]), strings.Join(ids, ", "))
		fs.PrintDefaults()
	}
	var j Job
	fs.StringVar(&j.Variant, "variant", "", "variant id")
	fs.StringVar(&j.Phase, "phase", "", "create, open, hold, space, profile or versions")
	fs.StringVar(&j.Dir, "dir", "", "directory of this variant's stores")
	fs.IntVar(&j.Stores, "stores", 0, "number of stores")
	fs.StringVar(&j.Workload.Name, "workload", "large", "workload name, as recorded")
	fs.IntVar(&j.Workload.Objects, "objects", 1000, "notes per store")
	fs.IntVar(&j.Workload.TextLen, "text-len", 300, "text length of a note")
	fs.IntVar(&j.Run, "run", 0, "open: run number")
	fs.Uint64Var(&j.Seed, "seed", 0, "open: seed of the store order")
	fs.IntVar(&j.Hold, "hold", 0, "hold: stores to keep open")
	fs.IntVar(&j.Fanout, "fanout", 0, "store directory levels: 0 flat (dir/001234), 2 nested by the name's last digits (dir/12/34/001234)")
	queries := fs.String("queries", "", "open: the queries to make, in order ("+strings.Join(queryNames(), ",")+"; default count)")
	fs.StringVar(&j.Cache, "cache", "", "open: cold evicts each store's files from the page cache before its open; drop is recorded as given")
	fs.BoolVar(&j.Prewarm, "prewarm", false, "open (warm): read every store's files once before the run, untimed")
	fs.IntVar(&j.Appended, "appended", 0, "notes appended to every store by earlier turn runs")
	fs.IntVar(&j.Serve.Pool, "pool", 0, "serve: open stores kept between requests")
	fs.IntVar(&j.Serve.Requests, "requests", 0, "serve: recorded requests")
	fs.IntVar(&j.Serve.Concurrency, "concurrency", 0, "serve: goroutines sending requests")
	fs.Float64Var(&j.Serve.Zipf, "zipf", 0, "serve: Zipf exponent of the agents")
	fs.Float64Var(&j.Serve.Rate, "rate", 0, "serve: requests per second (open loop; 0: closed loop)")
	fs.StringVar(&j.Cgroup, "cgroup", "", "hold: a fresh memory cgroup to move into and report the charge of")
	fs.BoolVar(&j.Progress, "progress", false, "print progress lines on stderr")
	fs.StringVar(&j.CPUProfile, "cpuprofile", "", "create, profile: write a pprof CPU profile of the phase to this file")
	fs.BoolVar(&j.List, "list", false, "print each variant this worker serves and what its ID() answers, then exit")
	fs.BoolVar(&j.THPOff, "thp-off", false, "disable transparent huge pages (prctl PR_SET_THP_DISABLE) before the engine starts")
	fs.StringVar(&j.Allocator, "allocator", "", "fail unless malloc in this process is this allocator's (glibc, jemalloc, mimalloc, tcmalloc)")
	if err := fs.Parse(args); err != nil {
		return Job{}, err
	}
	if fs.NArg() > 0 {
		return Job{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *queries != "" {
		j.Queries = strings.Split(*queries, ",")
	}
	if j.List {
		return j, nil
	}
	known := false
	for _, id := range ids {
		known = known || id == j.Variant
	}
	if !known {
		return Job{}, fmt.Errorf("--variant %q: this worker serves %s", j.Variant, strings.Join(ids, ", "))
	}
	return j, j.validate()
}

func (j Job) validate() error {
	switch j.Phase {
	case results.PhaseCreate, results.PhaseOpen, results.PhaseHold, results.PhaseSpace, results.PhaseTurn, results.PhaseProfile, results.PhaseServe:
	case PhaseVersions:
		return nil
	default:
		return fmt.Errorf("--phase %q: use create, open, hold, space, turn, serve, profile or versions", j.Phase)
	}
	if _, err := ParseQueries(strings.Join(j.Queries, ",")); len(j.Queries) > 0 && err != nil {
		return err
	}
	switch j.Cache {
	case CacheWarm, CacheCold, CacheDrop:
	default:
		return fmt.Errorf("--cache %q: use cold or drop (or leave it out for warm)", j.Cache)
	}
	if j.Phase == results.PhaseServe {
		c := serve.Config{Stores: j.Stores, Requests: j.Serve.Requests, Concurrency: j.Serve.Concurrency, Pool: j.Serve.Pool, Zipf: j.Serve.Zipf, Rate: j.Serve.Rate}
		if err := c.Validate(); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
	}
	if j.Appended < 0 {
		return fmt.Errorf("--appended %d: must not be negative", j.Appended)
	}
	if j.CPUProfile != "" && j.Phase != results.PhaseCreate && j.Phase != results.PhaseProfile {
		return fmt.Errorf("--cpuprofile is for the create and profile phases, not %s", j.Phase)
	}
	switch {
	case j.Dir == "":
		return errors.New("--dir is required")
	case j.Stores < 1:
		return fmt.Errorf("--stores %d: need at least one store", j.Stores)
	case j.Workload.Objects < 1:
		return fmt.Errorf("--objects %d: need at least one note per store", j.Workload.Objects)
	case (j.Phase == results.PhaseOpen || j.Phase == results.PhaseTurn || j.Phase == results.PhaseServe) && j.Seed == 0:
		return fmt.Errorf("--seed is required for the %s phase (1, 2, …)", j.Phase)
	case j.Fanout < 0 || j.Fanout > MaxFanout:
		return fmt.Errorf("--fanout %d: use 0 (flat) to %d levels", j.Fanout, MaxFanout)
	case j.Phase == results.PhaseHold && (j.Hold < 1 || j.Hold > j.Stores):
		return fmt.Errorf("--hold %d: hold between 1 and --stores (%d) stores", j.Hold, j.Stores)
	}
	return nil
}

// queries returns the job's queries, count alone when none are given.
func (j Job) queries() []string {
	if len(j.Queries) == 0 {
		return []string{QueryCount}
	}
	return j.Queries
}

// ParseQueries reads a --queries list: known queries, each at most once.
func ParseQueries(s string) ([]string, error) {
	var out []string
	for _, q := range strings.Split(s, ",") {
		switch {
		case !slices.Contains(queryNames(), q):
			return nil, fmt.Errorf("--queries: unknown query %q: use %s, comma-separated, in the order to run them", q, strings.Join(queryNames(), ", "))
		case slices.Contains(out, q):
			return nil, fmt.Errorf("--queries: %s is listed twice", q)
		}
		out = append(out, q)
	}
	return out, nil
}
