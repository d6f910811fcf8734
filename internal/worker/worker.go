// Package worker runs one phase of a study for one variant, in the worker
// process that links that variant's engine, and prints the phase's record
// as one JSON line on stdout. Diagnostics and progress go to stderr.
//
// The worker does all the timing; engine adapters never time themselves.
// Each timed span is two time.Now calls around the engine call and nothing
// else: notes are generated before the span, samples go into slices
// allocated before the loop, and the whole phase runs locked to one OS
// thread other than the process' first, so that cgo engines see one glibc
// malloc arena, a thread arena as in a Go application, never glibc's main
// one (the record's process.engine_thread says which; docs/benchmarks.md).
// Every phase but serve works through its stores in one loop (eachStore),
// which yields to Go's scheduler between stores, outside the spans, so
// that Go's sysmon leaves the engine's thread alone (docs/benchmarks.md,
// "Go's scheduler: the phase yields between stores").
//
// A worker is started by the orchestrator (internal/orchestrate) with
// flags that name the phase; see job.Job for their meaning.
package worker

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"manydb/internal/datasource"
	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/results"
)

// init keeps the main goroutine on the process' first thread, so that no
// other goroutine, and so no phase (see onOtherThread), ever runs there.
func init() { runtime.LockOSThread() }

// Main is a worker binary's whole main function: binary is its file name
// in the catalog (e.g. "worker-gokv") and each argument is the Factories of
// one adapter package linked into it. It checks that the adapters serve
// exactly the variants the catalog gives the binary's family, runs the
// phase the command line names and returns the process exit code.
func Main(binary string, adapters ...[]engine.Factory) int {
	var factories []engine.Factory
	for _, a := range adapters {
		factories = append(factories, a...)
	}
	if err := engine.CheckFamily(engine.Catalog(), binary, factories); err != nil {
		return Exit(err)
	}
	records, err := RecordChannel()
	if err != nil {
		return Exit(err)
	}
	return Exit(Run(os.Args[1:], records, os.Stderr, factories...))
}

// RecordChannel gives the record a channel of its own: it returns a
// private copy of standard output for the record and points file
// descriptor 1 at standard error, so that whatever an engine prints on
// stdout (ObjectBox's "[ERROR] Storage error" lines, say) goes to stderr
// and cannot corrupt the record. Call it before any engine is used.
func RecordChannel() (*os.File, error) {
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("keep a copy of stdout for the record: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("point stdout at stderr: %w", err)
	}
	return os.NewFile(uintptr(fd), "record"), nil
}

// Run parses the worker's command line and runs its phase with the
// variant it names, writing the record to stdout. With --list it prints
// instead, one JSON line per factory, what each variant answers (see
// Listing).
func Run(args []string, stdout, stderr io.Writer, factories ...engine.Factory) error {
	j, err := job.Parse(args, stderr, ids(factories))
	if err != nil {
		return err
	}
	if j.List {
		return list(stdout, factories)
	}
	return onOtherThread(func() error { return runPhase(j, stdout, stderr, factories) })
}

// ids returns the variant ids of factories.
func ids(factories []engine.Factory) []string {
	var out []string
	for _, f := range factories {
		out = append(out, f.ID)
	}
	return out
}

// onOtherThread runs f in a new goroutine locked to its OS thread, which
// is not the process' first while init's lock holds the main goroutine
// there. Engine calls on the first thread would allocate from glibc's main
// arena (brk), elsewhere from a thread arena (mmap, madvise); which one a
// Go scheduler picks would otherwise vary from process to process.
func onOtherThread(f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		errc <- f()
	}()
	return <-errc
}

// runPhase makes the job's variant, runs its phase and writes the record.
func runPhase(j job.Job, stdout, stderr io.Writer, factories []engine.Factory) error {
	if j.THPOff {
		// Before the engine exists, so every mapping it makes is covered.
		if err := unix.Prctl(unix.PR_SET_THP_DISABLE, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("disable transparent huge pages: %w", err)
		}
	}
	var factory engine.Factory
	for _, f := range factories {
		if f.ID == j.Variant {
			factory = f
		}
	}
	v, err := makeVariant(factory, j.Lean)
	if err != nil {
		return err
	}
	if c, ok := v.(engine.Closer); ok {
		defer c.CloseVariant()
	}
	rec, err := RunJob(j, v, stderr)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(rec)
}

