package worker

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"manydb/internal/datasource"
	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/memcg"
	"manydb/internal/results"
)

// holdSeed draws the held stores' knn queries (the hold has no run seed).
const holdSeed = 1

// hold opens the first job.Hold stores (of a hold split over processes,
// this process' range of them: job.Job.HeldRange), counts each (and, with
// embeddings, asks it a knn query) and keeps them all
// open, then reports (after − before) / held of the process' memory, and
// the time of each open alone: the k-th is opened with k stores already
// open in this process (the n-th open; its count is outside that span).
// A process of a split hold then waits for the others (awaitRelease).
// Before the first
// snapshot one store is opened, counted and closed: the first store
// outside the held set, or the last store when all are held, so one-time
// set-up of the engine (library initialisation, shared caches) is not
// counted per store; both snapshots follow a garbage collection that
// returns freed Go memory to the OS, so only live memory counts for
// pure-Go engines too. After the second snapshot an approximate knn is
// asked again for more and more notes (askLadder). The loop is locked to
// one OS thread, as the timed phases are.
func hold(j job.Job, v engine.Variant, data datasource.Source, rec *results.Record, loop *storeLoop) error {
	// Only the paths used, made before the first snapshot (as the held
	// set's lists): a slice of every store's path (10 MB for a million
	// stores) would be garbage collected between the snapshots and show
	// as memory freed by the held stores.
	hs := newHeldSet(j)
	defer hs.closeAll()
	want := j.Workload.Objects + j.Appended
	cg, err := joinCgroup(j.Cgroup)
	if err != nil {
		return err
	}
	vis, err := holdVisitor(j, v, data, want)
	if err != nil {
		return err
	}
	steps, kq := holdSteps(vis.a.knn), vis.a.knn
	if kq != nil {
		rec.KNNAsked = kq.asked()
		hs.recall, hs.returned = make([]float64, len(hs.dirs)), make([]int, len(hs.dirs))
	}
	if err := holdWarmUp(vis, loop, steps, want, hs.dirs); err != nil {
		return err
	}
	if err := settle(v, &loop.spent); err != nil {
		return err
	}
	server := serverOf(v)
	start, err := readHoldStart(cg, server, &loop.spent)
	if err != nil {
		return err
	}
	if err := hs.openAll(loop, vis, steps, want); err != nil {
		return err
	}
	if rec.Hold, err = holdRecord(len(hs.dirs), start, cg, hs.openMs, server, &loop.spent); err != nil {
		return err
	}
	if j.Procs > 1 { // a process' own cost, for a split hold's figures
		rec.Hold.PssBeforeKB = start.snap.mem.PssKB
	}
	if err := awaitRelease(j, loop); err != nil {
		return err
	}
	ladder, asking, err := askLadder(j, loop, kq, hs.open, hs.order, want)
	if err != nil {
		return err
	}
	rec.Hold.Ladder = ladder
	closing, err := closeHeld(hs.open)
	hs.open = nil
	if err != nil {
		return err
	}
	rec.Hold.EngineS = (hs.engineTime + asking + closing).Seconds()
	rec.Recall, rec.KNNReturned = hs.recall, hs.returned
	return nil
}

// openAll opens, asks and checks each store of the set in turn, keeping
// it open (the n-th open: openMs[k] is made with k stores open).
func (hs *heldSet) openAll(loop *storeLoop, vis *visitor, steps []job.Query, want int) error {
	kq := vis.a.knn
	return loop.eachStore(len(hs.dirs), hs.order, func(k, i int) error {
		if kq != nil {
			t := time.Now()
			kq.draw(holdSeed, i, want)
			spend(&loop.spent.DataS, t)
		}
		s, err := vis.visit(i, hs.dirs[k], steps, true)
		if err != nil {
			return err
		}
		hs.open = append(hs.open, s)
		hs.openMs[k] = vis.openMs()
		hs.engineTime += vis.engineTime()
		defer spend(&loop.spent.DataS, time.Now())
		if err := vis.check(i, steps, want); err != nil {
			return err
		}
		if hs.recall != nil {
			hs.recall[k], hs.returned[k] = vis.a.recall, len(kq.ids)
		}
		return nil
	})
}

