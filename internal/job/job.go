// Package job is the contract between manydb's orchestrator and its
// worker processes: the Job a worker runs and its command line (Args and
// Parse), the layout of a variant's store directories, the worker's
// --list output (Listing) and its progress lines, and the names of
// phases, queries, cache modes and allocators.
//
// It links no engine and no cgo, so the orchestrator (cmd/manydb) can
// import it without linking a worker.
package job

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"manydb/internal/workload"
)

// Job is one phase for one variant, as given on the worker's command line.
type Job struct {
	Variant  string        // variant id
	Phase    Phase         // a worker phase (WorkerPhases)
	Dir      string        // the directory holding this variant's stores
	Stores   int           // number of stores (000000 … Stores-1)
	Workload workload.Spec // what each store holds
	Run      int           // the repetition: open or turn run 1..R, hold count or pool size 1..n (results.Record.Repeat)
	Seed     uint64        // open, turn and serve: seed of the store order
	Hold     int           // hold: stores to keep open
	// Procs, above 1, splits a hold's stores or serve's agents over Procs
	// worker processes (--procs), each its own range of agents (HeldRange,
	// AgentRange), as a router by agent id would: this worker is process
	// Proc (0…Procs-1). A hold worker, once its stores are open and
	// measured, says so (HeldLine) and keeps them open until its stdin is
	// closed; a serve worker serves its agents' requests of the one
	// sequence, with its share of the pool and goroutines (Serve).
	Procs, Proc int
	// Fanout is the store directories' layout (StoreDir): 0 is flat
	// (dir/001234), f > 0 nests them f levels deep.
	Fanout int
	// Layout is LayoutShared for every agent's notes in one store
	// (SharedDir(Dir)), "" for a store per agent.
	Layout Layout
	// Queries are an open run's queries in order; nil means count alone,
	// the reference's query.
	Queries []Query
	// Cache is an open run's cache mode: CacheWarm or CacheCold (evict each
	// store's files before its open). CacheDrop is recorded as given; the
	// orchestrator drops the caches before the worker starts.
	Cache CacheMode
	// Prewarm, for a warm run (a warm open run, a turn run, serve without
	// a memory limit), reads every store's files once before the run
	// (untimed), so that its stores are in the page cache: the machine
	// may have evicted them since their create or the last run (the
	// orchestrator sets it for every warm run).
	Prewarm bool
	// Appended is the number of notes the turn phase appended to every
	// store before this phase (0 before the first turn run).
	Appended int
	// KNNOversample, above 1, makes an approximate knn ask its engine for
	// KNNOversample × vector.K notes and keep the first vector.K, as an
	// application does to make up for a filtered or lossy index
	// (--knn-oversample); 0 or 1: it asks for vector.K. An exact search
	// always asks for vector.K.
	KNNOversample int
	// Deletes is how many agents the delete phase exports and deletes
	// (--deletes); 0: DeleteAgents of the stores.
	Deletes int
	// Serve is the serve phase's traffic (manydb serve).
	Serve Serve
	// Cgroup is a fresh memory cgroup (its directory) the worker moves
	// itself into: the hold worker to report what it is charged, the
	// serve worker to run under its limit (serve --memory-max).
	Cgroup   string
	Progress bool // print progress lines on stderr (ProgressPrefix)
	THPOff   bool // disable transparent huge pages before the engine starts
	// Lean makes the variant with its engine's options for many open
	// stores (the lean setting: engine.Factory's Lean).
	Lean bool
	// WAL opens every store in SQLite's WAL journal mode (the wal
	// setting: engine.WALVariant).
	WAL bool
	// Server is the address of the database server the stores live in
	// (a libpq connection string naming the database), for a variant
	// whose stores are a server's (engine.ServerVariant); "" otherwise.
	Server string
	List   bool // print the variants served (see Listing) instead of running a phase
	// Allocator, when set, is the malloc the phase must run with; the
	// phase fails before it measures anything when the process has another.
	Allocator Allocator
	// Env is the setting's environment, NAME=value pairs (glibc's malloc
	// variables, an allocator's LD_PRELOAD): the orchestrator starts the
	// worker with them (Environ), and the worker fails before it measures
	// anything when one did not reach it. A setting reaches the worker
	// through the job alone: these, THPOff, Lean, WAL and Allocator.
	Env []string
	// CPUProfile, when set, is a file for a pprof CPU profile of the
	// create or profile phase's loop.
	CPUProfile string
}

// Serve is what the serve phase does besides the stores of Job.
type Serve struct {
	Pool        int     // open stores kept between requests
	Requests    int     // recorded requests
	Concurrency int     // goroutines sending requests
	Zipf        float64 // Zipf exponent of the agents
	Rate        float64 // requests per second (open loop; 0: closed loop)
	// PoolTime, when positive, stops the phase early once it has passed
	// since the warm-up began (serve.Config.TimeLimit).
	PoolTime time.Duration
}

// Environ is the environment to start the job's worker with: base (the
// orchestrator's) and then the job's Env, which wins over base.
func (j Job) Environ(base []string) []string {
	return append(slices.Clone(base), j.Env...)
}

