// Package results defines manydb's result record and reads and writes
// results files: JSON Lines, one record per cell (variant, setting, phase,
// and its cache mode, run, turn, hold step or pool step), plus an env
// record per session and an end record per study, each appended and synced
// to disk as soon as its phase ends.
//
// Records keep the raw per-store samples, so any statistic can be
// recomputed later without rerunning the study.
package results

import (
	"fmt"
	"slices"
	"time"

	"manydb/internal/job"
	"manydb/internal/workload"
)

// Schema is the version of the record layout written by this manydb. It
// reads schema 1 too, whose records numbered turns, hold counts and pools
// in run (moveOldRun).
const Schema = 2

// MallocVars are the glibc malloc variables a worker copies from its
// environment into a record's Process when they are set: the one list the
// worker and the tables share.
func MallocVars() []string {
	return []string{"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES"}
}

// Status values.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
	// StatusNotApplicable marks a variant that a setting does not change
	// (a glibc malloc setting for a pure-Go engine): not measured again.
	StatusNotApplicable = "n/a"
	// StatusOOMKilled marks a serve step whose worker the kernel's OOM
	// killer ended at its memory limit (serve --memory-max): an outcome
	// of the step, with its Serve.Limit, not a failure of manydb or the
	// engine.
	StatusOOMKilled = "oom-killed"
)