// closeAll closes the stores still open (after a failure).
func (hs *heldSet) closeAll() {
	for _, s := range hs.open {
		s.Close()
	}
}

// heldSet is the stores a hold worker holds (job.Job.HeldRange): their
// directories and, for a share that does not start at store 0, their
// indexes in the order the loop visits them (nil: 0, 1, …); then, as
// they are opened, the open stores, each open's time, each knn's recall
// and answer length, and the time in the engine's calls (without the
// loop's yields).
type heldSet struct {
	dirs       []string
	order      []int
	open       []engine.Store
	openMs     []float64
	recall     []float64
	returned   []int
	engineTime time.Duration
}

// newHeldSet returns the stores j's worker holds, with room for them.
func newHeldSet(j job.Job) *heldSet {
	lo, hi := j.HeldRange()
	hs := &heldSet{dirs: make([]string, hi-lo), openMs: make([]float64, hi-lo), open: make([]engine.Store, 0, hi-lo)}
	if lo > 0 {
		hs.order = make([]int, hi-lo)
	}
	for k := range hs.dirs {
		hs.dirs[k] = storeDir(j, lo+k)
		if hs.order != nil {
			hs.order[k] = lo + k
		}
	}
	return hs
}

// heartbeatEvery is how often a hold worker waiting for the others
// (awaitRelease) prints a progress line.
const heartbeatEvery = time.Second

// awaitRelease, in one of several hold workers (job.Job.Procs), says that
// its stores are open and measured (job.HeldLine) and keeps them open
// until the orchestrator closes its stdin, with a progress line now and
// then so that the watchdog knows it waits. One worker alone goes on.
func awaitRelease(j job.Job, loop *storeLoop) error {
	if j.Procs <= 1 {
		return nil
	}
	defer spend(&loop.spent.ReleaseS, time.Now())
	if _, err := fmt.Fprintln(loop.stderr, job.HeldLine); err != nil {
		return fmt.Errorf("say the stores are held: %w", err)
	}
	released := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, loop.stdin)
		released <- err
	}()
	tick := time.NewTicker(heartbeatEvery)
	defer tick.Stop()
	for {
		select {
		case err := <-released:
			if err != nil {
				return fmt.Errorf("wait for the other hold workers: %w", err)
			}
			return nil
		case <-tick.C:
			if loop.progress.w != nil {
				loop.progress.line(loop.progress.total, loop.progress.total)
			}
		}
	}
}

// holdVisitor returns the hold's visitor of stores of want notes, with a
// knn query when the workload has embeddings.
func holdVisitor(j job.Job, v engine.Variant, data datasource.Source, want int) (*visitor, error) {
	a := newAnswers(data, want)
	// With embeddings each held store also answers a knn query after its
	// count, so that the memory per open store is with its vector index
	// (or vectors) loaded, as an agent's store is after it recalled.
	k, err := newKNN(j, v, data)
	if err != nil {
		return nil, err
	}
	a.knn = k
	return newVisitor(j, v, a), nil
}

// holdSteps are what the hold asks each store: its count, then a knn query
// when k is not nil.
func holdSteps(k *knn) []job.Query {
	if k == nil {
		return []job.Query{job.QueryCount}
	}
	return []job.Query{job.QueryCount, job.QueryKNN}
}

// holdWarmUp visits, untimed, one store outside the held set (the last
// store when all are held), so that one-time set-up of the engine
// (library initialisation, shared caches, the check's buffers) is not
// counted per store. In a cgroup, it then evicts the held stores' pages,
// which their opens read again, so that they are charged to the cgroup,
// as in a new container.
func holdWarmUp(vis *visitor, loop *storeLoop, steps []job.Query, want int, dirs []string) error {
	j := vis.j
	warm := min(j.Hold, j.Stores-1)
	loop.at(warm)
	if vis.a.knn != nil {
		vis.a.knn.draw(holdSeed, warm, want)
	}
	if err := warmUp(vis, loop, warm, job.StoreDir(j.Dir, warm, j.Fanout), steps, want); err != nil {
		return err
	}
	if j.Cgroup == "" {
		return nil
	}
	defer spend(&loop.spent.CacheS, time.Now())
	return spread(len(dirs), func(_, i int) error {
		if err := measure.Evict(dirs[i]); err != nil {
			return storeError(j, i, "evict from the page cache", err)
		}
		return nil
	})
}

