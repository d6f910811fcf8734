// Package orchestrate runs a study: for each setting and variant it starts
// one fresh worker process per phase (create, each warm open run, hold,
// space), waits for a quiet machine before each phase when asked to,
// appends each phase's record to the results file as soon as the phase
// ends, and removes the stores it created unless told to keep them.
//
// A study can be resumed: run again with the same configuration and
// results file, it skips every cell (variant, setting, phase, run) that has
// a record and does the rest. Records are appended whole and synced, so a
// study killed at any moment loses at most the cell in progress, and no
// cell is recorded twice.
//
// It links no engine: it knows the workers only by the catalog in
// internal/engine and talks to them through their command line, stdout
// (one JSON record) and stderr (progress and diagnostics).
package orchestrate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"manydb/internal/engine"
	"manydb/internal/measure"
	"manydb/internal/results"
	"manydb/internal/settings"
	"manydb/internal/workload"
)

// Config is one study.
type Config struct {
	Variants []string           // variant ids, in table order
	Settings []settings.Setting // process-wide settings, one table each
	Stores   int                // stores per variant
	Runs     int                // warm open runs (seeds 1..Runs)
	Hold     int                // stores held open in the hold phase
	Workload workload.Spec      // what each store holds
	Root     string             // data root (carries MarkerFile)
	Out      string             // results file (JSON Lines, appended)
	Keep     bool               // keep the stores after the study
	Fresh    bool               // start a new study even if one can be resumed
	BinDir   string             // where the worker binaries are
	MaxLoad  float64            // wait before each phase until load1 < MaxLoad (0: don't wait)
	LoadWait time.Duration      // how often to check the load while waiting
	// SkipSpaceCheck starts even if the data root's filesystem looks too
	// small for the study.
	SkipSpaceCheck bool
	Version        string    // manydb's own version, recorded in the environment
	Env            []string  // environment passed to workers (os.Environ())
	Log            io.Writer // progress and messages (stderr)
	// Bar reports progress; nil means NewProgress(Log).
	Bar Progress
	// Catalog maps variants to worker binaries; nil means engine.Catalog().
	// Tests use it to run fake workers.
	Catalog []engine.Family
	// SampleEvery is the load sampling interval while a worker runs; 0
	// means 10 s.
	SampleEvery time.Duration
	// ReadLoad reads the 1-minute load average; nil means measure.Load1.
	ReadLoad func() (float64, error) `json:"-"`
}

// family returns the worker family serving variant v.
func (c *Config) family(v string) (engine.Family, bool) { return lookupFamily(c.Catalog, v) }

// lookupFamily returns the family serving variant v in catalog, or in
// engine.Catalog() when catalog is nil.
func lookupFamily(catalog []engine.Family, v string) (engine.Family, bool) {
	if catalog == nil {
		return engine.Lookup(v)
	}
	for _, f := range catalog {
		if slices.Contains(f.Variants, v) {
			return f, true
		}
	}
	return engine.Family{}, false
}

// checkWorker checks that variant v is known, its worker binary is in
// binDir and runs, and that it serves v with the engine built in.
func checkWorker(catalog []engine.Family, binDir, v string, env []string) error {
	fam, ok := lookupFamily(catalog, v)
	if !ok {
		return &InputError{fmt.Sprintf("unknown engine %q", v)}
	}
	bin := filepath.Join(binDir, fam.Binary)
	st, err := os.Stat(bin)
	switch {
	case err != nil || st.IsDir():
		return &InputError{fmt.Sprintf("worker binary %s for %s is missing: run 'make build' (it needs %s)", bin, v, fam.Needs)}
	case st.Mode()&0o111 == 0:
		return &InputError{fmt.Sprintf("worker binary %s for %s is not executable: chmod +x it or run 'make build'", bin, v)}
	}
	listing, err := listWorker(context.Background(), bin, env)
	if err != nil {
		return &InputError{fmt.Sprintf("worker binary %s for %s does not start (%v): run 'make build'", bin, v, err)}
	}
	for _, l := range listing {
		switch {
		case l.ID != v:
		case l.Disabled != "":
			return &InputError{fmt.Sprintf("%s: %s", v, l.Disabled)}
		case l.Error != "":
			return &InputError{fmt.Sprintf("%s cannot run here: %s", v, l.Error)}
		default:
			return nil
		}
	}
	return &InputError{fmt.Sprintf("worker binary %s does not serve %s: run 'make build'", bin, v)}
}

// failedRecord is the record of a worker that failed: its error, exact
// command line and the tail of its stderr.
func failedRecord(res workerResult, bin string, args []string, variant, phase string, run int, wl workload.Spec, stores int) results.Record {
	return results.Record{
		Variant:    variant,
		Phase:      phase,
		Run:        run,
		Status:     results.StatusFailed,
		Workload:   wl,
		Stores:     stores,
		Error:      res.err.Error(),
		Command:    append([]string{bin}, args...),
		StderrTail: strings.Join(res.stderr, "\n"),
	}
}