// QueriesOrCount returns the job's queries, count alone when none are given.
func (j Job) QueriesOrCount() []Query {
	if len(j.Queries) == 0 {
		return []Query{QueryCount}
	}
	return j.Queries
}

// DeleteCount is how many agents the delete phase exports and deletes:
// Deletes, or by default DeleteAgents of the stores.
func (j Job) DeleteCount() int { return DeleteCountOf(j.Deletes, j.Stores) }

// Units is what the job's progress counts, and how many: the agents the
// delete phase exports and deletes, the stores a hold holds, serve's
// recorded requests (its worker's lines add the warm-up), or the stores
// the phase visits. The worker's progress lines and the orchestrator's
// bar and watchdog both use it.
func (j Job) Units() (total int, unit string) {
	switch j.Phase {
	case PhaseDelete:
		return j.DeleteCount(), "agent"
	case PhaseHold:
		lo, hi := j.HeldRange()
		return hi - lo, "store"
	case PhaseServe:
		return j.Serve.Requests, "request"
	}
	return j.Stores, "store"
}

// HeldRange is the hold's stores lo…hi-1 this worker holds: all Hold of
// them, or with Procs above 1 process Proc's share (Split).
func (j Job) HeldRange() (lo, hi int) { return Split(j.Hold, j.Procs, j.Proc) }

// AgentRange is the agents lo…hi-1 this worker serves: all the stores, or
// with Procs above 1 process Proc's share (Split).
func (j Job) AgentRange() (lo, hi int) { return Split(j.Stores, j.Procs, j.Proc) }

// Split is part k of n things split into parts consecutive ranges as
// even as can be, as a router by agent id splits agents over processes:
// lo…hi-1. parts 0 or 1 is all of them.
func Split(n, parts, k int) (lo, hi int) {
	if parts <= 1 {
		return 0, n
	}
	return n * k / parts, n * (k + 1) / parts
}

// Listing is what a worker's --list prints for each variant it serves.
type Listing struct {
	ID string `json:"id"`
	// Answers is what the variant's ID() returns; empty when it could not
	// be made.
	Answers string `json:"answers,omitempty"`
	// Disabled says why the variant cannot run in this build (its build
	// tag was not set), and how to enable it.
	Disabled string `json:"disabled,omitempty"`
	// Error is any other failure to make the variant.
	Error string `json:"error,omitempty"`
}

// ProgressPrefix starts a progress line on the worker's stderr:
// "progress DONE TOTAL". The orchestrator reads and hides them, and its
// watchdog takes them as the worker's heartbeat.
const ProgressPrefix = "progress "

// HeldLine is the line a hold worker of several (Job.Procs) prints on its
// stderr once its stores are open and measured; it then keeps them open,
// printing a progress line now and then, until its stdin is closed.
const HeldLine = "held, waiting"

// StatusEnv names the environment variable that gives a worker the file
// descriptor of its status page, a shared memory file (memfd) of
// StatusSize bytes that the orchestrator's watchdog reads when the worker
// stalls: the store being worked on and the stores done, which the worker
// writes between timed spans. A worker started without it keeps none.
const StatusEnv = "MANYDB_STATUS_FD"

// SpawnedEnv names the environment variable that gives a worker the time
// the orchestrator started it, in nanoseconds since the Unix epoch: the
// worker records how long its process took to reach its run
// (results.WorkerTime.SpawnS). A worker started without it records 0.
const SpawnedEnv = "MANYDB_SPAWNED_NS"

// StatusSize is the size of the status page: two little-endian uint64,
// at StatusStore the store being worked on plus one (0: none yet), at
// StatusDone the stores done.
const (
	StatusSize  = 16
	StatusStore = 0
	StatusDone  = 8
)

// MaxFanout is the deepest store directory layout: three levels use all
// six digits of a store's name.
const MaxFanout = 3

// StoreDir returns the directory of store i in the layout with fanout
// levels: each level is named by a pair of the last 2 × fanout digits of
// the store's name, so consecutive stores spread over the directories
// (fanout 0: dir/001234; fanout 2: store 1234 is dir/12/34/001234).
func StoreDir(dir string, i, fanout int) string {
	name := fmt.Sprintf("%06d", i)
	parts := []string{dir}
	for l := fanout; l > 0; l-- {
		end := len(name) - 2*(l-1)
		parts = append(parts, name[end-2:end])
	}
	return filepath.Join(append(parts, name)...)
}

// TestOpenDelayEnv names an environment variable for tests of the A/B
// method only, unset in every study of record: a Go duration ("20us")
// that the worker adds to every open of a store, inside the open's timed
// span, by a busy wait, so that an A/B comparison has a known change to
// find. A study made with it records it in its environment
// ("test_open_delay").
const TestOpenDelayEnv = "MANYDB_TEST_OPEN_DELAY"

// ParseTestOpenDelay reads TestOpenDelayEnv's value: "" is none; a
// negative or unreadable duration is an error naming the variable.
func ParseTestOpenDelay(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s=%q: give a non-negative Go duration such as 20us", TestOpenDelayEnv, s)
	}
	return d, nil
}