// joinCgroup moves the process into the memory cgroup at path, if one is
// given, and returns it.
func joinCgroup(path string) (*memcg.Group, error) {
	if path == "" {
		return nil, nil
	}
	g := memcg.Open(path)
	if err := g.Join(os.Getpid()); err != nil {
		return nil, err
	}
	return &g, nil
}

// holdStart is what the hold reads before its first store opens.
type holdStart struct {
	snap    procSnapshot
	limits  results.Limits
	availKB int64
	keysMax int
	charge  memcg.Charge // in a cgroup
}

// readHoldStart takes the first snapshot and reads the process' limits,
// the machine's available memory and, in cgroup cg, its charge.
func readHoldStart(cg *memcg.Group, server serverProcs, spent *results.WorkerTime) (holdStart, error) {
	defer spend(&spent.MemoryS, time.Now())
	var h holdStart
	var err error
	if h.snap, err = snapshot(server); err != nil {
		return h, err
	}
	if h.limits, err = measure.ReadLimits(); err != nil {
		return h, err
	}
	if h.availKB, err = measure.MemAvailableKB(); err != nil {
		return h, err
	}
	_, h.keysMax = freePthreadKeys()
	if cg != nil {
		h.charge, err = readSettled(cg, spent) // the eviction's effect in memory.stat
	}
	return h, err
}

// holdRecord takes the second snapshot, with held stores open, and
// returns the hold's figures: (after − before) / held of the process'
// memory, and the counts before and after.
func holdRecord(held int, start holdStart, cg *memcg.Group, openMs []float64, server serverProcs, spent *results.WorkerTime) (*results.Hold, error) {
	defer spend(&spent.MemoryS, time.Now())
	after, err := snapshot(server)
	if err != nil {
		return nil, err
	}
	var container *results.Container
	if cg != nil {
		cAfter, err := readSettled(cg, spent)
		if err != nil {
			return nil, err
		}
		container = &results.Container{Cgroup: cg.Path, BytesBefore: start.charge.Bytes, BytesAfter: cAfter.Bytes,
			FileBefore: start.charge.File, FileAfter: cAfter.File, AnonBefore: start.charge.Anon, AnonAfter: cAfter.Anon}
	}
	before, h := start.snap, float64(held)
	sm := serverMemory(before, after)
	var serverPss, serverAnon int64
	if sm != nil {
		serverPss, serverAnon = sm.PssAfterKB-sm.PssBeforeKB, sm.AnonAfterKB-sm.AnonBeforeKB
	}
	return &results.Hold{
		Held:          held,
		RssKB:         float64(after.mem.RssKB-before.mem.RssKB+serverPss) / h,
		AnonKB:        float64(after.mem.AnonKB-before.mem.AnonKB+serverAnon) / h,
		Server:        sm,
		RssBeforeKB:   before.mem.RssKB,
		RssAfterKB:    after.mem.RssKB,
		AnonBeforeKB:  before.mem.AnonKB,
		AnonAfterKB:   after.mem.AnonKB,
		ThreadsBefore: before.threads,
		Threads:       after.threads,
		FDsBefore:     before.fds,
		FDs:           after.fds,

		GoroutinesBefore:      before.goroutines,
		Goroutines:            after.goroutines,
		MappingsBefore:        before.mappings,
		Mappings:              after.mappings,
		PthreadKeysFreeBefore: before.keysFree,
		PthreadKeysFree:       after.keysFree,
		PthreadKeysMax:        start.keysMax,
		Limits:                &start.limits,
		MemAvailableKB:        start.availKB,
		Container:             container,
		OpenMs:                openMs,
	}, nil
}

