package orchestrate

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	units "github.com/docker/go-units"

	"manydb/internal/job"
	"manydb/internal/memcg"
	"manydb/internal/results"
)

// A cell is one variant under one setting in one layout in a study: its
// stores' dir, its worker binary and the phases it runs there. Its
// methods run those phases; what they share across cells (the results
// file, the budget, the cells done) is the study's.
type cell struct {
	*study
	where
	dir string // its stores: ROOT/SETTING/VARIANT, ROOT/SETTING/VARIANT-shared
	bin string // its worker binary
	// gap is the longest gap between progress lines of its workers so
	// far, from which the watchdog's default rule starts for the next.
	gap time.Duration
}

// cell returns the cell of w.
func (s *study) cell(w where) *cell {
	fam, _ := s.family(w.v)
	return &cell{study: s, where: w, dir: filepath.Join(s.Root, w.set.Name, w.layout.Mark(w.v, "-")), bin: filepath.Join(s.BinDir, fam.Binary)}
}

// variant runs the phases of one variant under one setting that are not
// recorded yet, then removes its stores (unless --keep, a phase failed or
// leaveStores is set); failed says whether a phase failed.
func (c *cell) run(ctx context.Context) (failed bool, err error) {
	if why := c.notApplicable(c.where); why != "" {
		if c.done[cellKey{c.key(), job.PhaseCreate, 0, ""}] {
			return false, nil
		}
		return false, c.record(results.Record{Study: c.id, Variant: c.v, Setting: c.set.Name, Layout: c.layout, Phase: job.PhaseCreate,
			Status: results.StatusNotApplicable, Workload: c.Workload, Stores: c.Stores, Started: time.Now().UTC(),
			Error: why})
	}
	var todo []phase
	for _, p := range c.phases() {
		if !c.done[cellKey{c.key(), p.name, p.run, p.cache}] {
			todo = append(todo, p)
		}
	}
	if len(todo) == 0 {
		return false, nil
	}
	todo, err = c.readyStores(todo)
	if err != nil {
		return false, err
	}
	for _, p := range todo {
		ok, err := c.phase(ctx, p, p.replay)
		if err != nil {
			return false, err
		}
		failed = failed || !ok
		if p.name == job.PhaseTurn && !ok {
			// The stores now differ in their number of notes: the next
			// turn run cannot know what to expect. A rerun rebuilds them.
			fmt.Fprintf(c.Log, "%s (%s): a turn run failed, skipping the turn runs after it\n", c.name(), c.set.Name)
			break
		}
		if (p.name == job.PhaseCreate || p.name == job.PhaseDelete) && !ok {
			// A rerun always creates the stores again: the partial ones
			// only take space, and a delete has removed agents.
			fmt.Fprintf(c.Log, "%s (%s): %s failed, skipping its other phases and removing its stores\n", c.name(), c.set.Name, p.name)
			return true, c.remove(c.dir, c.v)
		}
	}
	switch {
	case c.Keep, c.leaveStores && !failed:
		return failed, nil
	case failed:
		// Kept for a rerun of the same command, which redoes only the
		// failed cells on these stores.
		fmt.Fprintf(c.Log, "%s (%s): keeping its stores in %s for the failed phases: the same command redoes them (if a store itself is damaged, remove %s first and the stores are made again)\n", c.name(), c.set.Name, c.dir, c.dir)
		return true, nil
	}
	return false, c.discard(c.dir, c.v)
}