// Record is one line of a results file. Fields that a phase does not use
// are left out of its line.
type Record struct {
	Schema  int    `json:"schema"`
	Study   string `json:"study"`
	Variant string `json:"variant,omitempty"`
	Setting string `json:"setting,omitempty"`
	// Layout is job.LayoutShared for every agent's notes in one store;
	// empty for a store per agent (every record before layouts).
	Layout job.Layout `json:"layout,omitempty"`
	Phase  job.Phase  `json:"phase"`
	// Which repetition of its phase a record is: at most one of Run, Turn,
	// HoldStep and PoolStep is set, the one of its phase (Repeat).
	Run      int           `json:"run,omitempty"`       // open: the run (warm, cold or drop), 1..R
	Turn     int           `json:"turn,omitempty"`      // turn: the turn run, 1..T
	HoldStep int           `json:"hold_step,omitempty"` // hold: which of several hold counts, 1..n (0: one count)
	PoolStep int           `json:"pool_step,omitempty"` // serve: which of the steps (pool sizes, each at each rate of a ladder), 1..n
	Seed     uint64        `json:"seed,omitempty"`      // open, turn, serve: the seed of the store order
	Status   string        `json:"status"`
	Workload workload.Spec `json:"workload"`
	Stores   int           `json:"stores,omitempty"` // stores in the study
	// Fanout is the store directories' layout: 0 flat (dir/001234), f > 0
	// nested f levels deep by the name's last 2f digits (dir/12/34/001234).
	Fanout int `json:"fanout,omitempty"`
	// Sweep is the id of the sweep the study belongs to (SweepConfig.ID).
	Sweep   string    `json:"sweep,omitempty"`
	Load1   float64   `json:"load1"` // 1-minute load average at phase start
	Started time.Time `json:"started"`
	// Versions holds engine library versions (the library's own version
	// string) and the Go module versions of the worker; in a phase of a
	// cgo engine also "allocator" (the malloc the worker proved it runs
	// with, and its version) and "allocator_library" (its path).
	Versions map[string]string `json:"versions,omitempty"`
	// EngineOptions names each engine option the variant set for the lean
	// setting, as the engine's API names it, with its value (e.g.
	// "PRAGMA cache_size": "-64"); absent when it set none (every other
	// setting). docs/engines.md cites where each is documented.
	EngineOptions map[string]string `json:"engine_options,omitempty"`
	// Go holds the Go runtime's garbage collections during the phase.
	Go *GoStats `json:"go,omitempty"`
	// Process is what the worker saw of its setting: the glibc malloc
	// variables in its environment, THP_enabled from /proc/self/status and
	// engine_thread, "other" when the phase ran on a thread other than the
	// process' first (a glibc thread arena), "main" when on the first, and
	// yield_every, how often the phase's goroutine yielded to Go's
	// scheduler between stores ("5ms"; absent from serve records, whose
	// requests do not run in such a loop, and from older records: see
	// docs/method.md).
	Process map[string]string `json:"process,omitempty"`

	// Set by the orchestrator for every phase.
	MaxLoad    float64   `json:"max_load,omitempty"`    // --max-load in force (0: none)
	WaitS      float64   `json:"wait_s,omitempty"`      // seconds waited for the load before the phase
	WorkerS    float64   `json:"worker_s,omitempty"`    // wall time of the worker process
	EngineS    float64   `json:"engine_s,omitempty"`    // end: time inside timed engine spans
	LoadDuring []float64 `json:"load_during,omitempty"` // load1 every 10 s while the worker ran
	// Retries is how many requests the variant's client sent again in the
	// phase because its server refused them unrun (engine.Retrier: sqld's
	// pool); their time is in the spans that timed them.
	Retries int `json:"retries,omitempty"`
	// WorkerTime is set by the worker: where its time went outside its
	// timed spans.
	WorkerTime *WorkerTime `json:"worker_time,omitempty"`

	// create
	CreateMs []float64 `json:"create_ms,omitempty"` // one per store, in creation order
	WallS    float64   `json:"wall_s,omitempty"`    // wall time of the phase

	// open and turn: one sample per store each, in the run's order.
	// QueryMs spans every query between open and close (with the default
	// --queries count, the count).
	OpenMs  []float64 `json:"open_ms,omitempty"`
	QueryMs []float64 `json:"query_ms,omitempty"`
	CloseMs []float64 `json:"close_ms,omitempty"`
	TotalMs []float64 `json:"total_ms,omitempty"`
	// Queries are the queries of an open run in the order they ran (left
	// out for the default, count alone), and of a turn: recent, append.
	Queries []job.Query `json:"queries,omitempty"`
	// QueriesMs holds each query's own samples, by name, when Queries is set.
	QueriesMs map[job.Query][]float64 `json:"queries_ms,omitempty"`
	// Cache is how the page cache was prepared for an open run: "" (warm),
	// "cold" (each store's files evicted before its open) or "drop" (the
	// kernel's caches dropped before the run).
	Cache job.CacheMode `json:"cache,omitempty"`
	// Resident is, for a cold run, the fraction of each store's file pages
	// still in the page cache just before its open, in the run's order.
	Resident []float64 `json:"resident,omitempty"`
	// ResidentBefore is, for a warm run (a warm open run, a turn run,
	// serve without a memory limit: the phases the orchestrator
	// prewarms), the fraction of the data pages (allocated, so a sparse
	// file's holes do not count) of a sample of its stores (up to
	// ResidencySample, evenly spaced) in the page cache before the run:
	// below 0.99, before or after, the "warm" run was partly cold and
	// every view says so.
	ResidentBefore *float64 `json:"resident_before,omitempty"`
	// ResidentAfter is the same fraction of the same sample after the
	// run (recorded since the warm runs are prewarmed; turn runs and
	// serve since they are too).
	ResidentAfter *float64 `json:"resident_after,omitempty"`
	// Prewarmed says that the warm run read every store's files once
	// before it (untimed; every warm open run since resident_after is
	// recorded, a sweep's smaller counts before; turn runs since the
	// layouts; serve without a memory limit after them).
	Prewarmed bool `json:"prewarmed,omitempty"`
	// PrewarmS is how long that read took, in seconds.
	PrewarmS float64 `json:"prewarm_s,omitempty"`
	// PrewarmPasses, when above 1, is how many times the warm run read its
	// stores in: the sample was below WarmResident after each pass but the
	// last (at most PrewarmPasses).
	PrewarmPasses int `json:"prewarm_passes,omitempty"`
	// Appended is the number of notes the turn phase had appended to every
	// store before this phase (a turn run appends one more).
	Appended int `json:"appended,omitempty"`
	// Recall is, for an open run with the knn query and for a turn or a
	// hold of a workload with embeddings, the recall@10 of each store's
	// knn answer against the exact nearest notes, in the run's order (the
	// hold's: in store order) (vector.Recall).
	Recall []float64 `json:"recall,omitempty"`
	// KNNReturned is, beside Recall, the number of ids each knn answer
	// held: an approximate search may return fewer than vector.K, and
	// such an answer's recall counts the missing ones as misses.
	KNNReturned []int `json:"knn_returned,omitempty"`
	// KNNAsked, when not 0, is how many notes each knn asked the engine
	// for (--knn-oversample on an approximate search); the first 10 of
	// the answer were kept, and Recall and KNNReturned are of those.
	KNNAsked int `json:"knn_asked,omitempty"`
	// VectorSearch names the variant's knn search in every record of a
	// workload with embeddings (engine.VectorSearch's Method), and
	// VectorExact whether it compares the query with every note.
	VectorSearch string `json:"vector_search,omitempty"`
	VectorExact  bool   `json:"vector_exact,omitempty"`

	// hold
	Hold *Hold `json:"hold,omitempty"`

	// profile
	Profile *Profile `json:"profile,omitempty"`

	// serve
	Serve *Serve `json:"serve,omitempty"`

	// space: one per store, in store order
	Bytes         []int64  `json:"bytes,omitempty"`          // allocated on disk
	ApparentBytes []int64  `json:"apparent_bytes,omitempty"` // sum of file sizes
	Files         []string `json:"files,omitempty"`          // file names in the stores
	// The shared layout's one store instead (space of each agent: these
	// over Stores).
	SharedBytes         *int64 `json:"shared_bytes,omitempty"`
	SharedApparentBytes *int64 `json:"shared_apparent_bytes,omitempty"`

	// The shared layout, every phase: what the shared store is
	// (engine.SharedVariant's SharedLayout) and the time the worker took
	// to open it (create: to make it), once, before the phase's spans.
	SharedLayout string  `json:"shared_layout,omitempty"`
	SharedOpenMs float64 `json:"shared_open_ms,omitempty"`

	// delete: one sample per agent exported and deleted, in the order of
	// the phase's seed: Deletes of them (job.Job.DeleteCount; records
	// made before --deletes have 0 for job.DeleteAgents of the stores).
	Deletes int `json:"deletes,omitempty"`
	// ExportMs spans the agent's open, the read of every note and its
	// write to a file of its own, synced, and the close;
	// ExportBytes is that file's size. DeleteMs spans the delete: per
	// agent the removal of its store's directory, shared
	// SharedStore.DeleteAgent. FreedBytes is the space on disk the store's
	// files (per agent: its directory; shared: the shared store's) took
	// before the delete less after it: negative when the shared store grew.
	ExportMs    []float64 `json:"export_ms,omitempty"`
	ExportBytes []int64   `json:"export_bytes,omitempty"`
	DeleteMs    []float64 `json:"delete_ms,omitempty"`
	FreedBytes  []int64   `json:"freed_bytes,omitempty"`

	// env
	Env    map[string]string `json:"env,omitempty"`
	Config *StudyConfig      `json:"config,omitempty"`

	// end
	Budget *Budget `json:"budget,omitempty"`

	// create in a serve study that reused the stores another study kept
	// (--keep): that study's id; the record is n/a, with no create figure.
	// serve: the study that made the stores it served (this study's id
	// for its own stores; absent in records before 2026-12-04).
	StoresFrom string `json:"stores_from,omitempty"`

	// failed
	Error      string   `json:"error,omitempty"`
	Command    []string `json:"command,omitempty"`
	StderrTail string   `json:"stderr_tail,omitempty"`

	// Line is the line of the results file the record was read from
	// (Reader), 0 for a record not read from a file; it is not written.
	Line int `json:"-"`
	// File is the results file it was read from (Reader), "" for a
	// record made in memory.
	File string `json:"-"`
}

