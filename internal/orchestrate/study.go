// Package orchestrate runs a study (manydb run, and manydb serve, a study
// whose phases serve requests) and a profile (manydb profile): one fresh worker process per phase, each phase's record
// appended to the results file as soon as the phase ends, a study resumed
// cell by cell when run again. It links no engine: it knows the workers by
// the catalog in internal/engine and talks to them through their command
// line (job.Job.Args), stdout (one JSON record) and stderr (progress).
package orchestrate

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	units "github.com/docker/go-units"

	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/memcg"
	"manydb/internal/results"
	"manydb/internal/settings"
)

// Run runs the study, or resumes it, and returns its id. Records already in
// the results file stay there; the study's records are appended.
func Run(ctx context.Context, c Config) (studyID string, err error) {
	versions, byVariant, err := c.checkInputs(ctx)
	if err != nil {
		return "", err
	}
	ss, err := openSession(c)
	defer ss.close()
	if err != nil {
		return "", err
	}
	c.setDefaults()
	c.removeStaleCgroups()
	if secs := c.ScheduleSeconds(); secs > 0 {
		fmt.Fprintf(c.Log, "open loop at %g requests/s: the schedule alone takes about %s\n", c.Serve.Rate, FormatSeconds(secs))
	}
	studies := newStudies(c, ss, byVariant)
	for _, s := range studies {
		if err := s.writeEnv(versions); err != nil {
			return s.id, err
		}
	}
	if id, err := runVariants(ctx, c, studies); err != nil {
		return id, err
	}
	return endStudies(studies)
}

// checkInputs checks every input before anything is created or changed,
// and returns the engines' versions: all of them, and by variant.
func (c *Config) checkInputs(ctx context.Context) (versions map[string]string, byVariant map[string]map[string]string, err error) {
	if err := c.resolveSettings(); err != nil {
		return nil, nil, err
	}
	c.normalize()
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	if _, err := readPrior(c.Out); err != nil {
		return nil, nil, err
	}
	if err := results.CheckAppendable(c.Out); err != nil {
		return nil, nil, &InputError{fmt.Sprintf("%v: choose another --out", err)}
	}
	if !c.SkipSpaceCheck {
		if err := c.checkSpace(); err != nil {
			return nil, nil, err
		}
	}
	return c.engineVersions(ctx)
}

// session is what a run holds while it runs: locks on the data root and
// on the results file (a second run on either exits with a message), the
// records in the results file before it, and the writer appending to it.
type session struct {
	claim
	prior []results.Record
	w     *results.Writer
}

// openSession locks the results file, makes the data root ready and
// locks it, reads the records in the results file (under the lock),
// empties the root's trash and opens the results file for appending. The
// results file is locked first, so a run refused because another holds it
// creates no root; a refused run removes what it created. close releases
// what it took, also when it returns an error.
func openSession(c Config) (*session, error) {
	ss := &session{}
	if err := ss.lockOut(c.Out); err != nil {
		return ss, err
	}
	if err := ss.lockRoot(c.Root, "--root"); err != nil {
		return ss, undoAfter(err, &ss.claim)
	}
	var err error
	if ss.prior, err = readPrior(c.Out); err != nil {
		return ss, err
	}
	if err := EmptyTrash(c.Root); err != nil {
		return ss, err
	}
	w, err := results.OpenWriter(c.Out)
	if err != nil {
		return ss, &InputError{fmt.Sprintf("results file %s cannot be written (%v): choose another --out", c.Out, errors.Unwrap(err))}
	}
	ss.w = w
	return ss, nil
}

// close closes the results file and releases the locks, the last taken
// first.
func (ss *session) close() {
	if ss.w != nil {
		ss.w.Close()
	}
	ss.release()
}

// setDefaults fills in the progress bar, load sampling interval and load
// reader left unset.
func (c *Config) setDefaults() {
	if c.Bar == nil {
		c.Bar = NewProgress(c.Log)
	}
	if c.SampleEvery <= 0 {
		c.SampleEvery = 10 * time.Second
	}
	if c.ReadLoad == nil {
		c.ReadLoad = measure.Load1
	}
}

// newStudies returns one study per store count (the store count itself,
// or each count of a sweep, largest first), each resuming its study in the
// results file when it can, and links the studies of a sweep.
func newStudies(c Config, ss *session, byVariant map[string]map[string]string) []*study {
	var studies []*study
	for _, n := range c.storeCounts() {
		sc := c
		sc.Stores = n
		sc.Holds = slices.DeleteFunc(slices.Clone(c.Holds), func(h int) bool { return h > n })
		if len(sc.Holds) == 0 {
			sc.Holds = []int{n}
		}
		sc.Hold = sc.Holds[len(sc.Holds)-1]
		s := &study{Config: sc, w: ss.w, start: time.Now(), done: map[cellKey]bool{}, held: map[storesKey]results.Hold{},
			creates: map[storesKey]*results.Record{}, servedFDs: map[storesKey]float64{}, versions: byVariant}
		s.id = s.resume(ss.prior)
		if s.id == "" {
			s.id = newStudyID(s.start)
		} else {
			fmt.Fprintf(c.Log, "resuming study %s from %s: %d cells already recorded\n", s.id, c.Out, len(s.done))
		}
		studies = append(studies, s)
	}
	if len(studies) > 1 {
		linkSweep(c, studies)
	}
	return studies
}

