package job

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

	"manydb/internal/datasource"
	"manydb/internal/workload"
)

// Args returns the worker command line for j, which Parse reads back as
// j: a flag for each field that is set. The three workload flags
// (--workload, --objects, --text-len) go together and are left out only
// when Workload is zero (the parser's defaults then apply, as for the
// versions phase). The orchestrator starts every worker with it.
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
	str("--phase", string(j.Phase))
	str("--dir", j.Dir)
	num("--stores", j.Stores)
	if j.Workload != (workload.Spec{}) {
		args = append(args, "--workload", j.Workload.Name,
			"--objects", strconv.Itoa(j.Workload.Objects),
			"--text-len", strconv.Itoa(j.Workload.TextLen))
		str("--data", j.Workload.Data.Name)
		str("--data-version", j.Workload.Data.Version)
		str("--data-sha256", j.Workload.Data.SHA256)
		num("--dims", j.Workload.Dims)
		num("--topic-pool", j.Workload.TopicPool)
		boolean("--split", j.Workload.Split)
		num("--knn-oversample", j.KNNOversample)
		if j.Workload.Spread != 0 {
			args = append(args, "--note-spread", strconv.FormatFloat(j.Workload.Spread, 'g', -1, 64))
		}
	}
	boolean("--progress", j.Progress)
	boolean("--thp-off", j.THPOff)
	boolean("--lean", j.Lean)
	boolean("--wal", j.WAL)
	str("--allocator", string(j.Allocator))
	for _, e := range j.Env {
		args = append(args, "--env", e)
	}
	num("--run", j.Run)
	if j.Seed != 0 {
		args = append(args, "--seed", strconv.FormatUint(j.Seed, 10))
	}
	num("--hold", j.Hold)
	num("--procs", j.Procs)
	num("--proc", j.Proc)
	num("--fanout", j.Fanout)
	num("--deletes", j.Deletes)
	str("--layout", j.Layout.Label())
	if len(j.Queries) > 0 {
		args = append(args, "--queries", JoinNames(j.Queries, ","))
	}
	str("--cache", string(j.Cache))
	boolean("--prewarm", j.Prewarm)
	num("--appended", j.Appended)
	str("--cgroup", j.Cgroup)
	str("--server", j.Server)
	if j.Phase == PhaseServe {
		args = append(args, "--pool", strconv.Itoa(j.Serve.Pool), "--requests", strconv.Itoa(j.Serve.Requests),
			"--concurrency", strconv.Itoa(j.Serve.Concurrency), "--zipf", strconv.FormatFloat(j.Serve.Zipf, 'g', -1, 64))
		if j.Serve.Rate > 0 {
			args = append(args, "--rate", strconv.FormatFloat(j.Serve.Rate, 'g', -1, 64))
		}
		if j.Serve.PoolTime > 0 {
			args = append(args, "--pool-time", j.Serve.PoolTime.String())
		}
	}
	str("--cpuprofile", j.CPUProfile)
	boolean("--list", j.List)
	return args
}

