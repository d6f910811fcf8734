package results

// Hold is the memory of H stores held open in one process (or in
// several, --procs: MergeHolds), from /proc/self/smaps_rollup, in KiB.
// For a store on a server (Server not nil) the per-store figures RssKB
// and AnonKB also count the growth of the server's processes (their Pss
// and anonymous memory).
type Hold struct {
	Held          int     `json:"held"`
	RssKB         float64 `json:"rss_kb"`  // (after - before) / held, plus Server's Pss growth / held
	AnonKB        float64 `json:"anon_kb"` // (after - before) / held, plus Server's anonymous growth / held
	RssBeforeKB   int64   `json:"rss_before_kb"`
	RssAfterKB    int64   `json:"rss_after_kb"`
	AnonBeforeKB  int64   `json:"anon_before_kb"`
	AnonAfterKB   int64   `json:"anon_after_kb"`
	ThreadsBefore int     `json:"threads_before"`
	Threads       int     `json:"threads"` // with all stores open
	FDsBefore     int     `json:"fds_before"`
	FDs           int     `json:"fds"` // with all stores open
	// Goroutines of the worker before and with all stores open (pure-Go
	// engines start goroutines where C engines start threads).
	GoroutinesBefore int `json:"goroutines_before"`
	Goroutines       int `json:"goroutines"`
	// Memory mappings of the worker before and with all stores open
	// (vm.max_map_count bounds them); 0 in records made before they were
	// counted.
	MappingsBefore int `json:"mappings_before,omitempty"`
	Mappings       int `json:"mappings,omitempty"`
	// pthread keys the worker could still create before and with all
	// stores open, of PthreadKeysMax (the C library's PTHREAD_KEYS_MAX);
	// -1 in a worker built without cgo, 0 in records made before they
	// were counted (PthreadKeysMax 0).
	PthreadKeysFreeBefore int `json:"pthread_keys_free_before,omitempty"`
	PthreadKeysFree       int `json:"pthread_keys_free,omitempty"`
	PthreadKeysMax        int `json:"pthread_keys_max,omitempty"`
	// Limits are the worker's limits besides memory when the stores were
	// opened, and MemAvailableKB the machine's available memory then
	// (/proc/meminfo): what Walls divides by. nil in older records.
	Limits         *Limits `json:"limits,omitempty"`
	MemAvailableKB int64   `json:"mem_available_kb,omitempty"`
	// Container is the memory charged to the worker's own memory cgroup
	// before and with the stores open; nil when there was none, and then
	// ContainerNA says why.
	Container   *Container `json:"container,omitempty"`
	ContainerNA string     `json:"container_na,omitempty"`
	// EngineS is the time spent opening, counting and closing the held
	// stores (for the study's time budget; not a per-store figure).
	EngineS float64 `json:"engine_s"`
	// OpenMs is the time of each held store's open alone (Variant.Open,
	// not its count), in the order the stores were opened: sample i is
	// the open made with i stores already open and kept open (the n-th
	// open). Absent from records made before it was recorded.
	OpenMs []float64 `json:"open_ms,omitempty"`
	// Server is the memory of the server's processes, for a variant
	// whose stores live in a server (PostgreSQL); nil otherwise.
	Server *ServerMemory `json:"server,omitempty"`
	// Ladder is, for an approximate knn (an index), the held stores asked
	// again after the memory snapshot with more and more notes asked
	// (vector.Ladder), one step per count; none for an exact search or in
	// records made before it was measured.
	Ladder []LadderStep `json:"ladder,omitempty"`
	// PssBeforeKB is, in a hold split over several worker processes
	// (--procs), the process' Pss with no held store open: runtime,
	// libraries (shared with the processes alive then), engine globals.
	PssBeforeKB int64 `json:"pss_before_kb,omitempty"`
	// Procs is, for a hold split over several worker processes (--procs),
	// each process' own hold of its share of the stores, in store order;
	// the fields above are then what they held together (MergeHolds).
	// None for a hold in one process.
	Procs []Hold `json:"procs,omitempty"`
	// ProcsChosenBy says, for a hold whose processes --procs auto chose
	// (Hold.ProcsFor), how: which limit set their number.
	ProcsChosenBy *ProcsChoice `json:"procs_chosen_by,omitempty"`
}

// ProcsChoice is how --procs auto chose a hold's processes
// (Hold.ProcsFor): from the hold before it (none for the first hold,
// held in one process), the limit of a process that set their number
// ("" when one process holds them within Headroom of each limit), the
// stores a process holds within Headroom of it, the limit and what one
// store takes of it.
type ProcsChoice struct {
	FirstHold  bool    `json:"first_hold,omitempty"`
	Limit      string  `json:"limit,omitempty"`
	PerProcess float64 `json:"per_process,omitempty"`
	Most       float64 `json:"most,omitempty"`
	PerStore   float64 `json:"per_store,omitempty"`
	Headroom   float64 `json:"headroom"`
}

// LadderStep is one step of a hold's knn ladder: every held store asked
// for Asked notes nearest to its hold query, the first vector.K of the
// answer kept. Each list holds one sample per held store, in store order.
type LadderStep struct {
	Asked    int       `json:"asked"`
	Ms       []float64 `json:"ms"`       // the knn call's time
	Recall   []float64 `json:"recall"`   // recall@K of the kept ids (vector.Recall)
	Returned []int     `json:"returned"` // the ids kept (at most vector.K)
}

// ServerMemory is the memory of a server's processes (postmaster and
// backends) at a hold's two snapshots, summed over them, in KiB: Pss
// (a page shared by n processes, as the shared buffers are, counts 1/n
// in each, so once in the sum) and Anonymous.
type ServerMemory struct {
	ProcessesBefore int   `json:"processes_before"`
	Processes       int   `json:"processes"`
	PssBeforeKB     int64 `json:"pss_before_kb"`
	PssAfterKB      int64 `json:"pss_after_kb"`
	AnonBeforeKB    int64 `json:"anon_before_kb"`
	AnonAfterKB     int64 `json:"anon_after_kb"`
}

// Container is what a memory cgroup holding only the hold worker was
// charged (v2 memory.current and memory.stat file/anon; v1
// memory.usage_in_bytes, total_cache, total_rss), in bytes, before the
// held stores were opened and with all of them open. The held stores'
// files are evicted from the page cache before the first reading, so the
// pages their opens read are charged to the cgroup, as in a new container.
type Container struct {
	Cgroup      string `json:"cgroup"` // the cgroup's path
	BytesBefore int64  `json:"bytes_before"`
	BytesAfter  int64  `json:"bytes_after"`
	FileBefore  int64  `json:"file_before"`
	FileAfter   int64  `json:"file_after"`
	AnonBefore  int64  `json:"anon_before"`
	AnonAfter   int64  `json:"anon_after"`
}
