// Package orchestrate runs a study (manydb run, and manydb serve, a study
// whose phases serve requests) and a profile (manydb profile): one fresh worker process per phase, each phase's record
// appended to the results file as soon as the phase ends, a study resumed
// cell by cell when run again. It links no engine: it knows the workers by
// the catalog in internal/engine and talks to them through their command
// line (job.Job.Args), stdout (one JSON record) and stderr (progress).
package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/results"
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
		fmt.Fprintf(c.Log, "open loop at %s requests/s: the schedule alone takes about %s\n", c.rateText(), FormatSeconds(secs))
	}
	studies := newStudies(c, ss, byVariant)
	servers, err := startServers(c, serverStores(c, studies), studies[0].remove)
	if err != nil {
		return studies[0].id, err
	}
	defer func() {
		if serr := servers.stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	for _, s := range studies {
		s.servers = servers
		if s.OwnPIDs == nil {
			s.OwnPIDs = servers.pids
		}
		if err := s.writeEnv(versions); err != nil {
			return s.id, err
		}
	}
	if id, err := runVariants(ctx, c, studies); err != nil {
		for _, s := range studies {
			s.trash.emptyNow(&s.budget) // err says what stopped the study
		}
		return id, err
	}
	return endStudies(studies)
}

// Check checks c as Run does before it starts (the flags' rules, the
// results file, the space, the engines the workers serve) and runs
// nothing: manydb sweep checks every study of a sweep before the first.
func Check(ctx context.Context, c Config) error {
	_, _, err := c.checkInputs(ctx)
	return err
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
		return nil, nil, &job.InputError{Msg: fmt.Sprintf("%v: choose another --out", err)}
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
		return ss, &job.InputError{Msg: fmt.Sprintf("results file %s cannot be written (%v): choose another --out", c.Out, errors.Unwrap(err))}
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

// setDefaults fills in the progress bar, load sampling interval, gate
// and the gate's readers left unset.
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
	if c.ReadQuiet == nil {
		c.ReadQuiet = ReadQuiet
	}
	if c.Gate == "" {
		c.Gate = GateLoad
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
			creates: map[storesKey]*results.Record{}, servedFDs: map[storesKey]float64{}, versions: byVariant, trash: trash{root: sc.Root}}
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
	for _, w := range c.cells() {
		anyFailed := false
		for i, s := range studies {
			// In a sweep the stores stay until the smallest count is done.
			s.leaveStores = i < len(studies)-1
			began, pending := time.Now(), s.pendingPhases(w)
			f, err := s.cell(w).run(ctx)
			s.spent += time.Since(began)
			if err != nil {
				return s.id, err
			}
			eta.finished(pending)
			anyFailed = anyFailed || f
		}
		if len(studies) > 1 && !c.Keep && !anyFailed {
			last := studies[len(studies)-1]
			if err := last.remove(last.cell(w).dir, w.v); err != nil {
				return studies[0].id, err
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

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

func (p phase) String() string {
	switch {
	case p.cache != "":
		return fmt.Sprintf("%s run %d (%s)", p.name, p.run, p.cache)
	case p.name == job.PhaseServe:
		if p.rate > 0 {
			return fmt.Sprintf("serve, pool size %d at %s requests/s", p.pool, job.FormatRate(p.rate))
		}
		return fmt.Sprintf("serve, pool size %d", p.pool)
	case p.name == job.PhaseHold && p.run > 0:
		return fmt.Sprintf("hold of %d stores", p.hold)
	case p.run > 0:
		return fmt.Sprintf("%s run %d", p.name, p.run)
	}
	return string(p.name)
}

// serverStores are the store directories of the run's variants whose
// stores live in a server (startServers removes them).
func serverStores(c Config, studies []*study) []variantDir {
	var dirs []variantDir
	for _, s := range studies {
		for _, w := range c.cells() {
			if fam, _ := c.family(w.v); fam.Server != "" {
				dirs = append(dirs, variantDir{dir: s.cell(w).dir, v: w.v})
			}
		}
	}
	return dirs
}