// ServeConfig is the traffic of a manydb serve study.
type ServeConfig struct {
	Pools       []int   `json:"pools"` // pool sizes, one serve phase each
	Requests    int     `json:"requests"`
	Concurrency int     `json:"concurrency"`
	Zipf        float64 `json:"zipf"`
	Rate        float64 `json:"rate,omitempty"`
	// Rates is a rate ladder (serve --rates): each pool size is served at
	// each rate in turn, 0 being the closed loop; empty without one.
	Rates []float64 `json:"rates,omitempty"`
	// PoolTimeS is each pool step's time limit (--pool-time), seconds;
	// 0: none.
	PoolTimeS float64 `json:"pool_time_s,omitempty"`
	// MemoryMaxBytes is the memory limit of each serve worker's own
	// cgroup (--memory-max); 0: none.
	MemoryMaxBytes int64 `json:"memory_max_bytes,omitempty"`
}

// Ladder is the rates each pool size is served at, in order: Rates, or
// Rate alone (0: the closed loop) for a study without a ladder.
func (c *ServeConfig) Ladder() []float64 {
	if len(c.Rates) > 0 {
		return c.Rates
	}
	return []float64{c.Rate}
}

// OpenLoop tells whether a rate of the ladder is an open loop's.
func (c *ServeConfig) OpenLoop() bool {
	return slices.ContainsFunc(c.Ladder(), func(r float64) bool { return r > 0 })
}