// readyStores readies dir's stores for the phases todo and returns the
// phases then left: a create first unless the stores are reused, kept by
// another study or taken from a larger count of the sweep. When that
// create only makes the stores again (its cell is recorded), it and the
// turn runs recorded before the first turn run left are replays
// (replayTurns), so that turn run finds the notes it expects.
//
// The stores of a recorded create phase are reused only if they are the
// complete set made for this study, variant, setting, workload and engine
// version (their manifest says so). Otherwise they are made anew; when the
// create is recorded already, its figure stands and the new stores only
// serve the remaining phases. Before a create, only what manydb made in
// dir is removed, and a manifest marked creating names what it makes.
func (c *cell) readyStores(todo []phase) (left []phase, err error) {
	rebuild := false
	if todo[0].name != job.PhaseCreate {
		if ok, why := c.storesReady(); !ok {
			fmt.Fprintf(c.Log, "%s (%s): the stores in %s cannot be reused (%s); creating them again for the remaining phases (the create figure recorded earlier stands)\n", c.name(), c.set.Name, c.dir, why)
			todo = append([]phase{{name: job.PhaseCreate, replay: true}}, c.replayTurns(todo)...)
			rebuild = true
		}
	}
	if !rebuild && todo[0].name == job.PhaseCreate && c.Serve != nil {
		reused, err := c.reuseKept()
		if err != nil {
			return nil, err
		}
		if reused {
			todo = todo[1:]
		}
	}
	if !rebuild && len(todo) > 0 && todo[0].name == job.PhaseCreate && c.from != nil {
		taken, err := c.takeFromSweep()
		if err != nil {
			return nil, err
		}
		if taken {
			todo = todo[1:]
		}
	}
	if len(todo) > 0 && todo[0].name == job.PhaseCreate {
		if err := c.remove(c.dir, c.v); err != nil {
			return nil, err
		}
		// The trash is emptied first if these stores would not fit
		// beside it.
		if err := c.trash.makeRoom(c.storesBytes()*(1+spaceMargin), &c.budget); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(c.dir, 0o755); err != nil {
			return nil, fmt.Errorf("create store directory: %w", err)
		}
		if err := markCreating(c.dir, c.manifest(c.set, c.v)); err != nil {
			return nil, err
		}
	}
	return todo, nil
}

// storesReady tells whether dir holds the stores this study's remaining
// phases need, and if not, why: its own complete set, or in a sweep the
// largest count's set, whose first Stores stores are this study's.
func (c *cell) storesReady() (bool, string) {
	ok, why := storesMatch(c.dir, c.manifest(c.set, c.v))
	if ok || c.from == nil {
		return ok, why
	}
	if ok, _ := storesMatch(c.dir, c.from.manifest(c.set, c.v)); ok {
		return true, ""
	}
	return false, why
}

// takeFromSweep gives a smaller count of a sweep its stores: the first
// Stores stores of the largest count's set in dir, when that set is
// complete and its create is recorded. The create record holds those
// stores' own samples (they were made first, in the same order, so store
// i was created beside i others, as in a study of this count) and names
// the study that made them; its wall time is left out (that create made
// more stores), so it has no stores-per-second figure.
func (c *cell) takeFromSweep() (bool, error) {
	key := c.key()
	src := c.from.creates[key]
	if src == nil || len(src.CreateMs) < c.Stores {
		return false, nil
	}
	if ok, _ := storesMatch(c.dir, c.from.manifest(c.set, c.v)); !ok {
		return false, nil
	}
	rec := *src
	rec.Study, rec.Stores, rec.StoresFrom, rec.Sweep = c.id, c.Stores, c.from.id, c.sweepID
	rec.CreateMs, rec.WallS, rec.WorkerS, rec.LoadDuring = slices.Clone(src.CreateMs[:c.Stores]), 0, 0, nil
	fmt.Fprintf(c.Log, "%s (%s): the first %d of the %d stores made by study %s\n", c.name(), c.set.Name, c.Stores, c.from.Stores, c.from.id)
	return true, c.record(rec)
}

