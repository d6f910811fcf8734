// Package orchestrate runs a study: for each variant it starts one fresh
// worker process per phase (create, each warm open run, hold, space),
// waits for a quiet machine before each phase when asked to, appends each
// phase's record to the results file as soon as the phase ends, and
// removes the stores it created unless told to keep them.
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
	"manydb/internal/workload"
)

// Config is one study.
type Config struct {
	Variants []string      // variant ids, in table order
	Setting  string        // process-wide setting, "default" for now
	Stores   int           // stores per variant
	Runs     int           // warm open runs (seeds 1..Runs)
	Hold     int           // stores held open in the hold phase
	Workload workload.Spec // what each store holds
	Root     string        // data root (carries MarkerFile)
	Out      string        // results file (JSON Lines, appended)
	Keep     bool          // keep the stores after the study
	BinDir   string        // where the worker binaries are
	MaxLoad  float64       // wait before each phase until load1 < MaxLoad (0: don't wait)
	LoadWait time.Duration // how often to check the load while waiting
	Version  string        // manydb's own version, recorded in the environment
	Env      []string      // environment passed to workers (os.Environ())
	Log      io.Writer     // progress and messages (stderr)
	// Bar reports progress; nil means NewProgress(Log).
	Bar Progress
	// Catalog maps variants to worker binaries; nil means engine.Catalog().
	// Tests use it to run fake workers.
	Catalog []engine.Family
}

// family returns the worker family serving variant v.
func (c *Config) family(v string) (engine.Family, bool) {
	if c.Catalog == nil {
		return engine.Lookup(v)
	}
	for _, f := range c.Catalog {
		if slices.Contains(f.Variants, v) {
			return f, true
		}
	}
	return engine.Family{}, false
}

// Validate checks the configuration before anything is written.
func (c *Config) Validate() error {
	switch {
	case len(c.Variants) == 0:
		return &InputError{"no engine given: use --engines sqlite (or all)"}
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
		fam, ok := c.family(v)
		if !ok {
			return &InputError{fmt.Sprintf("unknown engine %q", v)}
		}
		bin := filepath.Join(c.BinDir, fam.Binary)
		if st, err := os.Stat(bin); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return &InputError{fmt.Sprintf("worker binary %s for %s is missing: run 'make build' (it needs %s)", bin, v, fam.Needs)}
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

// Run runs the study. Records already in the results file stay there; the
// study's records are appended.
func Run(ctx context.Context, c Config) (studyID string, err error) {
	if err := c.Validate(); err != nil {
		return "", err
	}
	if err := PrepareRoot(c.Root); err != nil {
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
	s := &study{Config: c, id: newStudyID(time.Now()), w: w}
	if err := s.writeEnv(); err != nil {
		return s.id, err
	}
	for _, v := range c.Variants {
		if err := s.variant(ctx, v); err != nil {
			return s.id, err
		}
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
	failed []string
}

func newStudyID(t time.Time) string {
	b := make([]byte, 3)
	rand.Read(b)
	return t.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
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

// variant runs every phase of one variant, then removes its stores.
func (s *study) variant(ctx context.Context, v string) error {
	fam, _ := s.family(v)
	bin := filepath.Join(s.BinDir, fam.Binary)
	dir := filepath.Join(s.Root, s.Setting, v)
	// Stores left by an earlier study with --keep are replaced: they lie
	// inside the marked root, so manydb made them.
	if err := RemoveInRoot(s.Root, dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create store directory: %w", err)
	}
	phases := []phase{{name: results.PhaseCreate}}
	for r := 1; r <= s.Runs; r++ {
		phases = append(phases, phase{name: results.PhaseOpen, run: r})
	}
	phases = append(phases, phase{name: results.PhaseHold}, phase{name: results.PhaseSpace})
	for _, p := range phases {
		ok, err := s.phase(ctx, v, bin, dir, p)
		if err != nil {
			return err
		}
		if !ok && p.name == results.PhaseCreate {
			fmt.Fprintf(s.Log, "%s: create failed, skipping its other phases\n", v)
			break
		}
	}
	if s.Keep {
		return nil
	}
	return RemoveInRoot(s.Root, dir)
}

// phase runs one worker and appends its record; ok is false when the phase
// failed (its failed record is appended). err is for problems that stop
// the study (interrupt, results file).
func (s *study) phase(ctx context.Context, v, bin, dir string, p phase) (ok bool, err error) {
	load, err := s.waitForLoad(ctx, fmt.Sprintf("%s %s", v, p))
	if err != nil {
		return false, err
	}
	args := []string{
		"--variant", v, "--phase", p.name, "--dir", dir,
		"--stores", strconv.Itoa(s.Stores),
		"--workload", s.Workload.Name,
		"--objects", strconv.Itoa(s.Workload.Objects),
		"--text-len", strconv.Itoa(s.Workload.TextLen),
		"--progress",
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
	s.Bar.Start(fmt.Sprintf("%s %s", v, p), total)
	res := runWorker(ctx, bin, args, s.Env, s.Bar.Set)
	s.Bar.Done()
	if ctx.Err() != nil {
		return false, fmt.Errorf("interrupted during %s %s; the records of finished phases are in %s", v, p, s.Out)
	}
	rec := res.rec
	if res.err != nil {
		rec = results.Record{
			Variant:    v,
			Phase:      p.name,
			Run:        p.run,
			Status:     results.StatusFailed,
			Workload:   s.Workload,
			Stores:     s.Stores,
			Error:      res.err.Error(),
			Command:    append([]string{bin}, args...),
			StderrTail: strings.Join(res.stderr, "\n"),
		}
		if p.name == results.PhaseOpen {
			rec.Seed = uint64(p.run)
		}
		s.failed = append(s.failed, fmt.Sprintf("%s %s", v, p))
		fmt.Fprintf(s.Log, "%s %s failed: %v\n  command: %s\n", v, p, res.err, strings.Join(rec.Command, " "))
	}
	rec.Study, rec.Setting, rec.Load1, rec.Started = s.id, s.Setting, load, started
	if err := s.w.Append(rec); err != nil {
		return false, err
	}
	return res.err == nil, nil
}

// waitForLoad returns the 1-minute load average at the start of a phase,
// after waiting until it is below MaxLoad when that is set.
func (s *study) waitForLoad(ctx context.Context, what string) (float64, error) {
	for {
		load, err := measure.Load1()
		if err != nil {
			return 0, err
		}
		if s.MaxLoad <= 0 || load < s.MaxLoad {
			return load, nil
		}
		fmt.Fprintf(s.Log, "waiting before %s: load average %.2f is not below --max-load %.2f; checking again in %s\n", what, load, s.MaxLoad, s.LoadWait)
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("interrupted while waiting for the load to drop")
		case <-time.After(s.LoadWait):
		}
	}
}