// Serve is one manydb serve run: agents' requests (each an agent turn:
// the 20 newest notes, one note appended) from a Zipf distribution, served
// from a pool of at most Pool open stores.
type Serve struct {
	Pool        int     `json:"pool"`
	Requests    int     `json:"requests"` // recorded
	Warmup      int     `json:"warmup"`   // served before, not recorded
	Concurrency int     `json:"concurrency"`
	Zipf        float64 `json:"zipf"`
	Seed        uint64  `json:"seed"`
	Rate        float64 `json:"rate,omitempty"` // open loop: requests per second offered
	// AchievedRate is, for the open loop, the recorded requests served
	// per second of WallS: below Rate when the engine did not keep up.
	AchievedRate float64 `json:"achieved_rate,omitempty"`
	// Senders is, for the open loop, how many goroutines it started to
	// send requests on time (serve.MaxSenders at most).
	Senders int `json:"senders,omitempty"`
	// PoolTimeS is the step's time limit (--pool-time), seconds; 0: none.
	PoolTimeS float64 `json:"pool_time_s,omitempty"`
	// StoppedEarly says the time limit passed before every request was
	// served: Done of the Requests were (0 when it passed in the warm-up),
	// and every figure below is of those Done requests.
	StoppedEarly bool `json:"stopped_early,omitempty"`
	Done         int  `json:"done,omitempty"`
	// Histogram is the recorded requests' latencies in µs, an HDR
	// histogram (hdrhistogram-go's Encode, base64 in JSON).
	Histogram []byte `json:"histogram"`
	// Percentiles of the latency, ms, from the histogram.
	P50Ms  float64 `json:"p50_ms"`
	P90Ms  float64 `json:"p90_ms"`
	P99Ms  float64 `json:"p99_ms"`
	P999Ms float64 `json:"p999_ms"`
	MaxMs  float64 `json:"max_ms"`
	WallS  float64 `json:"wall_s"` // of the recorded requests
	Hits   int64   `json:"hits"`   // requests whose store was open in the pool
	// LRUHits is how many of the recorded requests would have found their
	// store open in a pool of Pool served one request at a time, least
	// recently used closed first (serve.LRUHits): what Hits is checked
	// against. 0 in records made before it was computed.
	LRUHits int64 `json:"lru_hits,omitempty"`
	Opens   int64 `json:"opens"`
	Closes  int64 `json:"closes"`
	// MaxOpen is the most stores open at once (pool plus in use).
	MaxOpen int64 `json:"max_open"`
	// Samples of the process every SampleMs during the recorded requests;
	// for a store on a server (ServerProcesses > 0) RssKB and AnonKB add
	// the server's processes' Pss and anonymous memory, as a hold does.
	SampleMs  int     `json:"sample_ms"`
	RssKB     []int64 `json:"rss_kb"`
	AnonKB    []int64 `json:"anon_kb"`
	Threads   []int   `json:"threads"`
	FDs       []int   `json:"fds"`
	BaseRssKB int64   `json:"base_rss_kb"` // before the first store opened
	// ServerProcesses is how many server processes the last sample
	// counted (engine.ServerVariant); 0 for an engine in the worker.
	ServerProcesses int `json:"server_processes,omitempty"`
	// Limit is what the worker's memory cgroup went through under
	// serve --memory-max; nil without a limit.
	Limit *MemoryLimit `json:"limit,omitempty"`
	// Procs is, for a serve step split over several worker processes
	// (--procs), each one's own step (its histogram and samples in the
	// merged ones only); the fields above are then theirs together.
	Procs []Serve `json:"procs,omitempty"`
}

// MemoryLimit is a serve worker's memory cgroup under a limit, counted
// over the whole step (warm-up included), from the cgroup's files
// (Pressure says which; -1 where a count is not kept).
type MemoryLimit struct {
	Cgroup     string `json:"cgroup"`
	V2         bool   `json:"v2,omitempty"` // the unified hierarchy; else v1
	LimitBytes int64  `json:"limit_bytes"`
	Pressure
}