// reuseKept takes over for a serve study the stores that another study
// kept in dir (manydb run --keep with the same --root), when their
// manifest matches this study's variant, setting, workload, store count
// and engine versions and no turn or serve phase changed them unevenly. It
// records the create cell as n/a naming that study (no create figure is
// copied from other stores) and reports whether it took them.
func (c *cell) reuseKept() (bool, error) {
	got, err := readManifest(c.dir)
	if err != nil || got.Study == c.id {
		return false, nil
	}
	want := c.manifest(c.set, c.v)
	want.Study = got.Study
	if ok, _ := storesMatch(c.dir, want); !ok {
		return false, nil
	}
	if !got.Kept {
		fmt.Fprintf(c.Log, "%s (%s): not reusing the stores in %s: study %s made them without --keep (it may resume on them); this study makes its own\n",
			c.name(), c.set.Name, c.dir, got.Study)
		return false, nil
	}
	if missing := missingStore(c.dir, c.Stores, c.Fanout); missing != "" {
		fmt.Fprintf(c.Log, "%s (%s): not reusing the stores kept in %s by study %s: %s is missing; this study makes its own\n",
			c.name(), c.set.Name, c.dir, got.Study, missing)
		return false, nil
	}
	fmt.Fprintf(c.Log, "%s (%s): reusing the %d stores kept in %s by study %s (no create figure); serve appends to them, so they are removed at the end unless --keep\n",
		c.name(), c.set.Name, c.Stores, c.dir, got.Study)
	m := got
	m.Study, m.CreatedBy = c.id, got.Study
	if err := writeManifest(c.dir, m); err != nil {
		return false, err
	}
	return true, c.record(results.Record{Study: c.id, Variant: c.v, Setting: c.set.Name, Layout: c.layout, Phase: job.PhaseCreate,
		Status: results.StatusNotApplicable, Workload: c.Workload, Stores: c.Stores, Started: time.Now().UTC(), StoresFrom: got.Study,
		Error: fmt.Sprintf("stores kept by study %s reused: not created by this study", got.Study)})
}

// phase runs one worker and appends its record; ok is false when the phase
// failed (its failed record is appended). err is for problems that stop
// the study (interrupt, results file).
//
// A rebuild is a create that only makes the stores again for the phases
// left (the create cell is recorded already): its record is not appended.
func (c *cell) phase(ctx context.Context, p phase, rebuild bool) (ok bool, err error) {
	label := c.phaseLabel(p, rebuild)
	load, wait, err := c.awaitLoad(ctx, label)
	if err != nil {
		return false, err
	}
	if why := c.skipReason(p); why != "" {
		fmt.Fprintf(c.Log, "%s: skipped: %s\n", label, why)
		return true, c.record(c.skippedRecord(p, why))
	}
	if rec, failed := c.serverFailed(p, label); failed {
		return false, c.recordUnlessRebuild(rec, rebuild)
	}
	wj := c.workerJob(p)
	// The hold worker reports what a container holding only it is charged,
	// in a memory cgroup of its own when one can be made here.
	var cgroupNA string
	var removeCgroup func()
	wj.Cgroup, cgroupNA, removeCgroup = c.holdCgroup(p, label)
	defer removeCgroup()
	// A serve worker under --memory-max runs in a cgroup of its own with
	// that limit.
	var limited *memcg.Group
	if p.name == job.PhaseServe && c.Serve.MemoryMaxBytes > 0 {
		g, remove, err := c.makeLimitedCgroup(label, c.Serve.MemoryMaxBytes)
		if err != nil {
			return false, err
		}
		defer remove()
		limited, wj.Cgroup = &g, g.Path
	}
	m, err := prepareStores(c.dir, p, label)
	if err != nil {
		return false, err
	}
	wj.Appended = m.Appended
	args := wj.Args()
	started := time.Now().UTC()
	res, during := c.runPhaseWorker(ctx, label, args, wj)
	if res.args != nil { // the process of a split step that failed
		args = res.args
	}
	if ctx.Err() != nil {
		return false, fmt.Errorf("interrupted during %s; the records of finished phases are in %s, and the same command resumes the study", label, c.Out)
	}
	rec := res.rec
	var limit *results.MemoryLimit
	if limited != nil {
		if limit, err = c.readLimit(*limited); err != nil {
			return false, fmt.Errorf("%s: %w", label, err)
		}
	}
	timed := res // what the time budget counts: an OOM-killed worker's time as a failed one's, not as manydb's own work
	switch {
	case res.err != nil && limit != nil && limit.OOMKills > 0:
		rec = c.oomKilled(res, label, args, p, limit)
		res.err = nil // an outcome of the step, not a failure
	case res.err != nil:
		rec = c.phaseFailed(res, label, args, p)
	case limit != nil:
		rec.Serve.Limit = limit
	}
	c.noteHold(rec.Hold, p, cgroupNA)
	rec.Study, rec.Setting, rec.Layout, rec.Load1, rec.Started, rec.Sweep = c.id, c.set.Name, c.layout, load, started, c.sweepID
	rec.MaxLoad, rec.WaitS, rec.WorkerS, rec.LoadDuring = c.MaxLoad, wait, res.seconds, during
	if p.name == job.PhaseServe { // the study that made the stores it serves
		rec.StoresFrom = cmp.Or(m.CreatedBy, m.Study)
	}
	if res.err == nil {
		if err := c.markStores(p, m); err != nil {
			return false, err
		}
	}
	c.countWorkerTime(timed, rec, rebuild)
	if rebuild {
		return res.err == nil, nil
	}
	return res.err == nil, c.record(rec)
}

