package orchestrate

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/settings"
)

// noteServed keeps, from an ok serve record, the open files per open
// store at its peak (over at least 10 open stores, less being noise).
func (s *study) noteServed(r *results.Record) {
	sv := r.Serve
	if sv == nil || r.Status != results.StatusOK || sv.MaxOpen < 10 || len(sv.FDs) == 0 {
		return
	}
	key := recordStores(r)
	s.servedFDs[key] = max(s.servedFDs[key], float64(slices.Max(sv.FDs))/float64(sv.MaxOpen))
}

type study struct {
	Config
	servers runServers // the run's database servers (startServers)
	id      string
	w       *results.Writer
	start   time.Time
	done    map[cellKey]bool           // cells recorded (ok or n/a) by this study
	held    map[storesKey]results.Hold // the last hold phase of each variant's stores (the memory and open-file checks)
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
	trash     trash          // stores discarded, deleted while the study waits
	// versions are each variant's versions, as its worker reports them
	// (a store set made by other versions is not reused).
	versions map[string]map[string]string
}

func newStudyID(t time.Time) string {
	b := make([]byte, 3)
	rand.Read(b)
	return t.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
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
	key := recordStores(&r)
	s.done[cellKey{key, r.Phase, r.Repeat(), r.Cache}] = true
	if r.Status != results.StatusOK {
		return
	}
	if r.Hold != nil {
		s.held[key] = *r.Hold
	}
	s.noteServed(&r)
	if r.Phase == job.PhaseCreate {
		s.creates[key] = &r
	}
}

// manifest is what the stores of variant v under set are made for.
func (s *study) manifest(set settings.Setting, v string) Manifest {
	return Manifest{Study: s.id, Variant: v, Setting: set.Name, Workload: s.Workload, Stores: s.Stores, Fanout: s.Fanout, Versions: s.versions[v], Kept: s.Keep}
}

// discard removes a finished variant's stores (of variant v) in dir: into the trash, deleted
// while the study waits for the load (trash.go); without a load gate,
// and in a sweep (whose studies take turns at each variant's phases), at
// once.
func (s *study) discard(dir, v string) error {
	if s.MaxLoad <= 0 || s.sweepID != "" {
		return s.remove(dir, v)
	}
	left, err := s.trash.discard(dir, &s.budget, s.made(v)...)
	s.sayLeft(dir, left)
	return err
}

// remove removes the stores of variant v in dir and counts the time as
// cleanup.
func (s *study) remove(dir, v string) error {
	start := time.Now()
	left, err := RemoveInRoot(s.Root, dir, s.made(v)...)
	s.budget.Cleanup += time.Since(start).Seconds()
	s.sayLeft(dir, left)
	return err
}

// made is the stores the study makes in variant v's directory, or finds
// made there: its own count's, and in a sweep the largest count's (which
// the smaller counts take), each of the files v's engine makes in a
// store's folder. A directory's manifest adds the set it records (owned).
func (s *study) made(v string) []made {
	fam, _ := s.family(v)
	files := fam.FolderFiles[v]
	sets := []made{{stores: s.Stores, fanout: s.Fanout, files: files}}
	if s.from != nil {
		sets = append(sets, made{stores: s.from.Stores, fanout: s.Fanout, files: files})
	}
	return sets
}

// sayLeft says on the console what a removal of the stores in dir left
// there, if anything.
func (s *study) sayLeft(dir string, left []string) {
	if len(left) > 0 {
		fmt.Fprint(s.Log, leftLine(dir, left))
	}
}