// Served is the number of recorded requests the figures are of: Done when
// the step stopped early, else Requests.
func (s *Serve) Served() int {
	if s.StoppedEarly {
		return s.Done
	}
	return s.Requests
}

// Profile is where the create time of a store goes: the steps of the
// create phase timed one by one (manydb profile), on one medium. Each
// sample slice has one value per store, in creation order; for every
// store the steps add up to TotalMs (consecutive spans of one clock).
type Profile struct {
	Medium string `json:"medium"` // "disk" or "tmpfs"
	Dir    string `json:"dir"`    // directory the stores were created in
	FS     string `json:"fs"`     // its filesystem type (ext4, tmpfs, …)
	// CreateMs: mkdir and Variant.Create (the new store opened, its schema
	// or model committed).
	CreateMs []float64 `json:"create_ms"`
	// FillMs: the notes built in memory (workload.Spec.Fill).
	FillMs []float64 `json:"fill_ms"`
	// MarshalMs: engine.Marshaler.Marshal; empty when the engine has no
	// separate marshalling step.
	MarshalMs []float64 `json:"marshal_ms,omitempty"`
	// InsertMs: Insert (or InsertMarshaled), commit included.
	InsertMs []float64 `json:"insert_ms"`
	CloseMs  []float64 `json:"close_ms"`
	TotalMs  []float64 `json:"total_ms"` // one span around all steps
	// Syncs are the sync calls of a separate run under strace; nil when
	// that run was not made.
	Syncs *Syncs `json:"syncs,omitempty"`
}

// Syncs counts the sync system calls a worker made while creating Stores
// stores in a run of its own under strace (which slows everything, so its
// times are not the profile's).
type Syncs struct {
	Stores int `json:"stores"` // stores created in the counted run
	// Calls maps a system call (fsync, fdatasync, msync, …) to the number
	// of completed calls in the whole run; "o_dsync_write" counts the
	// writes to files opened with O_DSYNC or O_SYNC. Zero counts are left
	// out.
	Calls map[string]int `json:"calls,omitempty"`
	// CallMs is the duration of every counted call, from strace -T.
	CallMs []float64 `json:"call_ms,omitempty"`
	// Tool is how they were counted, e.g. "strace 6.1 -f -T --seccomp-bpf".
	Tool string `json:"tool,omitempty"`
	// NotCounted says why there are no counts (strace missing, failed).
	NotCounted string `json:"not_counted,omitempty"`
}

// GoStats counts the Go garbage collections during a phase.
type GoStats struct {
	GCs     uint64  `json:"gcs"`
	PauseMs float64 `json:"gc_pause_ms"` // total stop-the-world pause
}

// StudyConfig is what a study was asked to do; a rerun with the same
// configuration and results file resumes the study.
type StudyConfig struct {
	Variants []string `json:"variants"`
	Settings []string `json:"settings"`
	Stores   int      `json:"stores"`
	Runs     int      `json:"runs"`
	Hold     int      `json:"hold"`
	// Holds are the hold counts when more than one was given (--hold
	// 1,10,100): each its own hold phase, run 1..len(Holds), on the same
	// stores; Hold is then the largest.
	Holds []int `json:"holds,omitempty"`
	// Procs, above 1, is --procs: every hold split over that many
	// worker processes (Hold.Procs).
	Procs int `json:"procs,omitempty"`
	// ProcsAuto is --procs auto: each hold's processes chosen from the
	// hold before it (Hold.ProcsFor).
	ProcsAuto bool        `json:"procs_auto,omitempty"`
	Fanout    int         `json:"fanout,omitempty"`  // store directory layout (0: flat)
	Queries   []job.Query `json:"queries,omitempty"` // default: count
	Cache     []string    `json:"cache,omitempty"`   // default: warm
	Turns     int         `json:"turns,omitempty"`
	// Layouts names the layouts (--layout) when given: per-agent, shared.
	Layouts []string `json:"layouts,omitempty"`
	// KNNOversample, above 1, is --knn-oversample: an approximate knn
	// asked its engine for that many times 10 notes.
	KNNOversample int `json:"knn_oversample,omitempty"`
	// Deletes is --deletes: the agents a study of layouts exported and
	// deleted (0: one in ten, job.DeleteAgents).
	Deletes int `json:"deletes,omitempty"`
	// UserServer: the stores of the variants that keep them in a server
	// were on a PostgreSQL server the user runs (--postgres), not one
	// manydb started; its address is not recorded (it may hold a
	// password).
	UserServer bool `json:"user_server,omitempty"`
	// SqldMaxActive is the --max-active-namespaces the study's sqld
	// server was given (--sqld-max-active; 0: every namespace loaded,
	// sqldserver.DefaultMaxActiveNamespaces), in a study with sqld.
	SqldMaxActive int          `json:"sqld_max_active,omitempty"`
	Serve         *ServeConfig `json:"serve,omitempty"` // manydb serve
	// Sweep is set for each study of a sweep over store counts (--stores
	// 100,1000,…): its id and every count, largest first.
	Sweep *SweepConfig `json:"sweep,omitempty"`
	// AgentSweep is set for each study of manydb sweep: a total of notes
	// divided among each of its agent counts, one study per count.
	AgentSweep *AgentSweepConfig `json:"agent_sweep,omitempty"`
	// NoDelete: the delete phase was left out (manydb sweep).
	NoDelete bool          `json:"no_delete,omitempty"`
	Workload workload.Spec `json:"workload"`
	Root     string        `json:"root"`
	MaxLoad  float64       `json:"max_load,omitempty"`
	// Gate is what the study waited for before each phase with MaxLoad:
	// "load" (the load average below it) or "quiet" (orchestrate.Gate);
	// absent in records from before the quiet gate, which all waited for
	// the load.
	Gate string `json:"gate,omitempty"`
}