// phaseLabel names a phase on the console and in failures: the variant,
// its setting when there are several or it is not the default, the phase.
func (c *cell) phaseLabel(p phase, rebuild bool) string {
	label := fmt.Sprintf("%s %s", c.name(), p)
	if len(c.Settings) > 1 || c.set.Name != "default" {
		label = fmt.Sprintf("%s [%s] %s", c.name(), c.set.Name, p)
	}
	switch {
	case rebuild && p.name == job.PhaseCreate:
		label += " (stores made again, not recorded)"
	case rebuild:
		label += " (redone on the stores made again, not recorded)"
	}
	return label
}

// skipReason says why a phase that holds many stores open, a serve pool or
// one of several hold counts, would not fit here (tooManyOpen); "" to run
// it. The reference's one hold phase always runs.
func (c *cell) skipReason(p phase) string {
	switch {
	case p.name == job.PhaseServe:
		// Under --memory-max the cgroup's limit guards the machine, and
		// what happens past it is the step's figure.
		return c.tooManyOpen(c.key(), p.pool, c.inUse(p), c.Procs, c.Serve.MemoryMaxBytes == 0)
	case p.name == job.PhaseHold && p.run > 0:
		procs, _ := c.holdProcs(p)
		if procs < 1 {
			return c.cannotSplit(p)
		}
		return c.tooManyOpen(c.key(), p.hold, 0, procs, true)
	case p.name == job.PhaseOpen && p.cache != "" && p.cache != job.CacheWarm:
		fam, _ := c.family(c.v)
		return fam.NoCold[c.v]
	}
	return ""
}

// skippedRecord is the n/a record of a phase skipped for why.
func (c *cell) skippedRecord(p phase, why string) results.Record {
	rec := results.Record{Study: c.id, Variant: c.v, Setting: c.set.Name, Layout: c.layout, Phase: p.name,
		Status: results.StatusNotApplicable, Workload: c.Workload, Stores: c.Stores, Started: time.Now().UTC(),
		Error: why, Sweep: c.sweepID}
	rec.SetRepeat(p.run)
	switch p.name {
	case job.PhaseServe:
		rec.Serve = &results.Serve{Pool: p.pool, Rate: p.rate}
	case job.PhaseHold:
		rec.Hold = &results.Hold{Held: p.hold}
	case job.PhaseOpen:
		rec.Cache = p.cache
	}
	return rec
}

// workerJob is the job of phase p's worker on the stores in dir.
func (c *cell) workerJob(p phase) job.Job {
	wj := job.Job{Variant: c.v, Phase: p.name, Dir: c.dir, Stores: c.Stores, Workload: c.Workload,
		Fanout: c.Fanout, Layout: c.layout, Progress: true}
	fam, _ := c.family(c.v)
	c.set.Apply(&wj, fam.Cgo) // a cgo worker proves it runs with the setting's malloc, or fails
	if srv := c.server(); c.isServerPhase() && srv.running() {
		wj.Server = srv.dsn(c.where)
	}
	if c.KNNOversample > 1 && (p.name == job.PhaseOpen || p.name == job.PhaseTurn || p.name == job.PhaseHold || p.name == job.PhaseServe) {
		wj.KNNOversample = c.KNNOversample
	}
	switch p.name {
	case job.PhaseOpen:
		wj.Run, wj.Seed, wj.Queries, wj.Cache = p.run, uint64(p.run), c.Queries, p.cache
		// A warm run starts warm: the machine may have evicted the
		// stores' pages since their create or the run before (a VM's
		// balloon, a sweep's larger counts), so the worker reads them in
		// first, outside the timing.
		wj.Prewarm = p.cache == ""
	case job.PhaseTurn:
		wj.Run, wj.Seed = p.run, uint64(p.run)
		wj.Prewarm = true // as a warm open run: the cold runs may have evicted the stores
	case job.PhaseServe:
		// The same agents' sequence for every pool size.
		wj.Run, wj.Seed = p.run, 1
		// Without a memory limit serve is warm, as a warm open run;
		// under one, the worker evicts the stores on purpose.
		wj.Prewarm = c.Serve.MemoryMaxBytes == 0
		wj.Serve = job.Serve{Pool: p.pool, Requests: c.Serve.Requests, Concurrency: c.Serve.Concurrency, Zipf: c.Serve.Zipf, Rate: p.rate,
			PoolTime: time.Duration(c.Serve.PoolTimeS * float64(time.Second))}
		if c.Procs > 1 { // each process' share of the pool and goroutines: runServeWorkers
			wj.Procs = c.Procs
		}
	case job.PhaseHold:
		wj.Hold, wj.Run = p.hold, p.run
		if procs, _ := c.holdProcs(p); procs > 1 {
			wj.Procs = procs
		}
	case job.PhaseDelete:
		wj.Seed, wj.Deletes = 1, c.Deletes
	}
	return wj
}

