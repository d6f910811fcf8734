package results

// Limits are the limits of this process that open stores use up besides
// memory, as they stand now (measure.ReadLimits reads them).
type Limits struct {
	// OpenFiles is RLIMIT_NOFILE's soft limit (Go raises it to the hard
	// limit when a program starts).
	OpenFiles int64 `json:"open_files"`
	// Mappings is vm.max_map_count: the most memory mappings a process
	// may have.
	Mappings int64 `json:"mappings"`
	// Threads is the most threads this process may have: the smaller of
	// kernel.threads-max and RLIMIT_NPROC's soft limit (which counts the
	// user's threads; unlimited for root).
	Threads int64 `json:"threads"`
}

// Pressure is what a group under a memory limit went through, as counts
// since the group was made (memory.stat's lag applies: see ReadSettled).
// A serve record keeps it as it is (MemoryLimit); memcg.Group.ReadPressure
// reads it.
type Pressure struct {
	// PeakBytes is the most the group was charged: v1
	// memory.max_usage_in_bytes, v2 memory.peak (0 where the kernel has
	// none, before 5.19).
	PeakBytes int64 `json:"peak_bytes"`
	// LimitHits counts the charges that found the group at its limit and
	// had to reclaim first: v2 memory.events "max". -1 under v1, whose
	// memory.failcnt recent kernels no longer count (6.18 kept it at 0
	// for a group that reached its limit and refaulted 192 MiB).
	LimitHits int64 `json:"limit_hits"`
	// RefaultPages counts the page-cache pages read again soon after they
	// were evicted: memory.stat workingset_refault_file (v1: its total_
	// form). The evictions that cost a read. -1 where the kernel's
	// memory.stat has no such line (v1 before about 5.19, v2 before 5.9).
	RefaultPages int64 `json:"refault_pages"`
	// ReclaimedPages counts the pages the kernel reclaimed from the group
	// (v2 memory.stat pgsteal); -1 under v1, whose memory.stat has no
	// such count.
	ReclaimedPages int64 `json:"reclaimed_pages"`
	// OOMKills counts the processes of the group the OOM killer ended: v1
	// memory.oom_control oom_kill, v2 memory.events oom_kill.
	OOMKills int64 `json:"oom_kills"`
}