// AgentSweepConfig links the studies of manydb sweep: Total notes divided
// among each count of Agents (the stores of one study each, with
// Total/count notes per store), named by ID in each study's env record.
type AgentSweepConfig struct {
	ID     string `json:"id"`
	Total  int    `json:"total"`
	Agents []int  `json:"agents"`
}

// SweepConfig links the studies of a sweep: one study per store count,
// each with this id in its env record and in every record (Record.Sweep).
type SweepConfig struct {
	ID     string `json:"id"`
	Stores []int  `json:"stores"` // largest first
}

// Repeat is the number that tells r from the other records of its phase in
// a study: its Run, Turn, HoldStep or PoolStep (0 for a phase that runs
// RanLoud tells whether the phase ran with the load at or above its
// --max-load (the gate), by the load sampled while it ran.
func (r *Record) RanLoud() bool {
	return r.MaxLoad > 0 && len(r.LoadDuring) > 0 && slices.Max(r.LoadDuring) >= r.MaxLoad
}

// once).
func (r *Record) Repeat() int {
	switch r.Phase {
	case job.PhaseTurn:
		return r.Turn
	case job.PhaseHold:
		return r.HoldStep
	case job.PhaseServe:
		return r.PoolStep
	}
	return r.Run
}

// SetRepeat sets the field of r's phase that Repeat reads to n.
func (r *Record) SetRepeat(n int) {
	switch r.Phase {
	case job.PhaseTurn:
		r.Turn = n
	case job.PhaseHold:
		r.HoldStep = n
	case job.PhaseServe:
		r.PoolStep = n
	default:
		r.Run = n
	}
}

// moveOldRun reads a record of schema 1, whose "run" numbered turns, hold
// counts and pools too.
func (r *Record) moveOldRun() {
	if n := r.Run; r.Schema == 1 && n != 0 && r.Phase != job.PhaseOpen {
		r.Run = 0
		r.SetRepeat(n)
	}
}

// check refuses a record that lacks what its phase and status promise
// (an edited or foreign line), so that nothing reading records meets a
// missing object: an ok hold without its figures, an ok serve without its
// traffic, an oom-killed serve step without its limit.
func (r *Record) check() error {
	if err := r.checkDomain(); err != nil {
		return err
	}
	if r.Status == StatusOOMKilled && (r.Phase != job.PhaseServe || r.Serve == nil || r.Serve.Limit == nil) {
		return fmt.Errorf("an oom-killed record that is not a serve record with its \"limit\"")
	}
	if r.Status != StatusOK {
		return nil
	}
	switch {
	case r.Phase == job.PhaseHold && r.Hold == nil:
		return fmt.Errorf("an ok hold record without \"hold\"")
	case r.Phase == job.PhaseServe && r.Serve == nil:
		return fmt.Errorf("an ok serve record without \"serve\"")
	}
	return nil
}