// makeVariant makes the variant of factory f: with its engine's options
// for many open stores when lean is set, which it must then name
// (engine.Optioner); without, it must name none.
func makeVariant(f engine.Factory, lean bool) (engine.Variant, error) {
	mk := f.New
	if lean {
		if f.Lean == nil {
			return nil, fmt.Errorf("variant %s: the lean setting has no option for its engine (the catalog's NoLean says why; the orchestrator records n/a)", f.ID)
		}
		mk = f.Lean
	}
	v, err := mk()
	if err != nil {
		return nil, fmt.Errorf("variant %s: %w", f.ID, err)
	}
	if err := errors.Join(engine.CheckID(f.ID, v), engine.CheckShared(engine.Catalog(), v), engine.CheckSharedVectors(engine.Catalog(), v), engine.CheckSharedServe(engine.Catalog(), v), engine.CheckWAL(engine.Catalog(), v)); err != nil {
		return nil, err
	}
	if opts := options(v); lean != (len(opts) > 0) {
		if c, ok := v.(engine.Closer); ok {
			c.CloseVariant()
		}
		if lean {
			return nil, fmt.Errorf("variant %s: made for the lean setting, it names no engine option (engine.Optioner): it would measure the default again", f.ID)
		}
		return nil, fmt.Errorf("variant %s: made without the lean setting, it names engine options %v", f.ID, opts)
	}
	return v, nil
}

// options returns the engine options v names (engine.Optioner), or nil.
func options(v engine.Variant) map[string]string {
	if o, ok := v.(engine.Optioner); ok {
		return o.Options()
	}
	return nil
}

// list makes each variant, asks its id and releases it.
func list(stdout io.Writer, factories []engine.Factory) error {
	enc := json.NewEncoder(stdout)
	for _, f := range factories {
		l := job.Listing{ID: f.ID}
		v, err := f.New()
		switch {
		case errors.Is(err, engine.ErrDisabled):
			l.Disabled = err.Error()
		case err != nil:
			l.Error = err.Error()
		default:
			l.Answers = v.ID()
			if err := errors.Join(engine.CheckShared(engine.Catalog(), v), engine.CheckSharedVectors(engine.Catalog(), v), engine.CheckSharedServe(engine.Catalog(), v), engine.CheckWAL(engine.Catalog(), v)); err != nil {
				l.Error = err.Error()
			}
			if c, ok := v.(engine.Closer); ok {
				c.CloseVariant()
			}
		}
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	return nil
}

// RunJob runs the job's phase with variant v and returns its record, with
// the variant's and the worker's versions filled in. The orchestrator adds
// the study, setting, load and start time.
//
// A panic in the engine becomes an error that names the store being worked
// on, with the panic's stack written to stderr.
func RunJob(j job.Job, v engine.Variant, stderr io.Writer) (rec results.Record, err error) {
	start := time.Now()
	rec = results.Record{
		Variant:  j.Variant,
		Phase:    j.Phase,
		Status:   results.StatusOK,
		Workload: j.Workload,
		Stores:   j.Stores,
		Fanout:   j.Fanout,
		Versions: versions(v),
		// The options the lean setting set; none otherwise.
		EngineOptions: options(v),
	}
	if err := useServer(j, v, &rec); err != nil {
		return results.Record{}, fmt.Errorf("%s %s: %w", j.Variant, j.Phase, err)
	}
	connected := time.Now() // a server's connection and its ANALYZE of new tables: untimed engine calls
	if err := errors.Join(prepareVectors(j, v, &rec), useWAL(j, v, &rec)); err != nil {
		return results.Record{}, fmt.Errorf("%s %s: %w", j.Variant, j.Phase, err)
	}
	if j.Phase == job.PhaseVersions {
		return rec, nil
	}
	alloc, err := checkProcess(j)
	if err != nil {
		return results.Record{}, fmt.Errorf("%s %s: %w", j.Variant, j.Phase, err)
	}
	alloc.record(rec.Versions)
	// Every phase stays on one OS thread (Run's, not the process' first):
	// a cgo engine allocates from one glibc arena.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	loop := newStoreLoop(j, stderr)
	loop.spent.SpawnS = sinceSpawn(os.Getenv(job.SpawnedEnv), start)
	loop.spent.UntimedS += connected.Sub(start).Seconds()
	loop.status = openStatus(os.Getenv(job.StatusEnv))
	defer loop.status.close()
	data, err := openData(j, &rec, &loop.spent)
	if err != nil {
		return results.Record{}, fmt.Errorf("%s %s: %w", j.Variant, j.Phase, err)
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "panic: %v\n%s", r, debug.Stack())
			err = fmt.Errorf("panic: %v", r)
			if loop.store >= 0 {
				err = &StoreError{Index: loop.store, Dir: storeDir(j, loop.store), Step: "the engine panicked", Err: err}
			}
			err = fmt.Errorf("%s %s: %w", j.Variant, j.Phase, err)
			rec = results.Record{}
		}
	}()
	stopCPU, err := startCPUProfile(j.CPUProfile)
	if err != nil {
		return results.Record{}, err
	}
	gc := startGCCount()
	setRepeat(j, &rec)
	t := time.Now()
	v, closeShared, err := withLayout(j, v, &rec) // a shared store's open: an untimed engine call
	spend(&loop.spent.UntimedS, t)
	if err != nil {
		return results.Record{}, fmt.Errorf("%s %s: %w", j.Variant, j.Phase, err)
	}
	retries := countRetries(v)
	err = errors.Join(phaseFunc(j.Phase)(j, v, data, &rec, loop), closeShared())
	rec.Retries = retries()
	if cerr := stopCPU(); err == nil {
		err = cerr
	}
	if err != nil {
		return results.Record{}, fmt.Errorf("%s %s: %w", j.Variant, j.Phase, err)
	}
	rec.Go = gc.stop()
	rec.Process = processSettings(j.Phase)
	spend(&loop.spent.RunS, start)
	rec.WorkerTime = &loop.spent
	return rec, nil
}