// Validate checks the configuration before anything is written.
func (c *Config) Validate() error {
	switch {
	case len(c.Variants) == 0:
		return &InputError{"no engine given: use --engines sqlite (or all)"}
	case len(c.Settings) == 0:
		return &InputError{"no setting given: use --settings default"}
	case c.Stores < 1:
		return &InputError{fmt.Sprintf("--stores %d: create at least one store", c.Stores)}
	case c.Runs < 1:
		return &InputError{fmt.Sprintf("--runs %d: make at least one warm open run", c.Runs)}
	case c.Hold < 1 || c.Hold > c.Stores:
		return &InputError{fmt.Sprintf("--hold %d: hold between 1 and --stores (%d) stores open", c.Hold, c.Stores)}
	case c.Workload.Objects < 1 || c.Workload.TextLen < 1:
		return &InputError{"--objects and --text-len must be at least 1"}
	case c.Root == "":
		return &InputError{"--root is empty: name a directory for the stores"}
	case c.Out == "":
		return &InputError{"--out is empty: name a results file"}
	case c.MaxLoad < 0:
		return &InputError{fmt.Sprintf("--max-load %v must not be negative", c.MaxLoad)}
	case c.MaxLoad > 0 && c.LoadWait <= 0:
		return &InputError{"--load-wait must be positive"}
	}
	for _, v := range c.Variants {
		if err := checkWorker(c.Catalog, c.BinDir, v, c.Env); err != nil {
			return err
		}
	}
	return nil
}

// Failed is returned by Run when one or more phases failed; their records
// are in the results file.
type Failed struct {
	Phases []string
}

func (f *Failed) Error() string {
	return fmt.Sprintf("%d phase(s) failed: %s (see the failed records in the results file)", len(f.Phases), strings.Join(f.Phases, ", "))
}