// readSettled reads cg's charge once its statistics have settled
// (memcg.Group.ReadSettled), its wait kept as the account's SettleS and
// taken out of its MemoryS, which the caller adds.
func readSettled(cg *memcg.Group, spent *results.WorkerTime) (memcg.Charge, error) {
	t := time.Now()
	c, err := cg.ReadSettled()
	d := time.Since(t).Seconds()
	spent.SettleS += d
	spent.MemoryS -= d
	return c, err
}

// closeHeld closes the held stores and returns how long that took.
func closeHeld(open []engine.Store) (time.Duration, error) {
	start := time.Now()
	for k, s := range open {
		if err := s.Close(); err != nil {
			for _, rest := range open[k+1:] {
				rest.Close()
			}
			return 0, fmt.Errorf("close a held store: %w", err)
		}
	}
	return time.Since(start), nil
}

type procSnapshot struct {
	mem        measure.Memory
	server     *serverSnapshot // nil but for a store on a server
	threads    int
	fds        int
	goroutines int
	mappings   int
	keysFree   int // pthread keys still free; -1 when not known
}

// snapshot collects garbage, returns freed Go memory to the OS and reads
// the process' memory, threads, open files, goroutines, memory mappings
// and free pthread keys. The memory is read first: the others allocate.
func snapshot(server serverProcs) (procSnapshot, error) {
	debug.FreeOSMemory() // a full collection first
	s := procSnapshot{goroutines: runtime.NumGoroutine()}
	var err error
	if s.mem, err = measure.ReadMemory(); err != nil {
		return s, err
	}
	if s.server, err = server.snapshot(); err != nil {
		return s, err
	}
	if s.threads, err = measure.Threads(); err != nil {
		return s, err
	}
	if s.fds, err = measure.OpenFiles(); err != nil {
		return s, err
	}
	if s.mappings, err = measure.Mappings(); err != nil {
		return s, err
	}
	s.keysFree, _ = freePthreadKeys()
	return s, nil
}

// serverProcs lists a server's processes (engine.ServerVariant); nil for
// an engine in the worker's process.
type serverProcs func() ([]int, error)

// settle waits, for a variant that closes stores in the background
// (engine.Settler), until the stores closed before the hold's first
// snapshot (its warm-up's) are closed for good; the wait is an untimed
// engine call.
func settle(v engine.Variant, spent *results.WorkerTime) error {
	s, ok := base(v).(engine.Settler)
	if !ok {
		return nil
	}
	defer spend(&spent.UntimedS, time.Now())
	if err := s.Settle(); err != nil {
		return fmt.Errorf("before the hold's first snapshot: %w", err)
	}
	return nil
}

// serverOf returns v's server's processes, or nil.
func serverOf(v engine.Variant) serverProcs {
	if sv, ok := base(v).(engine.ServerVariant); ok {
		return sv.ServerProcesses
	}
	return nil
}

// serverSnapshot is the memory of a server's processes.
type serverSnapshot struct {
	mem       measure.Memory
	processes int
}

// snapshot reads the memory of the server's processes; nil for none.
func (sp serverProcs) snapshot() (*serverSnapshot, error) {
	if sp == nil {
		return nil, nil
	}
	pids, err := sp()
	if err != nil {
		return nil, fmt.Errorf("the server's processes: %w", err)
	}
	m, n, err := measure.ProcessesMemory(pids)
	if err != nil {
		return nil, err
	}
	return &serverSnapshot{mem: m, processes: n}, nil
}

// serverMemory is the record of the server's memory at the hold's two
// snapshots; nil for an engine in the worker's process.
func serverMemory(before, after procSnapshot) *results.ServerMemory {
	if before.server == nil || after.server == nil {
		return nil
	}
	b, a := before.server, after.server
	return &results.ServerMemory{ProcessesBefore: b.processes, Processes: a.processes,
		PssBeforeKB: b.mem.PssKB, PssAfterKB: a.mem.PssKB, AnonBeforeKB: b.mem.AnonKB, AnonAfterKB: a.mem.AnonKB}
}