// countRetries returns how many requests v's client has sent again
// since countRetries was called (engine.Retrier; always 0 for a variant
// that never retries).
func countRetries(v engine.Variant) func() int {
	r, ok := base(v).(engine.Retrier)
	if !ok {
		return func() int { return 0 }
	}
	before := r.Retries()
	return func() int { return int(r.Retries() - before) }
}

// checkProcess checks, before a phase measures anything, that the process
// is the one the job asks for: its allocator, the setting's environment
// and a valid test open delay.
func checkProcess(j job.Job) (Allocator, error) {
	alloc, err := checkAllocator(j.Allocator)
	if err == nil {
		err = checkEnv(j.Env, os.Getenv)
	}
	if err == nil {
		_, err = job.ParseTestOpenDelay(os.Getenv(job.TestOpenDelayEnv))
	}
	return alloc, err
}

// openData opens the job's data source, once per worker, and names it in
// the record as it was loaded (the zero workload.Data for synthetic); the
// time it takes is the worker's DataS.
func openData(j job.Job, rec *results.Record, spent *results.WorkerTime) (datasource.Source, error) {
	defer spend(&spent.DataS, time.Now())
	data, err := datasource.Open(j.Workload)
	if err != nil {
		return nil, err
	}
	if err := datasource.Ready(data, j.Stores); err != nil {
		return nil, err
	}
	rec.Workload.Data = data.Info()
	return data, nil
}

// sinceSpawn is the time from spawned, the orchestrator's clock when it
// started this process (job.SpawnedEnv, Unix nanoseconds), to start, in
// seconds: 0 without it, and 0 where a step of the wall clock between the
// two would make it negative.
func sinceSpawn(spawned string, start time.Time) float64 {
	ns, err := strconv.ParseInt(spawned, 10, 64)
	if err != nil {
		return 0
	}
	return max(0, start.Sub(time.Unix(0, ns)).Seconds())
}

// prepareVectors, for a workload with embeddings, records the variant's
// vector search and prepares the engine for them (engine.VectorPreparer);
// without embeddings it leaves the options of a vector index out of the
// record (engine.VectorOptioner), as they set nothing.
func prepareVectors(j job.Job, v engine.Variant, rec *results.Record) error {
	if j.Workload.Dims == 0 {
		if vo, ok := v.(engine.VectorOptioner); ok {
			// A copy: Options may return the variant's own map.
			rec.EngineOptions = maps.Clone(rec.EngineOptions)
			for k := range vo.VectorOptions() {
				delete(rec.EngineOptions, k)
			}
		}
		return nil
	}
	if _, err := vectorVariant(v); err != nil {
		return err
	}
	search, err := searchOf(j, v)
	if err != nil {
		return err
	}
	rec.VectorSearch, rec.VectorExact = search.Method, search.Exact
	if p, ok := v.(engine.VectorPreparer); ok {
		if err := p.PrepareVectors(); err != nil {
			return fmt.Errorf("prepare the engine for embeddings: %w", err)
		}
	}
	return nil
}

// useServer gives a variant whose stores live in a server
// (engine.ServerVariant) the job's server, and records the server's
// versions; a job with a server for another variant, or none for one, is
// an error.
func useServer(j job.Job, v engine.Variant, rec *results.Record) error {
	sv, ok := v.(engine.ServerVariant)
	switch {
	case !ok && j.Server == "", ok && j.Server == "" && j.Phase == job.PhaseVersions:
		return nil
	case !ok:
		return fmt.Errorf("variant %s keeps its stores in files, not in a server: --server is not for it", v.ID())
	case j.Server == "":
		return fmt.Errorf("variant %s keeps its stores in a database server: give its address (--server)", v.ID())
	}
	if err := sv.UseServer(j.Server); err != nil {
		return err
	}
	rec.Versions = versions(v)
	return nil
}