// storeCounts are the store counts of the run's studies: the store count,
// or each count of a sweep, largest first.
func (c *Config) storeCounts() []int {
	if len(c.Sweep) < 2 {
		return []int{c.Stores}
	}
	return c.Sweep
}

// linkSweep gives the studies of a sweep one sweep id (the one of a
// resumed study, else a new one) and the largest count's study as the
// source of their stores.
func linkSweep(c Config, studies []*study) {
	id := ""
	for _, s := range studies {
		if s.sweepID != "" {
			id = s.sweepID
		}
	}
	if id == "" {
		id = "sweep-" + newStudyID(time.Now())
	}
	for i, s := range studies {
		s.sweepID = id
		if i > 0 {
			s.from = studies[0]
		}
		if dropped := len(c.Holds) - len(s.Holds); dropped > 0 && s.Holds[len(s.Holds)-1] != s.Stores {
			fmt.Fprintf(c.Log, "study %s (%d stores): the hold counts above %d are left out\n", s.id, s.Stores, s.Stores)
		}
	}
	fmt.Fprintf(c.Log, "sweep %s: studies of %s stores\n", id, joinInts(c.storeCounts()))
}

// runVariants runs each setting's variants in every study, and in a sweep
// removes a variant's stores once the smallest count is done with them.
// The id is of the study that met err.
func runVariants(ctx context.Context, c Config, studies []*study) (id string, err error) {
	eta := newSessionETA(c, studies)
	for _, set := range c.Settings {
		for _, v := range c.Variants {
			anyFailed := false
			for i, s := range studies {
				// In a sweep the stores stay until the smallest count is done.
				s.leaveStores = i < len(studies)-1
				began, pending := time.Now(), s.pendingPhases(set, v)
				f, err := s.variant(ctx, set, v)
				s.spent += time.Since(began)
				if err != nil {
					return s.id, err
				}
				eta.finished(pending)
				anyFailed = anyFailed || f
			}
			if len(studies) > 1 && !c.Keep && !anyFailed {
				if err := studies[len(studies)-1].remove(filepath.Join(c.Root, set.Name, v)); err != nil {
					return studies[0].id, err
				}
			}
		}
	}
	return "", nil
}

// endStudies writes each study's end record and returns the run's id (the
// study's, or the sweep's), with a Failed error naming the failed phases.
func endStudies(studies []*study) (id string, err error) {
	var failed []string
	for _, s := range studies {
		if err := s.writeEnd(); err != nil {
			return s.id, err
		}
		failed = append(failed, s.failed...)
	}
	id = studies[0].id
	if len(studies) > 1 {
		id = studies[0].sweepID
	}
	if len(failed) > 0 {
		return id, &Failed{Phases: failed}
	}
	return id, nil
}

