// Package orchestrate runs a study (manydb run) and a profile (manydb
// profile): one fresh worker process per phase, each phase's record
// appended to the results file as soon as the phase ends, a study resumed
// cell by cell when run again. It links no engine: it knows the workers by
// the catalog in internal/engine and talks to them through their command
// line (job.Job.Args), stdout (one JSON record) and stderr (progress).
package orchestrate

import (
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

	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/memcg"
	"manydb/internal/results"
	"manydb/internal/settings"
)

// Run runs the study, or resumes it, and returns its id. Records already in
// the results file stay there; the study's records are appended.
func Run(ctx context.Context, c Config) (studyID string, err error) {
	// Every input is checked before anything is created or changed.
	if err := c.resolveSettings(); err != nil {
		return "", err
	}
	c.normalize()
	if err := c.Validate(); err != nil {
		return "", err
	}
	if _, err := readPrior(c.Out); err != nil {
		return "", err
	}
	if !c.SkipSpaceCheck {
		if err := c.checkSpace(); err != nil {
			return "", err
		}
	}
	versions, byVariant, err := c.engineVersions(ctx)
	if err != nil {
		return "", err
	}
	// Now the root, and a lock on it and on the results file for the
	// whole run: a second run on either exits with a message.
	if err := PrepareRoot(c.Root, "--root"); err != nil {
		return "", err
	}
	rootLock, err := LockFile(filepath.Join(c.Root, MarkerFile), "data root "+c.Root)
	if err != nil {
		return "", err
	}
	defer rootLock.Release()
	outLock, err := LockFile(c.Out, "results file "+c.Out)
	if err != nil {
		return "", err
	}
	defer outLock.Release()
	prior, err := readPrior(c.Out) // again, under the lock
	if err != nil {
		return "", err
	}
	if err := EmptyTrash(c.Root); err != nil {
		return "", err
	}
	w, err := results.OpenWriter(c.Out)
	if err != nil {
		return "", &InputError{fmt.Sprintf("results file %s cannot be written (%v): choose another --out", c.Out, errors.Unwrap(err))}
	}
	defer w.Close()
	if c.Bar == nil {
		c.Bar = NewProgress(c.Log)
	}
	if c.SampleEvery <= 0 {
		c.SampleEvery = 10 * time.Second
	}
	if c.ReadLoad == nil {
		c.ReadLoad = measure.Load1
	}
	// One study per store count: the store count itself, or each count of
	// a sweep, largest first.
	counts := c.Sweep
	if len(counts) < 2 {
		counts = []int{c.Stores}
	}
	var studies []*study
	for _, n := range counts {
		sc := c
		sc.Stores = n
		sc.Holds = slices.DeleteFunc(slices.Clone(c.Holds), func(h int) bool { return h > n })
		if len(sc.Holds) == 0 {
			sc.Holds = []int{n}
		}
		sc.Hold = sc.Holds[len(sc.Holds)-1]
		s := &study{Config: sc, w: w, start: time.Now(), done: map[cellKey]bool{}, held: map[string]results.Hold{},
			creates: map[string]*results.Record{}, servedFDs: map[string]float64{}, versions: byVariant}
		s.id = s.resume(prior)
		if s.id == "" {
			s.id = newStudyID(s.start)
		} else {
			fmt.Fprintf(c.Log, "resuming study %s from %s: %d cells already recorded\n", s.id, c.Out, len(s.done))
		}
		studies = append(studies, s)
	}
	if len(studies) > 1 {
		// The sweep's id: the one of a resumed study, else a new one.
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
		fmt.Fprintf(c.Log, "sweep %s: studies of %s stores\n", id, joinInts(counts))
	}
	for _, s := range studies {
		if err := s.writeEnv(versions); err != nil {
			return s.id, err
		}
	}
	var failed []string
	for _, set := range c.Settings {
		for _, v := range c.Variants {
			anyFailed := false
			for i, s := range studies {
				// In a sweep the stores stay until the smallest count is done.
				s.leaveStores = i < len(studies)-1
				began := time.Now()
				f, err := s.variant(ctx, set, v)
				s.spent += time.Since(began)
				if err != nil {
					return s.id, err
				}
				anyFailed = anyFailed || f
			}
			if len(studies) > 1 && !c.Keep && !anyFailed {
				if err := studies[len(studies)-1].remove(filepath.Join(c.Root, set.Name, v)); err != nil {
					return studies[0].id, err
				}
			}
		}
	}
	for _, s := range studies {
		if err := s.writeEnd(); err != nil {
			return s.id, err
		}
		failed = append(failed, s.failed...)
	}
	id := studies[0].id
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
	key := r.Variant + "\x00" + r.Setting
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
	done  map[cellKey]bool        // cells recorded (ok or n/a) by this study
	held  map[string]results.Hold // the last hold phase by variant and setting (the memory and open-file checks)
	// creates are the ok create records by variant and setting (a sweep's
	// smaller counts take their stores' samples from the largest's).
	creates map[string]*results.Record
	// from is, in a sweep, the study of the largest store count, whose
	// stores this study uses (nil otherwise).
	from *study
	// leaveStores keeps a variant's stores after its phases for the next
	// study of the sweep.
	leaveStores bool
	spent       time.Duration // in a sweep: the time of this study's phases
	// servedFDs is, by variant and setting, the most open files per open
	// store a serve phase saw (from its peak), for the open-file check of
	// the next pool.
	servedFDs map[string]float64
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

// variant runs the phases of one variant under one setting that are not
// recorded yet, then removes its stores (unless --keep, a phase failed or
// leaveStores is set); failed says whether a phase failed.
func (s *study) variant(ctx context.Context, set settings.Setting, v string) (failed bool, err error) {
	fam, _ := s.family(v)
	if !set.Applies(fam.Cgo) {
		key := cellKey{v, set.Name, job.PhaseCreate, 0, ""}
		if s.done[key] {
			return false, nil
		}
		s.done[key] = true
		return false, s.w.Append(results.Record{Study: s.id, Variant: v, Setting: set.Name, Phase: job.PhaseCreate,
			Status: results.StatusNotApplicable, Workload: s.Workload, Stores: s.Stores, Started: time.Now().UTC(),
			Error: fmt.Sprintf("%s changes the C library's malloc only; %s does not allocate with it", set.Name, v)})
	}
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
	// The stores of a recorded create phase are reused only if they are
	// the complete set made for this study, variant, setting, workload and
	// engine version (their manifest says so). Otherwise they are made
	// anew; when the create is recorded already, its figure stands and the
	// new stores only serve the remaining phases. Whatever is in dir lies
	// inside the marked root: manydb made it.
	rebuild := false
	if todo[0].name != job.PhaseCreate {
		if ok, why := s.storesReady(dir, set, v); !ok {
			fmt.Fprintf(s.Log, "%s (%s): the stores in %s cannot be reused (%s); creating them again for the remaining phases (the create figure recorded earlier stands)\n", v, set.Name, dir, why)
			todo = append([]phase{{name: job.PhaseCreate}}, todo...)
			rebuild = true
		}
	}
	if !rebuild && todo[0].name == job.PhaseCreate && s.Serve != nil {
		reused, err := s.reuseKept(set, v, dir)
		if err != nil {
			return false, err
		}
		if reused {
			todo = todo[1:]
		}
	}
	if !rebuild && len(todo) > 0 && todo[0].name == job.PhaseCreate && s.from != nil {
		taken, err := s.takeFromSweep(set, v, dir)
		if err != nil {
			return false, err
		}
		if taken {
			todo = todo[1:]
		}
	}
	if len(todo) > 0 && todo[0].name == job.PhaseCreate {
		if err := s.remove(dir); err != nil {
			return false, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, fmt.Errorf("create store directory: %w", err)
		}
	}
	for i, p := range todo {
		ok, err := s.phase(ctx, set, v, bin, dir, p, rebuild && i == 0)
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
	key := v + "\x00" + set.Name
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
	s.done[cellKey{v, set.Name, job.PhaseCreate, 0, ""}] = true
	s.creates[key] = &rec
	return true, s.w.Append(rec)
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
	fmt.Fprintf(s.Log, "%s (%s): reusing the %d stores kept in %s by study %s (no create figure); serve appends to them, so they are removed at the end unless --keep\n",
		v, set.Name, s.Stores, dir, got.Study)
	m := got
	m.Study, m.CreatedBy = s.id, got.Study
	if err := writeManifest(dir, m); err != nil {
		return false, err
	}
	s.done[cellKey{v, set.Name, job.PhaseCreate, 0, ""}] = true
	return true, s.w.Append(results.Record{Study: s.id, Variant: v, Setting: set.Name, Phase: job.PhaseCreate,
		Status: results.StatusNotApplicable, Workload: s.Workload, Stores: s.Stores, Started: time.Now().UTC(), StoresFrom: got.Study,
		Error: fmt.Sprintf("stores kept by study %s reused: not created by this study", got.Study)})
}

// phase runs one worker and appends its record; ok is false when the phase
// failed (its failed record is appended). err is for problems that stop
// the study (interrupt, results file).
//
// A rebuild is a create that only makes the stores again for the phases
// left (the create cell is recorded already): its record is not appended.
func (s *study) phase(ctx context.Context, set settings.Setting, v, bin, dir string, p phase, rebuild bool) (ok bool, err error) {
	label := fmt.Sprintf("%s %s", v, p)
	if len(s.Settings) > 1 || set.Name != "default" {
		label = fmt.Sprintf("%s [%s] %s", v, set.Name, p)
	}
	if rebuild {
		label += " (stores made again, not recorded)"
	}
	waitStart := time.Now()
	load, err := s.waitForLoad(ctx, label)
	if err != nil {
		return false, err
	}
	wait := time.Since(waitStart).Seconds()
	if s.MaxLoad <= 0 {
		wait = 0
	}
	s.budget.Wait += wait
	wj := job.Job{Variant: v, Phase: p.name, Dir: dir, Stores: s.Stores, Workload: s.Workload,
		Fanout: s.Fanout, Progress: true, THPOff: set.THPOff}
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
		wj.Serve = job.Serve{Pool: p.pool, Requests: s.Serve.Requests, Concurrency: s.Serve.Concurrency, Zipf: s.Serve.Zipf, Rate: s.Serve.Rate}
		if why := s.tooManyOpen(v, set, p.pool, s.Serve.Concurrency); why != "" {
			fmt.Fprintf(s.Log, "%s: skipped: %s\n", label, why)
			s.done[cellKey{v, set.Name, p.name, p.run, ""}] = true
			return true, s.w.Append(results.Record{Study: s.id, Variant: v, Setting: set.Name, Phase: p.name, Run: p.run,
				Status: results.StatusNotApplicable, Workload: s.Workload, Stores: s.Stores, Started: time.Now().UTC(),
				Serve: &results.Serve{Pool: p.pool}, Error: why, Sweep: s.sweepID})
		}
	case job.PhaseHold:
		wj.Hold, wj.Run = p.hold, p.run
		if why := s.tooManyOpen(v, set, p.hold, 0); why != "" && p.run > 0 {
			fmt.Fprintf(s.Log, "%s: skipped: %s\n", label, why)
			s.done[cellKey{v, set.Name, p.name, p.run, ""}] = true
			return true, s.w.Append(results.Record{Study: s.id, Variant: v, Setting: set.Name, Phase: p.name, Run: p.run,
				Status: results.StatusNotApplicable, Workload: s.Workload, Stores: s.Stores, Started: time.Now().UTC(),
				Hold: &results.Hold{Held: p.hold}, Error: why, Sweep: s.sweepID})
		}
	}
	// The hold worker reports what a container holding only it is charged,
	// in a memory cgroup of its own when one can be made here.
	var cgroupNA string
	if p.name == job.PhaseHold {
		if g, err := s.cgroups().New("manydb"); err != nil {
			cgroupNA = err.Error()
		} else {
			wj.Cgroup = g.Path
			defer func() {
				if rerr := g.Remove(); rerr != nil {
					fmt.Fprintf(s.Log, "%s: %v\n", label, rerr)
				}
			}()
		}
	}
	var m Manifest
	if p.name != job.PhaseCreate {
		// Notes appended by earlier turn runs are part of every answer.
		if m, err = readManifest(dir); err != nil {
			return false, fmt.Errorf("%s: %w", label, err)
		}
		wj.Appended = m.Appended
	}
	if p.name == job.PhaseTurn || p.name == job.PhaseServe {
		// Serve appends to each store as often as its agent is drawn:
		// unevenly, so the stores are not reused by a rerun either.
		m.Uneven = true
		if err := writeManifest(dir, m); err != nil {
			return false, err
		}
	}
	if p.cache == job.CacheDrop {
		if err := dropCaches(); err != nil {
			return false, fmt.Errorf("%s: %w", label, err)
		}
	}
	args := wj.Args()
	started := time.Now().UTC()
	total := s.Stores
	switch p.name {
	case job.PhaseHold:
		total = p.hold
	case job.PhaseServe:
		total = 1 // the worker reports when it is done
	}
	sampler := startLoadSampler(s.SampleEvery)
	s.Bar.Start(label, total)
	res := runWorker(ctx, bin, args, append(slices.Clone(s.Env), set.Env...), s.Bar.Set)
	s.Bar.Done()
	during := sampler.stop()
	if ctx.Err() != nil {
		return false, fmt.Errorf("interrupted during %s; the records of finished phases are in %s, and the same command resumes the study", label, s.Out)
	}
	rec := res.rec
	if res.err != nil {
		rec = failedRecord(res, bin, args, v, p.name, p.run, s.Workload, s.Stores)
		if p.name == job.PhaseOpen || p.name == job.PhaseTurn {
			rec.Seed = uint64(p.run)
		}
		rec.Cache = p.cache
		s.failed = append(s.failed, label)
		fmt.Fprintf(s.Log, "%s failed: %v\n  command: %s\n", label, res.err, strings.Join(rec.Command, " "))
	}
	if rec.Hold != nil && rec.Hold.Container == nil {
		rec.Hold.ContainerNA = cgroupNA
	}
	rec.Study, rec.Setting, rec.Load1, rec.Started, rec.Sweep = s.id, set.Name, load, started, s.sweepID
	if p.name == job.PhaseHold {
		rec.Run = p.run
	}
	rec.MaxLoad, rec.WaitS, rec.WorkerS, rec.LoadDuring = s.MaxLoad, wait, res.seconds, during
	if p.name == job.PhaseCreate && res.err == nil {
		// The manifest before the record: a kill between the two makes the
		// rerun create (and record) the stores again.
		if err := writeManifest(dir, s.manifest(set, v)); err != nil {
			return false, err
		}
	}
	if p.name == job.PhaseTurn && res.err == nil {
		// Likewise: a kill between the two makes the rerun rebuild the
		// stores (the turn is recorded once, by the rerun).
		m.Uneven, m.Appended = false, m.Appended+1
		if err := writeManifest(dir, m); err != nil {
			return false, err
		}
	}
	switch {
	case rebuild:
		s.budget.Cleanup += res.seconds
		return res.err == nil, nil
	case res.err == nil:
		s.budget.Engine += engineSeconds(rec)
		s.budget.Workers += res.seconds
	default:
		s.budget.Failed += res.seconds
	}
	if err := s.w.Append(rec); err != nil {
		return false, err
	}
	if res.err == nil {
		s.done[cellKey{v, set.Name, p.name, p.run, p.cache}] = true
		if rec.Hold != nil {
			s.held[v+"\x00"+set.Name] = *rec.Hold
		}
		s.noteServed(&rec)
		if p.name == job.PhaseCreate {
			s.creates[v+"\x00"+set.Name] = &rec
		}
	}
	return res.err == nil, nil
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
	return Manifest{Study: s.id, Variant: v, Setting: set.Name, Workload: s.Workload, Stores: s.Stores, Fanout: s.Fanout, Versions: s.versions[v]}
}

// remove removes a variant's stores and counts the time as cleanup.
func (s *study) remove(dir string) error {
	start := time.Now()
	err := RemoveInRoot(s.Root, dir)
	s.budget.Cleanup += time.Since(start).Seconds()
	return err
}

// cgroups returns where hold workers' memory cgroups are made.
func (s *study) cgroups() memcg.Hierarchy {
	if s.Cgroups != nil {
		return *s.Cgroups
	}
	return memcg.Default()
}

// tooManyOpen says why n open stores of variant v (a serve pool, or a
// hold count) would not fit here, estimated from the study's last hold
// phase: their memory (resident memory per open store) in 70 % of the
// memory available now, or their open files (descriptors per open store,
// for up to n + extra open stores) in the process' limit. "" when they fit
// or there is no estimate.
func (s *study) tooManyOpen(v string, set settings.Setting, n, extra int) string {
	h, ok := s.held[v+"\x00"+set.Name]
	if !ok || n == 0 || h.Held == 0 {
		return ""
	}
	if availKB, err := measure.MemAvailableKB(); err == nil {
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
		if f := s.servedFDs[v+"\x00"+set.Name]; f > perStore {
			perStore, from = f, "a smaller pool's serve phase"
		}
		open := n + extra
		need := float64(h.FDsBefore) + perStore*float64(open)
		if need > float64(lim.Max) {
			return fmt.Sprintf("%d open stores need about %.0f open files (%.1f per open store, from %s), more than the limit of %d here (ulimit -n; raise the hard limit to serve this pool)",
				open, need, perStore, from, lim.Max)
		}
	}
	return ""
}