// oomKilled is the record of a serve step whose worker the OOM killer
// ended at its memory limit: an outcome (StatusOOMKilled), said on the
// console, not counted as a failure.
func (c *cell) oomKilled(res workerResult, label string, args []string, p phase, limit *results.MemoryLimit) results.Record {
	rec := failedRecord(res, c.bin, args, c.v, p.name, p.run, c.Workload, c.Stores)
	rec.Status = results.StatusOOMKilled
	rec.Error = fmt.Sprintf("the OOM killer ended the worker at its memory limit of %s (%v)", units.BytesSize(float64(limit.LimitBytes)), res.err)
	rec.Serve = &results.Serve{Pool: p.pool, Rate: p.rate, Limit: limit}
	fmt.Fprintf(c.Log, "%s: %s\n", label, rec.Error)
	return rec
}

// runPhaseWorker runs the worker of job wj (its arguments args) on the
// stores in dir with the job's environment, showing its progress
// (job.Job.Units) and watching it (the watchdog), and returns its result
// and the load samples taken while it ran. A hold or serve step split
// over several processes runs them all (runHoldWorkers, runServeWorkers).
func (c *cell) runPhaseWorker(ctx context.Context, label string, args []string, wj job.Job) (workerResult, []float64) {
	total, unit := wj.Units()
	if wj.Procs > 1 && wj.Phase == job.PhaseHold {
		total = wj.Hold // each process counts its share
	}
	sampler := startLoadSampler(c.SampleEvery)
	c.Bar.Start(label, total, unit)
	logAt := c.server().logSize()
	var res workerResult
	switch {
	case wj.Procs > 1 && wj.Phase == job.PhaseServe:
		res = c.runServeWorkers(ctx, label, wj)
	case wj.Procs > 1:
		res = c.runHoldWorkers(ctx, label, wj)
	default:
		res = runWorker(ctx, c.workerCmd(label, args, wj, c.Bar.Set))
	}
	c.Bar.Done()
	c.gap = max(c.gap, res.longestGap)
	if res.err != nil && c.isServerPhase() {
		res.err = c.server().withComplaint(res.err, logAt)
	}
	return res, sampler.stop()
}

// workerCmd is how to run and watch the worker of job wj (its arguments
// args), its progress lines going to onProgress.
func (c *cell) workerCmd(label string, args []string, wj job.Job, onProgress func(done, total int)) workerCmd {
	total, unit := wj.Units()
	return workerCmd{bin: c.bin, args: args, env: wj.Environ(c.Env), onProgress: onProgress, stall: c.StallLimit,
		patience: c.gap, unit: unit, total: total, storeDir: func(i int) string { return c.layout.StoreDir(c.dir, i, c.Fanout) },
		label: label, log: c.Log, halted: c.server().stopped}
}

// phaseFailed is the failed record of phase p, whose worker failed (and
// the root's free space, when full); it is counted and said on the console.
func (c *cell) phaseFailed(res workerResult, label string, args []string, p phase) results.Record {
	res.err = withFreeSpace(res.err, c.Root)
	rec := failedRecord(res, c.bin, args, c.v, p.name, p.run, c.Workload, c.Stores)
	if p.name == job.PhaseOpen || p.name == job.PhaseTurn {
		rec.Seed = uint64(p.run)
	}
	rec.Cache = p.cache
	c.failed = append(c.failed, label)
	fmt.Fprintf(c.Log, "%s failed: %v\n  command: %s\n", label, res.err, strings.Join(rec.Command, " "))
	return rec
}