// Run runs the study, or resumes it, and returns its id. Records already in
// the results file stay there; the study's records are appended.
func Run(ctx context.Context, c Config) (studyID string, err error) {
	if err := c.Validate(); err != nil {
		return "", err
	}
	if err := PrepareRoot(c.Root); err != nil {
		return "", err
	}
	prior, err := readPrior(c.Out)
	if err != nil {
		return "", err
	}
	if !c.SkipSpaceCheck {
		if err := c.checkSpace(); err != nil {
			return "", err
		}
	}
	versions, err := c.engineVersions(ctx)
	if err != nil {
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
	s := &study{Config: c, w: w, start: time.Now(), done: map[cellKey]bool{}}
	s.id = s.resume(prior)
	if s.id == "" {
		s.id = newStudyID(s.start)
	} else {
		fmt.Fprintf(c.Log, "resuming study %s from %s: %d cells already recorded\n", s.id, c.Out, len(s.done))
	}
	if err := s.writeEnv(versions); err != nil {
		return s.id, err
	}
	for _, set := range c.Settings {
		for _, v := range c.Variants {
			if err := s.variant(ctx, set, v); err != nil {
				return s.id, err
			}
		}
	}
	if err := s.writeEnd(); err != nil {
		return s.id, err
	}
	if len(s.failed) > 0 {
		return s.id, &Failed{Phases: s.failed}
	}
	return s.id, nil
}

type study struct {
	Config
	id     string
	w      *results.Writer
	start  time.Time
	done   map[cellKey]bool // cells recorded (ok or n/a) by this study
	failed []string
	budget results.Budget // where this session's time went
}

// cellKey names one cell of a study.
type cellKey struct {
	variant, setting, phase string
	run                     int
}

func newStudyID(t time.Time) string {
	b := make([]byte, 3)
	rand.Read(b)
	return t.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
}

// config returns the configuration as recorded in the study's env record.
func (c *Config) config() *results.StudyConfig {
	names := make([]string, len(c.Settings))
	for i, s := range c.Settings {
		names[i] = s.Name
	}
	root, err := filepath.Abs(c.Root)
	if err != nil {
		root = c.Root
	}
	return &results.StudyConfig{Variants: c.Variants, Settings: names, Stores: c.Stores, Runs: c.Runs,
		Hold: c.Hold, Workload: c.Workload, Root: root, MaxLoad: c.MaxLoad}
}

// readPrior reads the records already in the results file, if any.
func readPrior(out string) ([]results.Record, error) {
	recs, err := results.ReadFile(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	var syn *results.SyntaxError
	if errors.As(err, &syn) {
		return nil, &InputError{fmt.Sprintf("results file %s: %v; fix or move that line, or choose another --out", out, err)}
	}
	if err != nil {
		return nil, &InputError{fmt.Sprintf("results file %s cannot be read: %v", out, err)}
	}
	return recs, nil
}

// resume finds the last study in prior with the same stores, runs, hold,
// workload and root (engines and settings may be added), measured by this
// version of manydb, fills s.done with its recorded cells and returns its
// id; "" when there is none to resume.
func (s *study) resume(prior []results.Record) string {
	if s.Fresh {
		return ""
	}
	want := s.config()
	id, version := "", ""
	for _, r := range prior {
		if r.Phase == results.PhaseEnv && r.Config != nil && sameStudy(r.Config, want) {
			id, version = r.Study, r.Env["manydb"]
		}
	}
	if id == "" {
		return ""
	}
	if version != s.Version {
		// Figures of two versions of manydb are not mixed in one study.
		fmt.Fprintf(s.Log, "%s holds study %s, measured by manydb %s; this is manydb %s, so a new study starts\n", s.Out, id, version, s.Version)
		return ""
	}
	for _, r := range prior {
		if r.Study == id && (r.Status == results.StatusOK || r.Status == results.StatusNotApplicable) {
			s.done[cellKey{r.Variant, r.Setting, r.Phase, r.Run}] = true
		}
	}
	return id
}

func sameStudy(a, b *results.StudyConfig) bool {
	return a.Stores == b.Stores && a.Runs == b.Runs && a.Hold == b.Hold && a.Workload == b.Workload && a.Root == b.Root
}

// phase is one worker run.
type phase struct {
	name string
	run  int // open: 1..Runs
}

func (p phase) String() string {
	if p.run > 0 {
		return fmt.Sprintf("%s run %d", p.name, p.run)
	}
	return p.name
}

func (s *study) phases() []phase {
	ps := []phase{{name: results.PhaseCreate}}
	for r := 1; r <= s.Runs; r++ {
		ps = append(ps, phase{name: results.PhaseOpen, run: r})
	}
	return append(ps, phase{name: results.PhaseHold}, phase{name: results.PhaseSpace})
}

// variant runs the phases of one variant under one setting that are not
// recorded yet, then removes its stores.
func (s *study) variant(ctx context.Context, set settings.Setting, v string) error {
	fam, _ := s.family(v)
	if !set.Applies(fam.Cgo) {
		key := cellKey{v, set.Name, results.PhaseCreate, 0}
		if s.done[key] {
			return nil
		}
		s.done[key] = true
		return s.w.Append(results.Record{Study: s.id, Variant: v, Setting: set.Name, Phase: results.PhaseCreate,
			Status: results.StatusNotApplicable, Workload: s.Workload, Stores: s.Stores, Started: time.Now().UTC(),
			Error: fmt.Sprintf("%s changes glibc's malloc only; %s does not allocate with it", set.Name, v)})
	}
	var todo []phase
	for _, p := range s.phases() {
		if !s.done[cellKey{v, set.Name, p.name, p.run}] {
			todo = append(todo, p)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	bin := filepath.Join(s.BinDir, fam.Binary)
	dir := filepath.Join(s.Root, set.Name, v)
	// The stores of a recorded create phase are reused only if they are all
	// there (an interrupted study keeps them); otherwise they are made
	// anew. Whatever is in dir lies inside the marked root: manydb made it.
	if todo[0].name != results.PhaseCreate && !storesComplete(dir, s.Stores) {
		todo = append([]phase{{name: results.PhaseCreate}}, todo...)
	}
	if todo[0].name == results.PhaseCreate {
		if err := s.remove(dir); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create store directory: %w", err)
		}
	}
	failed := false
	for _, p := range todo {
		ok, err := s.phase(ctx, set, v, bin, dir, p)
		if err != nil {
			return err
		}
		failed = failed || !ok
		if !ok && p.name == results.PhaseCreate {
			fmt.Fprintf(s.Log, "%s (%s): create failed, skipping its other phases\n", v, set.Name)
			break
		}
	}
	switch {
	case s.Keep:
		return nil
	case failed:
		// Kept for a rerun of the same command, which redoes only the
		// failed cells on these stores.
		fmt.Fprintf(s.Log, "%s (%s): keeping its stores in %s for the failed phases; the same command redoes them\n", v, set.Name, dir)
		return nil
	}
	return s.remove(dir)
}

// storesComplete tells whether the stores of a finished create phase are
// in dir: the last one holds files (stores are created in order, and a
// create that failed has no record).
func storesComplete(dir string, stores int) bool {
	entries, err := os.ReadDir(filepath.Join(dir, fmt.Sprintf("%06d", stores-1)))
	return err == nil && len(entries) > 0
}

// phase runs one worker and appends its record; ok is false when the phase
// failed (its failed record is appended). err is for problems that stop
// the study (interrupt, results file).
func (s *study) phase(ctx context.Context, set settings.Setting, v, bin, dir string, p phase) (ok bool, err error) {
	label := fmt.Sprintf("%s %s", v, p)
	if len(s.Settings) > 1 || set.Name != "default" {
		label = fmt.Sprintf("%s [%s] %s", v, set.Name, p)
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
	args := []string{
		"--variant", v, "--phase", p.name, "--dir", dir,
		"--stores", strconv.Itoa(s.Stores),
		"--workload", s.Workload.Name,
		"--objects", strconv.Itoa(s.Workload.Objects),
		"--text-len", strconv.Itoa(s.Workload.TextLen),
		"--progress",
	}
	if set.THPOff {
		args = append(args, "--thp-off")
	}
	switch p.name {
	case results.PhaseOpen:
		args = append(args, "--run", strconv.Itoa(p.run), "--seed", strconv.Itoa(p.run))
	case results.PhaseHold:
		args = append(args, "--hold", strconv.Itoa(s.Hold))
	}
	started := time.Now().UTC()
	total := s.Stores
	if p.name == results.PhaseHold {
		total = s.Hold
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
		if p.name == results.PhaseOpen {
			rec.Seed = uint64(p.run)
		}
		s.failed = append(s.failed, label)
		fmt.Fprintf(s.Log, "%s failed: %v\n  command: %s\n", label, res.err, strings.Join(rec.Command, " "))
	}
	rec.Study, rec.Setting, rec.Load1, rec.Started = s.id, set.Name, load, started
	rec.MaxLoad, rec.WaitS, rec.WorkerS, rec.LoadDuring = s.MaxLoad, wait, res.seconds, during
	if res.err == nil {
		s.budget.Engine += engineSeconds(rec)
		s.budget.Workers += res.seconds
	} else {
		s.budget.Failed += res.seconds
	}
	if err := s.w.Append(rec); err != nil {
		return false, err
	}
	if res.err == nil {
		s.done[cellKey{v, set.Name, p.name, p.run}] = true
	}
	return res.err == nil, nil
}

// engineSeconds sums a record's timed engine spans.
func engineSeconds(r results.Record) float64 {
	var ms float64
	for _, x := range r.CreateMs {
		ms += x
	}
	for _, x := range r.TotalMs {
		ms += x
	}
	if r.Hold != nil {
		ms += r.Hold.EngineS * 1000
	}
	return ms / 1000
}

// waitForLoad returns the 1-minute load average at the start of a phase,
// after waiting until it is below MaxLoad when that is set.
func (s *study) waitForLoad(ctx context.Context, what string) (float64, error) {
	for {
		load, err := s.ReadLoad()
		if err != nil {
			return 0, err
		}
		if s.MaxLoad <= 0 || load < s.MaxLoad {
			return load, nil
		}
		fmt.Fprintf(s.Log, "waiting before %s: load average %.2f is not below --max-load %.2f; checking again in %s\n", what, load, s.MaxLoad, s.LoadWait)
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("interrupted while waiting for the load to drop; the same command resumes the study")
		case <-time.After(s.LoadWait):
		}
	}
}

// writeEnd records where the session's time went, and says it on Log.
func (s *study) writeEnd() error {
	b := s.budget
	b.Wall = time.Since(s.start).Seconds()
	pct := func(x float64) float64 { return 100 * x / b.Wall }
	inWorkers := b.Workers - b.Engine
	other := b.Wall - b.Wait - b.Workers - b.Failed - b.Cleanup
	fmt.Fprintf(s.Log, "study %s: %.0f s: %.0f s waiting for the load, %.0f s inside engine calls, "+
		"%.1f s (%.1f %%) in the workers outside engine calls (start, notes, warm-ups, snapshots), "+
		"%.1f s (%.1f %%) removing stores, %.1f s (%.1f %%) in workers that failed, %.1f s (%.1f %%) other\n",
		s.id, b.Wall, b.Wait, b.Engine, inWorkers, pct(inWorkers), b.Cleanup, pct(b.Cleanup), b.Failed, pct(b.Failed), other, pct(other))
	return s.w.Append(results.Record{Study: s.id, Phase: results.PhaseEnd, Status: results.StatusOK,
		Workload: s.Workload, Stores: s.Stores, Started: s.start.UTC(), WallS: b.Wall, WaitS: b.Wait, EngineS: b.Engine, Budget: &b})
}

// remove removes a variant's stores and counts the time as cleanup.
func (s *study) remove(dir string) error {
	start := time.Now()
	err := RemoveInRoot(s.Root, dir)
	s.budget.Cleanup += time.Since(start).Seconds()
	return err
}