// Parse reads a worker's command line (what Args wrote) for a worker that
// serves the variants ids; errors and --help go to stderr.
func Parse(args []string, stderr io.Writer, ids []string) (Job, error) {
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
	var phase, queries, cache, allocator, layout string
	fs.StringVar(&j.Variant, "variant", "", "variant id")
	fs.StringVar(&phase, "phase", "", JoinNames(WorkerPhases(), ", "))
	fs.StringVar(&j.Dir, "dir", "", "directory of this variant's stores")
	fs.IntVar(&j.Stores, "stores", 0, "number of stores")
	large, _ := workload.Lookup("large", 0, 0) // the default, as in manydb run
	fs.StringVar(&j.Workload.Name, "workload", large.Name, "workload name, as recorded")
	fs.IntVar(&j.Workload.Objects, "objects", large.Objects, "notes per store")
	fs.IntVar(&j.Workload.TextLen, "text-len", large.TextLen, "text length of a note")
	fs.StringVar(&j.Workload.Data.Name, "data", "", "the notes' data source, one of "+strings.Join(datasource.Names(), ", ")+" (default synthetic)")
	fs.StringVar(&j.Workload.Data.Version, "data-version", "", "the data source's version the job's stores were made with, checked when it is loaded")
	fs.StringVar(&j.Workload.Data.SHA256, "data-sha256", "", "the SHA-256 of the data source's content the job's stores were made with, checked when it is loaded")
	fs.IntVar(&j.Workload.Dims, "dims", 0, "values per note embedding (0: notes without embeddings)")
	fs.IntVar(&j.Workload.TopicPool, "topic-pool", 0, "topic centres all agents draw from (0: each agent its own)")
	fs.Float64Var(&j.Workload.Spread, "note-spread", 0, "noise around a note's topic centre (0: the default)")
	fs.BoolVar(&j.Workload.Split, "split", false, "a corpus' items divided among the job's stores, none in two (manydb sweep)")
	fs.Func("env", "NAME=value the setting gives the worker's environment (repeated); the worker fails when one is not there", func(e string) error {
		j.Env = append(j.Env, e)
		return nil
	})
	fs.IntVar(&j.Run, "run", 0, "the repetition: open or turn run, hold count or pool size (1, 2, …)")
	fs.Uint64Var(&j.Seed, "seed", 0, "open, turn, serve: seed of the store order")
	fs.IntVar(&j.Hold, "hold", 0, "hold: stores to keep open")
	fs.IntVar(&j.Procs, "procs", 0, "hold: worker processes the held stores are split over (0, 1: this one)")
	fs.IntVar(&j.Proc, "proc", 0, "hold: this worker's process number, 0 … --procs - 1: its share of the held stores")
	fs.IntVar(&j.Fanout, "fanout", 0, "store directory levels: 0 flat (dir/001234), 2 nested by the name's last digits (dir/12/34/001234)")
	fs.StringVar(&layout, "layout", "", "shared: every agent's notes in one store (SharedDir), keyed by agent; default a store per agent")
	fs.StringVar(&queries, "queries", "", "open: the queries to make, in order ("+JoinNames(Queries(), ",")+"; default count)")
	fs.StringVar(&cache, "cache", "", "open: cold evicts each store's files from the page cache before its open; drop is recorded as given")
	fs.BoolVar(&j.Prewarm, "prewarm", false, "a warm run (open warm, turn, serve without a memory limit): read every store's files once before it, untimed")
	fs.IntVar(&j.KNNOversample, "knn-oversample", 0, "an approximate knn asks for this many times 10 notes and keeps the first 10 (0, 1: 10)")
	fs.IntVar(&j.Deletes, "deletes", 0, "delete: agents to export and delete (0: one in 10)")
	fs.IntVar(&j.Appended, "appended", 0, "notes appended to every store by earlier turn runs")
	fs.IntVar(&j.Serve.Pool, "pool", 0, "serve: open stores kept between requests")
	fs.IntVar(&j.Serve.Requests, "requests", 0, "serve: recorded requests")
	fs.IntVar(&j.Serve.Concurrency, "concurrency", 0, "serve: goroutines sending requests")
	fs.Float64Var(&j.Serve.Zipf, "zipf", 0, "serve: Zipf exponent of the agents")
	fs.Float64Var(&j.Serve.Rate, "rate", 0, "serve: requests per second (open loop; 0: closed loop)")
	fs.DurationVar(&j.Serve.PoolTime, "pool-time", 0, "serve: stop early once this much time has passed (0: no limit)")
	fs.StringVar(&j.Server, "server", "", "the database server the stores live in: a connection string naming the database (PostgreSQL)")
	fs.StringVar(&j.Cgroup, "cgroup", "", "hold, serve: a fresh memory cgroup to move into (hold: to report its charge; serve: to run under its limit)")
	fs.BoolVar(&j.Progress, "progress", false, "print progress lines on stderr")
	fs.StringVar(&j.CPUProfile, "cpuprofile", "", "create, profile: write a pprof CPU profile of the phase to this file")
	fs.BoolVar(&j.List, "list", false, "print each variant this worker serves and what its ID() answers, then exit")
	fs.BoolVar(&j.THPOff, "thp-off", false, "disable transparent huge pages (prctl PR_SET_THP_DISABLE) before the engine starts")
	fs.BoolVar(&j.Lean, "lean", false, "make the variant with its engine's options for many open stores (the lean setting), named in the record's engine_options")
	fs.BoolVar(&j.WAL, "wal", false, "open every store in SQLite's WAL journal mode (the wal setting), named in the record's engine_options")
	fs.StringVar(&allocator, "allocator", "", "fail unless malloc in this process is this allocator's ("+JoinNames(Allocators(), ", ")+")")
	if err := fs.Parse(args); err != nil {
		return Job{}, err
	}
	if fs.NArg() > 0 {
		return Job{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	j.Phase, j.Cache, j.Allocator, j.Layout = Phase(phase), CacheMode(cache), Allocator(allocator), Layout(layout)
	if queries != "" {
		for _, q := range strings.Split(queries, ",") {
			j.Queries = append(j.Queries, Query(q))
		}
	}
	if j.List {
		return j, nil
	}
	if !slices.Contains(ids, j.Variant) {
		return Job{}, fmt.Errorf("--variant %q: this worker serves %s", j.Variant, strings.Join(ids, ", "))
	}
	return j, j.Validate()
}

// Validate checks a job as a worker receives it.
func (j Job) Validate() error {
	switch {
	case j.Phase == PhaseVersions:
		return nil
	case !slices.Contains(WorkerPhases(), j.Phase):
		return fmt.Errorf("--phase %q: use %s", j.Phase, JoinNames(WorkerPhases(), ", "))
	}
	if len(j.Queries) > 0 {
		if _, err := ParseQueries(JoinNames(j.Queries, ",")); err != nil {
			return err
		}
	}
	if !slices.Contains(CacheModes(), j.Cache) {
		return fmt.Errorf("--cache %q: use cold or drop (or leave it out for warm)", j.Cache)
	}
	if err := CheckLayout("--layout", j.Layout); err != nil {
		return err
	}
	if j.Allocator != "" && !slices.Contains(Allocators(), j.Allocator) {
		return fmt.Errorf("--allocator %q: use %s", j.Allocator, JoinNames(Allocators(), ", "))
	}
	if j.Phase == PhaseServe {
		if err := j.Serve.Validate(j.Stores); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
	}
	if j.Deletes != 0 && j.Phase != PhaseDelete {
		return fmt.Errorf("--deletes is for the delete phase, not %s", j.Phase)
	}
	if err := CheckDeleteCount(j.Deletes, j.Stores); err != nil {
		return err
	}
	if j.Appended < 0 {
		return fmt.Errorf("--appended %d: must not be negative", j.Appended)
	}
	if j.CPUProfile != "" && j.Phase != PhaseCreate && j.Phase != PhaseProfile {
		return fmt.Errorf("--cpuprofile is for the create and profile phases, not %s", j.Phase)
	}
	if j.Dir == "" {
		return errors.New("--dir is required")
	}
	if (j.Phase == PhaseOpen || j.Phase == PhaseTurn || j.Phase == PhaseServe || j.Phase == PhaseDelete) && j.Seed == 0 {
		return fmt.Errorf("--seed is required for the %s phase (1, 2, …)", j.Phase)
	}
	return firstError(CheckStores(j.Stores), CheckWorkload(j.Workload), CheckQueries(j.Queries, j.Workload.Dims), CheckEnv(j.Env),
		CheckOversample(max(j.KNNOversample, 1), j.Workload.Dims), CheckFanout(j.Fanout), j.checkHold())
}

// checkHold checks the hold phase's count of stores to keep open and
// the processes of a hold or serve phase (no other is split).
func (j Job) checkHold() error {
	switch {
	case j.Phase == PhaseServe:
		if err := CheckProcs(j.Procs, j.Stores, "agents"); err != nil {
			return err
		}
	case j.Phase != PhaseHold:
		if j.Procs != 0 || j.Proc != 0 {
			return fmt.Errorf("--procs and --proc are for the hold and serve phases, not %s", j.Phase)
		}
		return nil
	default:
		if err := CheckHold(j.Hold, j.Stores); err != nil {
			return err
		}
		if err := CheckProcs(j.Procs, j.Hold, "held stores"); err != nil {
			return err
		}
	}
	if j.Proc < 0 || j.Proc >= max(j.Procs, 1) {
		return fmt.Errorf("--proc %d: a process number from 0 to --procs - 1 (%d)", j.Proc, max(j.Procs, 1)-1)
	}
	return nil
}

// firstError returns the first of errs that is not nil.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