// markStores updates the manifest of the stores in dir after phase p
// succeeded, before its record is appended: a kill between the two makes
// the rerun create (and record) the stores again, or rebuild them after a
// turn (which the rerun records once).
func (c *cell) markStores(p phase, m Manifest) error {
	switch p.name {
	case job.PhaseCreate:
		return writeManifest(c.dir, c.manifest(c.set, c.v))
	case job.PhaseTurn:
		m.Uneven, m.Appended = false, m.Appended+1
		return writeManifest(c.dir, m)
	}
	return nil
}

// missingStore returns the first of the stores 0…n-1 in dir (laid out
// with fanout) that is not there, or "".
func missingStore(dir string, n, fanout int) string {
	for i := range n {
		path := job.StoreDir(dir, i, fanout)
		if _, err := os.Lstat(path); err != nil {
			return fmt.Sprintf("store %d (%s)", i, path)
		}
	}
	return ""
}

// prepareStores readies the stores in dir for phase p and returns their
// manifest (none before a create): a turn or serve phase marks them
// uneven before it changes them, a delete phase marks them deleting
// before it deletes agents, a drop run drops the page cache.
func prepareStores(dir string, p phase, label string) (Manifest, error) {
	var m Manifest
	if p.name != job.PhaseCreate {
		// Notes appended by earlier turn runs are part of every answer.
		var err error
		if m, err = readManifest(dir); err != nil {
			return m, fmt.Errorf("%s: %w", label, err)
		}
	}
	switch p.name {
	case job.PhaseTurn, job.PhaseServe:
		// Serve appends to each store as often as its agent is drawn:
		// unevenly, so the stores are not reused by a rerun either.
		m.Uneven = true
	case job.PhaseDelete:
		m.Deleting = true
	}
	if m.Uneven || m.Deleting {
		if err := writeManifest(dir, m); err != nil {
			return m, err
		}
	}
	if p.cache == job.CacheDrop {
		if err := dropCaches(); err != nil {
			return m, fmt.Errorf("%s: %w", label, err)
		}
	}
	return m, nil
}

// serverFailed is the failed record of a phase of a server's variant
// when the server did not start, has exited or is stopped, or does not
// accept connections again within recoveryWait after a crash (await).
func (c *cell) serverFailed(p phase, label string) (results.Record, bool) {
	if !c.isServerPhase() {
		return results.Record{}, false
	}
	srv := c.server()
	err := srv.exited()
	if err == nil {
		err = srv.await(c.Log, label)
	}
	if err == nil {
		return results.Record{}, false
	}
	fam, _ := c.family(c.v)
	rec := c.skippedRecord(p, fam.Server+": "+err.Error())
	rec.Status = results.StatusFailed
	c.failed = append(c.failed, label)
	fmt.Fprintf(c.Log, "%s: failed: %v\n", label, err)
	return rec, true
}

// server is the run's server that cell c's variant keeps its stores in
// (nil for a variant of no server).
func (c *cell) server() *runServer {
	fam, _ := c.family(c.v)
	return c.servers[fam.Server]
}

// isServerPhase tells whether the phases of cell c run against the server.
func (c *cell) isServerPhase() bool {
	fam, _ := c.family(c.v)
	return fam.Server != ""
}

// recordUnlessRebuild appends rec, but not for a rebuild's phase.
func (c *cell) recordUnlessRebuild(rec results.Record, rebuild bool) error {
	if rebuild {
		return nil
	}
	return c.record(rec)
}

// holdCgroup makes the memory cgroup of a hold phase's worker: its path,
// or why there is none, and what removes it (a no-op for other phases).
func (c *cell) holdCgroup(p phase, label string) (path, na string, remove func()) {
	switch {
	case p.name != job.PhaseHold:
		return "", "", func() {}
	case c.isServerPhase():
		return "", serverNoCgroup, func() {}
	}
	return c.makeCgroup(label)
}