// noteServed keeps, from an ok serve record, the open files per open
// store at its peak (over at least 10 open stores, less being noise).
func (s *study) noteServed(r *results.Record) {
	sv := r.Serve
	if sv == nil || r.Status != results.StatusOK || sv.MaxOpen < 10 || len(sv.FDs) == 0 {
		return
	}
	key := storesKey{r.Variant, r.Setting}
	s.servedFDs[key] = max(s.servedFDs[key], float64(slices.Max(sv.FDs))/float64(sv.MaxOpen))
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

type study struct {
	Config
	id    string
	w     *results.Writer
	start time.Time
	done  map[cellKey]bool           // cells recorded (ok or n/a) by this study
	held  map[storesKey]results.Hold // the last hold phase of each variant's stores (the memory and open-file checks)
	// creates are the ok create records of each variant's stores (a
	// sweep's smaller counts take their stores' samples from the
	// largest's).
	creates map[storesKey]*results.Record
	// from is, in a sweep, the study of the largest store count, whose
	// stores this study uses (nil otherwise).
	from *study
	// leaveStores keeps a variant's stores after its phases for the next
	// study of the sweep.
	leaveStores bool
	spent       time.Duration // in a sweep: the time of this study's phases
	// servedFDs is, for each variant's stores, the most open files per
	// open store a serve phase saw (from its peak), for the open-file
	// check of the next pool.
	servedFDs map[storesKey]float64
	failed    []string
	budget    results.Budget // where this session's time went
	// versions are each variant's versions, as its worker reports them
	// (a store set made by other versions is not reused).
	versions map[string]map[string]string
}

func newStudyID(t time.Time) string {
	b := make([]byte, 3)
	rand.Read(b)
	return t.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
}

// phase is one worker run.
type phase struct {
	name  job.Phase
	run   int           // open, turn: 1..Runs or 1..Turns; serve: 1..len(Pools)
	cache job.CacheMode // open: warm, cold or drop
	pool  int           // serve: the pool size
	hold  int           // hold: the stores held open
	// replay is set on a phase that only brings stores made again to the
	// state the phases after it expect: the create of a rebuild, and the
	// turn runs recorded before (their cells stand; nothing is recorded).
	replay bool
}

func (p phase) String() string {
	switch {
	case p.cache != "":
		return fmt.Sprintf("%s run %d (%s)", p.name, p.run, p.cache)
	case p.name == job.PhaseServe:
		return fmt.Sprintf("serve, pool size %d", p.pool)
	case p.name == job.PhaseHold && p.run > 0:
		return fmt.Sprintf("hold of %d stores", p.hold)
	case p.run > 0:
		return fmt.Sprintf("%s run %d", p.name, p.run)
	}
	return string(p.name)
}

// phases are a variant's phases in order: create, the open runs of each
// cache mode, hold, space (the reference's phases) and the turn runs,
// which change the stores and so come last.
func (s *study) phases() []phase {
	ps := []phase{{name: job.PhaseCreate}}
	if s.Serve != nil {
		ps = append(ps, s.holdPhases()...)
		for i := range s.Serve.Pools {
			ps = append(ps, phase{name: job.PhaseServe, run: i + 1, pool: s.Serve.Pools[i]})
		}
		return ps
	}
	for _, name := range s.cacheModes() {
		c, _ := job.CacheModeNamed(name) // checked by Config.Validate
		for r := 1; r <= s.Runs; r++ {
			ps = append(ps, phase{name: job.PhaseOpen, run: r, cache: c})
		}
	}
	ps = append(ps, s.holdPhases()...)
	ps = append(ps, phase{name: job.PhaseSpace})
	for r := 1; r <= s.Turns; r++ {
		ps = append(ps, phase{name: job.PhaseTurn, run: r})
	}
	return ps
}

// holdPhases are the hold phases: one (run 0, the reference's) or, with
// several hold counts, one per count, smallest first (runs 1, 2, …).
func (s *study) holdPhases() []phase {
	holds := s.Holds
	if len(holds) == 0 {
		holds = []int{s.Hold}
	}
	if len(holds) == 1 {
		return []phase{{name: job.PhaseHold, hold: holds[0]}}
	}
	ps := make([]phase, len(holds))
	for i, h := range holds {
		ps[i] = phase{name: job.PhaseHold, run: i + 1, hold: h}
	}
	return ps
}

// notApplicable says why variant v is not measured under set, or "":
// the setting does not change it (settings.Setting.NotApplicable), or
// the workload has embeddings and its catalog family says why it cannot
// keep them (engine.Family.NoVectors).
func (s *study) notApplicable(set settings.Setting, v string) string {
	fam, _ := s.family(v)
	if why := set.NotApplicable(fam, v); why != "" {
		return why
	}
	if s.Workload.Dims > 0 {
		return fam.NoVectors[v]
	}
	return ""
}

// variant runs the phases of one variant under one setting that are not
// recorded yet, then removes its stores (unless --keep, a phase failed or
// leaveStores is set); failed says whether a phase failed.
func (s *study) variant(ctx context.Context, set settings.Setting, v string) (failed bool, err error) {
	if why := s.notApplicable(set, v); why != "" {
		if s.done[cellKey{v, set.Name, job.PhaseCreate, 0, ""}] {
			return false, nil
		}
		return false, s.record(results.Record{Study: s.id, Variant: v, Setting: set.Name, Phase: job.PhaseCreate,
			Status: results.StatusNotApplicable, Workload: s.Workload, Stores: s.Stores, Started: time.Now().UTC(),
			Error: why})
	}
	fam, _ := s.family(v)
	var todo []phase
	for _, p := range s.phases() {
		if !s.done[cellKey{v, set.Name, p.name, p.run, p.cache}] {
			todo = append(todo, p)
		}
	}
	if len(todo) == 0 {
		return false, nil
	}
	bin := filepath.Join(s.BinDir, fam.Binary)
	dir := filepath.Join(s.Root, set.Name, v)
	todo, err = s.readyStores(set, v, dir, todo)
	if err != nil {
		return false, err
	}
	for _, p := range todo {
		ok, err := s.phase(ctx, set, v, bin, dir, p, p.replay)
		if err != nil {
			return false, err
		}
		failed = failed || !ok
		if p.name == job.PhaseTurn && !ok {
			// The stores now differ in their number of notes: the next
			// turn run cannot know what to expect. A rerun rebuilds them.
			fmt.Fprintf(s.Log, "%s (%s): a turn run failed, skipping the turn runs after it\n", v, set.Name)
			break
		}
		if p.name == job.PhaseCreate && !ok {
			// A rerun always creates the stores again: the partial ones
			// only take space.
			fmt.Fprintf(s.Log, "%s (%s): create failed, skipping its other phases and removing its stores\n", v, set.Name)
			return true, s.remove(dir)
		}
	}
	switch {
	case s.Keep, s.leaveStores && !failed:
		return failed, nil
	case failed:
		// Kept for a rerun of the same command, which redoes only the
		// failed cells on these stores.
		fmt.Fprintf(s.Log, "%s (%s): keeping its stores in %s for the failed phases: the same command redoes them (if a store itself is damaged, remove %s first and the stores are made again)\n", v, set.Name, dir, dir)
		return true, nil
	}
	return false, s.remove(dir)
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
// serve the remaining phases. Whatever is in dir lies inside the marked
// root: manydb made it.
func (s *study) readyStores(set settings.Setting, v, dir string, todo []phase) (left []phase, err error) {
	rebuild := false
	if todo[0].name != job.PhaseCreate {
		if ok, why := s.storesReady(dir, set, v); !ok {
			fmt.Fprintf(s.Log, "%s (%s): the stores in %s cannot be reused (%s); creating them again for the remaining phases (the create figure recorded earlier stands)\n", v, set.Name, dir, why)
			todo = append([]phase{{name: job.PhaseCreate, replay: true}}, replayTurns(todo)...)
			rebuild = true
		}
	}
	if !rebuild && todo[0].name == job.PhaseCreate && s.Serve != nil {
		reused, err := s.reuseKept(set, v, dir)
		if err != nil {
			return nil, err
		}
		if reused {
			todo = todo[1:]
		}
	}
	if !rebuild && len(todo) > 0 && todo[0].name == job.PhaseCreate && s.from != nil {
		taken, err := s.takeFromSweep(set, v, dir)
		if err != nil {
			return nil, err
		}
		if taken {
			todo = todo[1:]
		}
	}
	if len(todo) > 0 && todo[0].name == job.PhaseCreate {
		if err := s.remove(dir); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create store directory: %w", err)
		}
	}
	return todo, nil
}

// replayTurns returns todo with the turn runs before its first turn run
// (recorded already) inserted before it as replays: stores made again
// hold no appended note, and turn run k expects the k−1 notes of the runs
// before it.
func replayTurns(todo []phase) []phase {
	i := slices.IndexFunc(todo, func(p phase) bool { return p.name == job.PhaseTurn })
	if i < 0 || todo[i].run <= 1 {
		return todo
	}
	var out []phase
	out = append(out, todo[:i]...)
	for run := 1; run < todo[i].run; run++ {
		out = append(out, phase{name: job.PhaseTurn, run: run, replay: true})
	}
	return append(out, todo[i:]...)
}

// storesReady tells whether dir holds the stores this study's remaining
// phases need, and if not, why: its own complete set, or in a sweep the
// largest count's set, whose first Stores stores are this study's.
func (s *study) storesReady(dir string, set settings.Setting, v string) (bool, string) {
	ok, why := storesMatch(dir, s.manifest(set, v))
	if ok || s.from == nil {
		return ok, why
	}
	if ok, _ := storesMatch(dir, s.from.manifest(set, v)); ok {
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
func (s *study) takeFromSweep(set settings.Setting, v, dir string) (bool, error) {
	key := storesKey{v, set.Name}
	src := s.from.creates[key]
	if src == nil || len(src.CreateMs) < s.Stores {
		return false, nil
	}
	if ok, _ := storesMatch(dir, s.from.manifest(set, v)); !ok {
		return false, nil
	}
	rec := *src
	rec.Study, rec.Stores, rec.StoresFrom, rec.Sweep = s.id, s.Stores, s.from.id, s.sweepID
	rec.CreateMs, rec.WallS, rec.WorkerS, rec.LoadDuring = slices.Clone(src.CreateMs[:s.Stores]), 0, 0, nil
	fmt.Fprintf(s.Log, "%s (%s): the first %d of the %d stores made by study %s\n", v, set.Name, s.Stores, s.from.Stores, s.from.id)
	return true, s.record(rec)
}

// reuseKept takes over for a serve study the stores that another study
// kept in dir (manydb run --keep with the same --root), when their
// manifest matches this study's variant, setting, workload, store count
// and engine versions and no turn or serve phase changed them unevenly. It
// records the create cell as n/a naming that study (no create figure is
// copied from other stores) and reports whether it took them.
func (s *study) reuseKept(set settings.Setting, v, dir string) (bool, error) {
	got, err := readManifest(dir)
	if err != nil || got.Study == s.id {
		return false, nil
	}
	want := s.manifest(set, v)
	want.Study = got.Study
	if ok, _ := storesMatch(dir, want); !ok {
		return false, nil
	}
	if !got.Kept {
		fmt.Fprintf(s.Log, "%s (%s): not reusing the stores in %s: study %s made them without --keep (it may resume on them); this study makes its own\n",
			v, set.Name, dir, got.Study)
		return false, nil
	}
	if missing := missingStore(dir, s.Stores, s.Fanout); missing != "" {
		fmt.Fprintf(s.Log, "%s (%s): not reusing the stores kept in %s by study %s: %s is missing; this study makes its own\n",
			v, set.Name, dir, got.Study, missing)
		return false, nil
	}
	fmt.Fprintf(s.Log, "%s (%s): reusing the %d stores kept in %s by study %s (no create figure); serve appends to them, so they are removed at the end unless --keep\n",
		v, set.Name, s.Stores, dir, got.Study)
	m := got
	m.Study, m.CreatedBy = s.id, got.Study
	if err := writeManifest(dir, m); err != nil {
		return false, err
	}
	return true, s.record(results.Record{Study: s.id, Variant: v, Setting: set.Name, Phase: job.PhaseCreate,
		Status: results.StatusNotApplicable, Workload: s.Workload, Stores: s.Stores, Started: time.Now().UTC(), StoresFrom: got.Study,
		Error: fmt.Sprintf("stores kept by study %s reused: not created by this study", got.Study)})
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

// phase runs one worker and appends its record; ok is false when the phase
// failed (its failed record is appended). err is for problems that stop
// the study (interrupt, results file).
//
// A rebuild is a create that only makes the stores again for the phases
// left (the create cell is recorded already): its record is not appended.
func (s *study) phase(ctx context.Context, set settings.Setting, v, bin, dir string, p phase, rebuild bool) (ok bool, err error) {
	label := s.phaseLabel(set, v, p, rebuild)
	load, wait, err := s.awaitLoad(ctx, label)
	if err != nil {
		return false, err
	}
	if why := s.skipReason(set, v, p); why != "" {
		fmt.Fprintf(s.Log, "%s: skipped: %s\n", label, why)
		return true, s.record(s.skippedRecord(set, v, p, why))
	}
	wj := s.workerJob(set, v, dir, p)
	// The hold worker reports what a container holding only it is charged,
	// in a memory cgroup of its own when one can be made here.
	var cgroupNA string
	if p.name == job.PhaseHold {
		var removeCgroup func()
		wj.Cgroup, cgroupNA, removeCgroup = s.makeCgroup(label)
		defer removeCgroup()
	}
	// A serve worker under --memory-max runs in a cgroup of its own with
	// that limit.
	var limited *memcg.Group
	if p.name == job.PhaseServe && s.Serve.MemoryMaxBytes > 0 {
		g, remove, err := s.makeLimitedCgroup(label, s.Serve.MemoryMaxBytes)
		if err != nil {
			return false, err
		}
		defer remove()
		limited, wj.Cgroup = &g, g.Path
	}
	m, err := prepareStores(dir, p, label)
	if err != nil {
		return false, err
	}
	wj.Appended = m.Appended
	args := wj.Args()
	started := time.Now().UTC()
	res, during := s.runPhaseWorker(ctx, label, bin, dir, args, set, p)
	if ctx.Err() != nil {
		return false, fmt.Errorf("interrupted during %s; the records of finished phases are in %s, and the same command resumes the study", label, s.Out)
	}
	rec := res.rec
	var limit *results.MemoryLimit
	if limited != nil {
		if limit, err = s.readLimit(*limited); err != nil {
			return false, fmt.Errorf("%s: %w", label, err)
		}
	}
	timed := res // what the time budget counts: an OOM-killed worker's time as a failed one's, not as manydb's own work
	switch {
	case res.err != nil && limit != nil && limit.OOMKills > 0:
		rec = s.oomKilled(res, label, bin, args, v, p, limit)
		res.err = nil // an outcome of the step, not a failure
	case res.err != nil:
		rec = s.phaseFailed(res, label, bin, args, v, p)
	case limit != nil:
		rec.Serve.Limit = limit
	}
	if rec.Hold != nil && rec.Hold.Container == nil {
		rec.Hold.ContainerNA = cgroupNA
	}
	rec.Study, rec.Setting, rec.Load1, rec.Started, rec.Sweep = s.id, set.Name, load, started, s.sweepID
	rec.MaxLoad, rec.WaitS, rec.WorkerS, rec.LoadDuring = s.MaxLoad, wait, res.seconds, during
	if p.name == job.PhaseServe { // the study that made the stores it serves
		rec.StoresFrom = cmp.Or(m.CreatedBy, m.Study)
	}
	if res.err == nil {
		if err := s.markStores(dir, set, v, p, m); err != nil {
			return false, err
		}
	}
	s.countWorkerTime(timed, rec, rebuild)
	if rebuild {
		return res.err == nil, nil
	}
	return res.err == nil, s.record(rec)
}

// phaseLabel names a phase on the console and in failures: the variant,
// its setting when there are several or it is not the default, the phase.
func (s *study) phaseLabel(set settings.Setting, v string, p phase, rebuild bool) string {
	label := fmt.Sprintf("%s %s", v, p)
	if len(s.Settings) > 1 || set.Name != "default" {
		label = fmt.Sprintf("%s [%s] %s", v, set.Name, p)
	}
	switch {
	case rebuild && p.name == job.PhaseCreate:
		label += " (stores made again, not recorded)"
	case rebuild:
		label += " (redone on the stores made again, not recorded)"
	}
	return label
}

// awaitLoad waits until the load allows the phase (waitForLoad) and
// returns the load then and the seconds waited, which the time budget
// counts (0 when the study does not wait for the load).
func (s *study) awaitLoad(ctx context.Context, label string) (load, wait float64, err error) {
	waitStart := time.Now()
	load, err = s.waitForLoad(ctx, label)
	if err != nil {
		return 0, 0, err
	}
	wait = time.Since(waitStart).Seconds()
	if s.MaxLoad <= 0 {
		wait = 0
	}
	s.budget.Wait += wait
	return load, wait, nil
}

// skipReason says why a phase that holds many stores open, a serve pool or
// one of several hold counts, would not fit here (tooManyOpen); "" to run
// it. The reference's one hold phase always runs.
func (s *study) skipReason(set settings.Setting, v string, p phase) string {
	switch {
	case p.name == job.PhaseServe:
		// Under --memory-max the cgroup's limit guards the machine, and
		// what happens past it is the step's figure.
		return s.tooManyOpen(v, set, p.pool, s.Serve.Concurrency, s.Serve.MemoryMaxBytes == 0)
	case p.name == job.PhaseHold && p.run > 0:
		return s.tooManyOpen(v, set, p.hold, 0, true)
	}
	return ""
}

// skippedRecord is the n/a record of a phase skipped for why.
func (s *study) skippedRecord(set settings.Setting, v string, p phase, why string) results.Record {
	rec := results.Record{Study: s.id, Variant: v, Setting: set.Name, Phase: p.name,
		Status: results.StatusNotApplicable, Workload: s.Workload, Stores: s.Stores, Started: time.Now().UTC(),
		Error: why, Sweep: s.sweepID}
	rec.SetRepeat(p.run)
	if p.name == job.PhaseServe {
		rec.Serve = &results.Serve{Pool: p.pool}
	} else {
		rec.Hold = &results.Hold{Held: p.hold}
	}
	return rec
}

// workerJob is the job of phase p's worker on the stores in dir.
func (s *study) workerJob(set settings.Setting, v, dir string, p phase) job.Job {
	wj := job.Job{Variant: v, Phase: p.name, Dir: dir, Stores: s.Stores, Workload: s.Workload,
		Fanout: s.Fanout, Progress: true, THPOff: set.THPOff, Lean: set.Lean}
	if fam, _ := s.family(v); fam.Cgo {
		// The worker proves it runs with the setting's malloc, or fails.
		wj.Allocator = set.Malloc()
	}
	switch p.name {
	case job.PhaseOpen:
		wj.Run, wj.Seed, wj.Queries, wj.Cache = p.run, uint64(p.run), s.Queries, p.cache
		// A smaller count of a sweep: the larger counts' runs may have
		// pushed its stores out of the page cache, which its create had
		// left them in.
		wj.Prewarm = s.from != nil && p.cache == ""
	case job.PhaseTurn:
		wj.Run, wj.Seed = p.run, uint64(p.run)
	case job.PhaseServe:
		// The same agents' sequence for every pool size.
		wj.Run, wj.Seed = p.run, 1
		wj.Serve = job.Serve{Pool: p.pool, Requests: s.Serve.Requests, Concurrency: s.Serve.Concurrency, Zipf: s.Serve.Zipf, Rate: s.Serve.Rate,
			PoolTime: time.Duration(s.Serve.PoolTimeS * float64(time.Second))}
	case job.PhaseHold:
		wj.Hold, wj.Run = p.hold, p.run
	}
	return wj
}

// makeCgroup makes a memory cgroup for a hold worker and returns its path
// and how to remove it, or why none can be made here.
func (s *study) makeCgroup(label string) (path, na string, remove func()) {
	g, err := s.cgroups().New(cgroupPrefix)
	if err != nil {
		return "", err.Error(), func() {}
	}
	return g.Path, "", func() {
		if rerr := g.Remove(); rerr != nil {
			fmt.Fprintf(s.Log, "%s: %v\n", label, rerr)
		}
	}
}

// makeLimitedCgroup makes the memory cgroup of a serve worker under
// --memory-max, with that limit, and returns it and how to remove it.
// Unlike the hold's container figure, the step cannot run without it.
func (s *study) makeLimitedCgroup(label string, limit int64) (memcg.Group, func(), error) {
	g, err := s.cgroups().New(cgroupPrefix)
	if err != nil {
		return g, nil, fmt.Errorf("%s: --memory-max: %w", label, err)
	}
	remove := func() {
		if rerr := g.Remove(); rerr != nil {
			fmt.Fprintf(s.Log, "%s: %v\n", label, rerr)
		}
	}
	if err := g.SetLimit(limit); err != nil {
		remove()
		return g, nil, fmt.Errorf("%s: --memory-max: %w", label, err)
	}
	return g, remove, nil
}

// readLimit reads what a serve worker's limited cgroup went through, once
// the worker is gone and memory.stat has folded its last counts in.
func (s *study) readLimit(g memcg.Group) (*results.MemoryLimit, error) {
	time.Sleep(memcg.StatDelay)
	p, err := g.ReadPressure()
	if err != nil {
		return nil, err
	}
	return &results.MemoryLimit{Cgroup: g.Path, V2: g.V2, LimitBytes: s.Serve.MemoryMaxBytes, Pressure: p}, nil
}

// oomKilled is the record of a serve step whose worker the OOM killer
// ended at its memory limit: an outcome (StatusOOMKilled), said on the
// console, not counted as a failure.
func (s *study) oomKilled(res workerResult, label, bin string, args []string, v string, p phase, limit *results.MemoryLimit) results.Record {
	rec := failedRecord(res, bin, args, v, p.name, p.run, s.Workload, s.Stores)
	rec.Status = results.StatusOOMKilled
	rec.Error = fmt.Sprintf("the OOM killer ended the worker at its memory limit of %s (%v)", units.BytesSize(float64(limit.LimitBytes)), res.err)
	rec.Serve = &results.Serve{Pool: p.pool, Limit: limit}
	fmt.Fprintf(s.Log, "%s: %s\n", label, rec.Error)
	return rec
}

// prepareStores readies the stores in dir for phase p and returns their
// manifest (none before a create): a turn or serve phase marks them
// uneven before it changes them, a drop run drops the page cache.
func prepareStores(dir string, p phase, label string) (Manifest, error) {
	var m Manifest
	if p.name != job.PhaseCreate {
		// Notes appended by earlier turn runs are part of every answer.
		var err error
		if m, err = readManifest(dir); err != nil {
			return m, fmt.Errorf("%s: %w", label, err)
		}
	}
	if p.name == job.PhaseTurn || p.name == job.PhaseServe {
		// Serve appends to each store as often as its agent is drawn:
		// unevenly, so the stores are not reused by a rerun either.
		m.Uneven = true
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

// runPhaseWorker runs phase p's worker on the stores in dir with the
// setting's environment, showing its progress and watching it (the
// watchdog), and returns its result and the load samples taken while it
// ran.
func (s *study) runPhaseWorker(ctx context.Context, label, bin, dir string, args []string, set settings.Setting, p phase) (workerResult, []float64) {
	total, unit := s.Stores, "store"
	switch p.name {
	case job.PhaseHold:
		total = p.hold
	case job.PhaseServe:
		total, unit = s.Serve.Requests, "request" // warm-up included, as the worker counts
	}
	sampler := startLoadSampler(s.SampleEvery)
	s.Bar.Start(label, total)
	res := runWorker(ctx, workerCmd{bin: bin, args: args, env: append(slices.Clone(s.Env), set.Env...),
		onProgress: s.Bar.Set, stall: s.StallLimit, unit: unit, total: total, storeDir: func(i int) string { return job.StoreDir(dir, i, s.Fanout) }, label: label, log: s.Log})
	s.Bar.Done()
	return res, sampler.stop()
}

// phaseFailed is the failed record of phase p, whose worker failed; the
// phase is counted as failed and said on the console.
func (s *study) phaseFailed(res workerResult, label, bin string, args []string, v string, p phase) results.Record {
	rec := failedRecord(res, bin, args, v, p.name, p.run, s.Workload, s.Stores)
	if p.name == job.PhaseOpen || p.name == job.PhaseTurn {
		rec.Seed = uint64(p.run)
	}
	rec.Cache = p.cache
	s.failed = append(s.failed, label)
	fmt.Fprintf(s.Log, "%s failed: %v\n  command: %s\n", label, res.err, strings.Join(rec.Command, " "))
	return rec
}

// markStores updates the manifest of the stores in dir after phase p
// succeeded, before its record is appended: a kill between the two makes
// the rerun create (and record) the stores again, or rebuild them after a
// turn (which the rerun records once).
func (s *study) markStores(dir string, set settings.Setting, v string, p phase, m Manifest) error {
	switch p.name {
	case job.PhaseCreate:
		return writeManifest(dir, s.manifest(set, v))
	case job.PhaseTurn:
		m.Uneven, m.Appended = false, m.Appended+1
		return writeManifest(dir, m)
	}
	return nil
}

// countWorkerTime adds a worker's time to the time budget: a rebuild's
// as cleanup, a failed worker's as failed, else the engine's and the
// workers'.
func (s *study) countWorkerTime(res workerResult, rec results.Record, rebuild bool) {
	switch {
	case rebuild:
		s.budget.Cleanup += res.seconds
	case res.err == nil:
		s.budget.Engine += engineSeconds(rec)
		s.budget.Workers += res.seconds
	default:
		s.budget.Failed += res.seconds
	}
}

// record appends r to the results file and notes its cell (noteRecorded).
func (s *study) record(r results.Record) error {
	if err := s.w.Append(r); err != nil {
		return err
	}
	s.noteRecorded(r)
	return nil
}

// noteRecorded notes a recorded cell that is done (ok or n/a), and keeps
// from an ok record what later phases check against or reuse: the hold's
// figures, the serve's open files, the create's samples.
func (s *study) noteRecorded(r results.Record) {
	switch r.Status {
	case results.StatusOK, results.StatusNotApplicable, results.StatusOOMKilled: // done: a rerun would not change it
	default:
		return
	}
	s.done[cellKey{r.Variant, r.Setting, r.Phase, r.Repeat(), r.Cache}] = true
	if r.Status != results.StatusOK {
		return
	}
	key := storesKey{r.Variant, r.Setting}
	if r.Hold != nil {
		s.held[key] = *r.Hold
	}
	s.noteServed(&r)
	if r.Phase == job.PhaseCreate {
		s.creates[key] = &r
	}
}

// dropCaches writes back dirty pages and drops the kernel's page cache
// (echo 1 > /proc/sys/vm/drop_caches; root only, Validate checked).
func dropCaches() error {
	syscall.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("1\n"), 0o200); err != nil {
		return fmt.Errorf("drop the page cache: %w", err)
	}
	return nil
}

// manifest is what the stores of variant v under set are made for.
func (s *study) manifest(set settings.Setting, v string) Manifest {
	return Manifest{Study: s.id, Variant: v, Setting: set.Name, Workload: s.Workload, Stores: s.Stores, Fanout: s.Fanout, Versions: s.versions[v], Kept: s.Keep}
}

// remove removes a variant's stores and counts the time as cleanup.
func (s *study) remove(dir string) error {
	start := time.Now()
	err := RemoveInRoot(s.Root, dir)
	s.budget.Cleanup += time.Since(start).Seconds()
	return err
}

// removeStaleCgroups removes the memory cgroups that manydb processes now
// gone left behind (a SIGKILL during a hold), and says so.
func (c *Config) removeStaleCgroups() {
	removed, err := c.cgroups().RemoveStale(cgroupPrefix)
	if len(removed) > 0 {
		fmt.Fprintf(c.Log, "removed %d memory cgroups left by manydb processes that are gone: %s\n", len(removed), strings.Join(removed, ", "))
	}
	if err != nil {
		fmt.Fprintf(c.Log, "warning: %v\n", err)
	}
}

// cgroupPrefix starts the name of every memory cgroup manydb makes.
const cgroupPrefix = "manydb"

// cgroups returns where hold workers' memory cgroups are made.
func (c *Config) cgroups() memcg.Hierarchy {
	if c.Cgroups != nil {
		return *c.Cgroups
	}
	return memcg.Default()
}

// tooManyOpen says why n open stores of variant v (a serve pool, or a
// hold count) would not fit here, estimated from the study's last hold
// phase: their memory (resident memory per open store) in 70 % of the
// memory available now, or their open files (descriptors per open store,
// for up to n + extra open stores) in the process' limit. "" when they fit
// or there is no estimate. The memory is checked only with checkMemory.
func (s *study) tooManyOpen(v string, set settings.Setting, n, extra int, checkMemory bool) string {
	h, ok := s.held[storesKey{v, set.Name}]
	if !ok || n == 0 || h.Held == 0 {
		return ""
	}
	if availKB, err := measure.MemAvailableKB(); err == nil && checkMemory {
		need := h.RssKB * float64(n)
		if need > 0.7*float64(availKB) {
			return fmt.Sprintf("%d open stores need about %s (%s per open store, from the hold phase), more than 70 %% of the %s available", n,
				bytesText(need*1024), bytesText(h.RssKB*1024), bytesText(float64(availKB)*1024))
		}
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil {
		// Go raises a process' soft limit to its hard limit at start, so
		// the worker may use up to the hard one.
		perStore, from := float64(h.FDs-h.FDsBefore)/float64(h.Held), "the hold phase"
		// Stores that are written to can keep more files open than the
		// hold phase's, which only read (pebble, badger): a smaller pool's
		// serve phase tells.
		if f := s.servedFDs[storesKey{v, set.Name}]; f > perStore {
			perStore, from = f, "a smaller pool's serve phase"
		}
		open := n + extra
		need := float64(h.FDsBefore) + perStore*float64(open)
		if need > float64(lim.Max) {
			return fmt.Sprintf("%d open stores need about %.0f open files (%.1f per open store, from %s), more than the limit of %d here (ulimit -n; raising the hard limit moves this wall)",
				open, need, perStore, from, lim.Max)
		}
	}
	return ""
}
