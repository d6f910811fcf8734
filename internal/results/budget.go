package results

import "fmt"

// Budget says where a study session's wall time went, in seconds.
type Budget struct {
	Wall float64 `json:"wall_s"`
	Wait float64 `json:"wait_s"` // waiting for the load (--max-load)
	// WaitIOStallS and WaitCPUStallS are how much of Wait at least one
	// task of the machine spent waiting for the disk, and for the CPU
	// (the kernel's pressure stall information, "some"; absent where the
	// kernel keeps none, and in records from before they were kept).
	WaitIOStallS  float64 `json:"wait_io_stall_s,omitempty"`
	WaitCPUStallS float64 `json:"wait_cpu_stall_s,omitempty"`
	Engine        float64 `json:"engine_s"`  // inside timed engine calls
	Workers       float64 `json:"workers_s"` // wall time of the workers of finished phases
	Failed        float64 `json:"failed_s"`  // wall time of workers that failed
	Cleanup       float64 `json:"cleanup_s"` // removing stores
	// CleanupOverlapped is the time of deleting stores while the study
	// waited for the load (its trash emptied in the background), not in
	// Cleanup: it took no time of its own.
	CleanupOverlapped float64 `json:"cleanup_overlapped_s,omitempty"`
	// Rebuild is the wall time of the workers that made a resumed study's
	// stores again and replayed its recorded turns, unrecorded.
	Rebuild float64 `json:"rebuild_s,omitempty"`
	// InWorkers sums the finished workers' own accounts (Record.WorkerTime;
	// nil in records from before they kept one), and Accounted is those
	// workers' wall time (a serve step split over processes: the account
	// of its longest process, MergeServeTimes, and the step's wall time).
	InWorkers *WorkerTime `json:"in_workers,omitempty"`
	Accounted float64     `json:"accounted_s,omitempty"`
}

// WorkerTime says where a worker's time went outside its timed engine
// spans, in seconds, each part measured around its own code in the worker.
// The rest of its run (RunS less the timed spans and these parts) is the
// store loop, its progress lines and the record's assembly; the process'
// start and exit are the orchestrator's wall time of the worker less RunS.
type WorkerTime struct {
	RunS float64 `json:"run_s"` // from the job's start in the worker to its record
	// UntimedS: engine calls that no sample holds: connecting to a
	// server (with its ANALYZE of tables not yet analyzed), opening a
	// shared store, the warm-up visit before a phase's first timed one, a
	// turn run's read-back of its appends, serve's warm-up requests.
	UntimedS float64 `json:"untimed_s"`
	// DataS: generating each store's notes, drawing its expected answers
	// and checking the engine's answers.
	DataS float64 `json:"data_s"`
	// CacheS: preparing and reading the page cache: a warm run's prewarm
	// and residency samples, a cold run's evictions.
	CacheS float64 `json:"cache_s"`
	// MemoryS: a hold's snapshots of the process (a garbage collection,
	// /proc reads), without SettleS.
	MemoryS float64 `json:"memory_s"`
	// SettleS: a hold's waits for the memory cgroup's statistics to take
	// in its changes (memcg.Group.ReadSettled sleeps between readings).
	SettleS float64 `json:"settle_s"`
	// ReleaseS: a process of a split hold waiting, its stores open, for
	// the others to open theirs.
	ReleaseS float64 `json:"release_s"`
	// YieldS: the store loop's yields to Go's scheduler between stores
	// (docs/benchmarks.md, "Go's scheduler: the phase yields between
	// stores"), part of the store loop; 0 in records from before it was
	// kept.
	YieldS float64 `json:"yield_s"`
	// SpawnS: from the orchestrator starting the worker's process to the
	// start of its run (exec, the runtime's and the libraries' start,
	// making the variant), before RunS and not one of its parts; 0 when
	// the worker was started without the orchestrator's clock
	// (job.SpawnedEnv), and in records from before it was kept.
	SpawnS float64 `json:"spawn_s"`
}