// useWAL, under the wal setting, puts the variant's stores in SQLite's
// WAL journal mode (engine.WALVariant) and records the option.
func useWAL(j job.Job, v engine.Variant, rec *results.Record) error {
	if !j.WAL {
		return nil
	}
	wv, ok := v.(engine.WALVariant)
	if !ok {
		return fmt.Errorf("variant %s cannot set the WAL journal mode (engine.WALVariant); the catalog's NoWAL should say why", v.ID())
	}
	rec.EngineOptions = maps.Clone(rec.EngineOptions)
	if rec.EngineOptions == nil {
		rec.EngineOptions = map[string]string{}
	}
	maps.Copy(rec.EngineOptions, wv.UseWAL())
	return nil
}

// phaseFunc returns the function that runs phase, a worker phase other
// than versions.
func phaseFunc(phase job.Phase) func(job.Job, engine.Variant, datasource.Source, *results.Record, *storeLoop) error {
	switch phase {
	case job.PhaseCreate:
		return create
	case job.PhaseOpen:
		return openRun
	case job.PhaseTurn:
		return turn
	case job.PhaseServe:
		return serveRun
	case job.PhaseHold:
		return hold
	case job.PhaseSpace:
		return space
	case job.PhaseProfile:
		return profile
	case job.PhaseDelete:
		return deleteAgents
	}
	return func(job.Job, engine.Variant, datasource.Source, *results.Record, *storeLoop) error {
		return fmt.Errorf("no phase %q in the worker", phase)
	}
}

// setRepeat fills in the record's repetition (an open or turn run, a pool
// size's step, one of several hold counts) and, for the phases that visit
// the stores in a seeded order, the seed.
func setRepeat(j job.Job, rec *results.Record) {
	switch j.Phase {
	case job.PhaseOpen, job.PhaseTurn, job.PhaseServe:
		rec.SetRepeat(j.Run)
		rec.Seed = j.Seed
	case job.PhaseHold:
		rec.SetRepeat(j.Run)
	case job.PhaseDelete:
		rec.Seed = j.Seed
	}
}

// processSettings records what the process saw of its setting, whether
// the phase ran on the process' first thread (engine_thread main, glibc's
// main arena) or another (other), and how often it yielded between stores
// (yield_every; not for serve, whose requests run on goroutines of their
// own that block and are rescheduled anyway). Called on the phase's
// thread.
func processSettings(phase job.Phase) map[string]string {
	out := map[string]string{"engine_thread": "other"}
	if phase != job.PhaseServe {
		out["yield_every"] = yieldEvery.String()
	}
	if unix.Gettid() == unix.Getpid() {
		out["engine_thread"] = "main"
	}
	for _, name := range results.MallocVars() {
		if v, ok := os.LookupEnv(name); ok {
			out[name] = v
		}
	}
	if v, err := measure.THPEnabled(); err == nil {
		out["thp_enabled"] = v
	}
	return out
}

// versions joins the variant's library versions with the Go module
// versions the worker was built with.
func versions(v engine.Variant) map[string]string {
	out := map[string]string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		out["go"] = bi.GoVersion
		for _, d := range bi.Deps {
			if d.Replace != nil {
				d = d.Replace
			}
			out[d.Path] = d.Version
		}
	}
	for k, val := range v.Versions() {
		out[k] = val
	}
	return out
}

// gcCount reads the Go runtime's collection count and pause total at the
// start and end of a phase (runtime.ReadMemStats, outside timed spans).
type gcCount struct {
	num   uint32
	pause uint64
}

func startGCCount() gcCount {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return gcCount{ms.NumGC, ms.PauseTotalNs}
}

func (g gcCount) stop() *results.GoStats {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return &results.GoStats{GCs: uint64(ms.NumGC - g.num), PauseMs: float64(ms.PauseTotalNs-g.pause) / 1e6}
}

// startCPUProfile starts a pprof CPU profile into file, if one is named,
// and returns the function that stops it and closes the file.
func startCPUProfile(file string) (stop func() error, err error) {
	if file == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("--cpuprofile: write %s: %w", file, err)
		}
		return nil
	}, nil
}

// Exit prints err, if any, on stderr as the worker's last line ("error: …",
// which the orchestrator quotes in a failed record) and returns the process
// exit code: 0 for none or --help, 1 otherwise.
func Exit(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	fmt.Fprintf(os.Stderr, "error: %v\n", err)
	return 1
}