// parts are w's parts with their JSON names.
func (w WorkerTime) parts() map[string]float64 {
	return map[string]float64{"untimed_s": w.UntimedS, "data_s": w.DataS, "cache_s": w.CacheS,
		"memory_s": w.MemoryS, "settle_s": w.SettleS, "release_s": w.ReleaseS, "yield_s": w.YieldS}
}

// check refuses a negative time, or parts that together exceed the run
// they were measured in.
func (w WorkerTime) check() error {
	if w.SpawnS < 0 {
		return fmt.Errorf("worker_time.spawn_s is %v: a time is not negative", w.SpawnS)
	}
	var sum float64
	for name, x := range w.parts() {
		if x < 0 {
			return fmt.Errorf("worker_time.%s is %v: a time is not negative", name, x)
		}
		sum += x
	}
	if w.RunS < 0 || sum > w.RunS {
		return fmt.Errorf("worker_time: parts of %.6f s in a run of %.6f s: each part is measured inside the run", sum, w.RunS)
	}
	return nil
}

// Add adds o's seconds to w's.
func (w *WorkerTime) Add(o WorkerTime) {
	w.RunS += o.RunS
	w.UntimedS += o.UntimedS
	w.DataS += o.DataS
	w.CacheS += o.CacheS
	w.MemoryS += o.MemoryS
	w.SettleS += o.SettleS
	w.ReleaseS += o.ReleaseS
	w.YieldS += o.YieldS
	w.SpawnS += o.SpawnS
}

// EngineS is the time inside engine calls: the timed spans and, where the
// workers kept their accounts, the untimed calls.
func (b Budget) EngineS() float64 {
	if b.InWorkers == nil {
		return b.Engine
	}
	return b.Engine + b.InWorkers.UntimedS
}

// WaitingS is the time spent waiting for the machine, not working: for the
// load, and in the workers for the memory cgroup's statistics and a split
// hold's other processes.
func (b Budget) WaitingS() float64 {
	if b.InWorkers == nil {
		return b.Wait
	}
	return b.Wait + b.InWorkers.SettleS + b.InWorkers.ReleaseS
}

// OwnS is manydb's own work: the wall time less the engine's calls, the
// waits, failed workers and a resumed study's rebuild. It holds the
// workers' starts and exits, notes and answers, page cache work, memory
// snapshots, removing stores and the orchestrator's own steps.
func (b Budget) OwnS() float64 {
	return b.Wall - b.EngineS() - b.WaitingS() - b.Failed - b.Rebuild
}

// OrchestratorS is the orchestrator's own time: the wall time outside the
// load waits, the workers (finished, failed, remaking a resumed study's
// stores) and the removal of stores. It holds the study's start (checking
// the variants, the env record, a server's start), the gate's readings,
// starting each phase and writing its record.
func (b Budget) OrchestratorS() float64 {
	return b.Wall - b.Wait - b.Workers - b.Failed - b.Rebuild - b.Cleanup
}

// StartS is the accounted workers' time outside their runs: process
// start (the runtime, the engine's libraries) and exit.
func (b Budget) StartS() float64 {
	if b.InWorkers == nil {
		return 0
	}
	return b.Accounted - b.InWorkers.RunS
}

// MergeHoldTimes is the account of a hold split over processes (ws, one
// per process, in the order they opened): each part summed but the
// release waits, which overlap the other processes' work; its run is the
// processes' runs less those waits. Nil when a process kept none.
func MergeHoldTimes(ws []*WorkerTime) *WorkerTime {
	var m WorkerTime
	for _, w := range ws {
		if w == nil {
			return nil
		}
		m.Add(*w)
		m.RunS -= w.ReleaseS
	}
	m.ReleaseS = 0
	return &m
}

// MergeServeTimes is the account of a serve step split over processes
// (ws, one per process), which ran side by side: the account of the
// process that ran longest, whose parts the other processes' overlap.
// Nil when a process kept none.
func MergeServeTimes(ws []*WorkerTime) *WorkerTime {
	var longest *WorkerTime
	for _, w := range ws {
		if w == nil {
			return nil
		}
		if longest == nil || w.RunS > longest.RunS {
			longest = w
		}
	}
	if longest == nil {
		return nil
	}
	m := *longest
	return &m
}
