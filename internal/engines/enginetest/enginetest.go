// Package enginetest runs a variant end to end through the worker's phases
// (create, open with the count checked, hold, space, and serve on a few
// hundred stores) on small stores,
// for the tests of engine adapter packages. It uses real engines and real
// files in a test's temporary directory.
package enginetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/results"
	"manydb/internal/worker"
	"manydb/internal/workload"
)

// Case is what one end-to-end test checks for a variant.
type Case struct {
	// Variant is the variant under test; it is released with
	// engine.Closer's CloseVariant, if it has one, when the test ends.
	Variant engine.Variant
	// Stores is the number of stores to create (default 5).
	Stores int
	// Objects is the number of notes per store (default 50).
	Objects int
	// Files are file names that the space phase must find in the stores.
	Files []string
	// Versions are keys that the record's versions must hold with a
	// non-empty value (the worker adds the Go module versions).
	Versions []string
	// CorruptAborts says why a corrupt store aborts the whole process with
	// this engine (so the check that a corrupt store fails the phase with
	// an error naming it cannot run in-process); empty for every engine
	// that returns an error.
	CorruptAborts string
	// Dir is where the stores go (default: a new temporary directory);
	// give one to look at the stores' files after Run.
	Dir string
	// Server is the address of the server a variant's stores live in
	// (engine.ServerVariant), given to every phase's job.
	Server string
}

// Run runs c's variant through every phase with worker.RunJob and fails t
// on any error, a wrong count, a missing file or version, or an empty
// figure; it also checks that an open run expecting one note more than
// the stores hold fails, the variant's queries (CheckQueries) and
// a serve phase on a few hundred stores (CheckServe). It returns the
// records in phase order: create,
// open runs 1 and 2, hold, space.
func Run(t *testing.T, c Case) []results.Record {
	t.Helper()
	ph := newPhases(t, &c)
	recs := []results.Record{ph.checkCreate()}
	for r := 1; r <= 2; r++ { // the open phase checks every count itself
		recs = append(recs, ph.checkOpen(r))
	}
	ph.checkWrongAnswer()
	recs = append(recs, ph.checkHold(), ph.checkSpace())
	ph.checkReopen()
	if c.CorruptAborts == "" {
		corrupt(t, c.Variant, ph.base)
	} else {
		t.Logf("corrupt store not checked: %s", c.CorruptAborts)
	}
	CheckQueries(t, c.Variant)
	checkServe(t, c.Variant, c.Server)
	return recs
}

// phases runs the worker's phases of a Case, each from the job base.
type phases struct {
	t    *testing.T
	c    Case
	base job.Job
}

// newPhases fills in c's defaults (5 stores of 50 objects in a temporary
// directory), closes its variant when t ends and returns its phases.
func newPhases(t *testing.T, c *Case) *phases {
	t.Helper()
	if c.Stores == 0 {
		c.Stores = 5
	}
	if c.Objects == 0 {
		c.Objects = 50
	}
	if cl, ok := c.Variant.(engine.Closer); ok {
		t.Cleanup(func() {
			if err := cl.CloseVariant(); err != nil {
				t.Errorf("CloseVariant: %v", err)
			}
		})
	}
	if c.Dir == "" {
		c.Dir = t.TempDir()
	}
	return &phases{t: t, c: *c, base: job.Job{
		Variant:  c.Variant.ID(),
		Dir:      c.Dir,
		Stores:   c.Stores,
		Workload: workload.Spec{Name: "custom", Objects: c.Objects, TextLen: 60},
		Server:   c.Server,
	}}
}

// run runs phase from the base job, edited by edit, and fails the test
// unless the phase succeeds.
func (ph *phases) run(phase job.Phase, edit func(*job.Job)) results.Record {
	ph.t.Helper()
	j := ph.base
	j.Phase = phase
	if edit != nil {
		edit(&j)
	}
	rec, err := worker.RunJob(j, ph.c.Variant, io.Discard)
	if err != nil {
		ph.t.Fatalf("%s phase: %v", phase, err)
	}
	if rec.Status != results.StatusOK {
		ph.t.Fatalf("%s phase: status %q", phase, rec.Status)
	}
	return rec
}

// checkCreate creates the stores: one sample each, and the versions the
// Case names.
func (ph *phases) checkCreate() results.Record {
	t, c := ph.t, ph.c
	t.Helper()
	create := ph.run(job.PhaseCreate, nil)
	if len(create.CreateMs) != c.Stores {
		t.Errorf("create: %d samples, want %d", len(create.CreateMs), c.Stores)
	}
	for _, k := range c.Versions {
		if create.Versions[k] == "" {
			t.Errorf("versions: no %q in %v", k, create.Versions)
		}
	}
	return create
}

// checkOpen makes open run r: one sample per store.
func (ph *phases) checkOpen(r int) results.Record {
	ph.t.Helper()
	open := ph.run(job.PhaseOpen, func(j *job.Job) { j.Run, j.Seed = r, uint64(r) })
	if len(open.TotalMs) != ph.c.Stores || len(open.QueryMs) != ph.c.Stores {
		ph.t.Errorf("open run %d: %d samples, want %d", r, len(open.TotalMs), ph.c.Stores)
	}
	return open
}

// checkWrongAnswer: a wrong answer fails the phase; the stores hold
// Objects notes, not one more.
func (ph *phases) checkWrongAnswer() {
	t, c := ph.t, ph.c
	t.Helper()
	wrong := ph.base
	wrong.Phase, wrong.Run, wrong.Seed = job.PhaseOpen, 1, 1
	wrong.Workload.Objects++
	if _, err := worker.RunJob(wrong, c.Variant, io.Discard); err == nil ||
		!strings.Contains(err.Error(), fmt.Sprintf("count returned %d notes, want %d", c.Objects, c.Objects+1)) {
		t.Errorf("open run expecting %d notes in stores of %d: err = %v, want a count error", c.Objects+1, c.Objects, err)
	}
}

// checkHold holds all stores but one open: each keeps a file open.
func (ph *phases) checkHold() results.Record {
	t, c := ph.t, ph.c
	t.Helper()
	hold := ph.run(job.PhaseHold, func(j *job.Job) { j.Hold = c.Stores - 1 })
	if hold.Hold == nil || hold.Hold.Held != c.Stores-1 {
		t.Fatalf("hold: record %+v, want %d stores held", hold.Hold, c.Stores-1)
	}
	if _, ok := c.Variant.(engine.ServerVariant); ok {
		if s := hold.Hold.Server; s == nil || s.Processes < 1 || s.PssAfterKB <= 0 {
			t.Errorf("hold: the server's memory is %+v, want its processes' memory", s)
		}
		return hold
	}
	if per := float64(hold.Hold.FDs-hold.Hold.FDsBefore) / float64(hold.Hold.Held); per < 1 {
		t.Errorf("hold: %.1f open files per open store (%d before, %d after): every engine keeps its store's file open", per, hold.Hold.FDsBefore, hold.Hold.FDs)
	}
	return hold
}

// checkSpace measures the stores' files: every store has bytes, and the
// files the Case names are there.
func (ph *phases) checkSpace() results.Record {
	t, c := ph.t, ph.c
	t.Helper()
	space := ph.run(job.PhaseSpace, nil)
	if len(space.Bytes) != c.Stores {
		t.Fatalf("space: %d samples, want %d", len(space.Bytes), c.Stores)
	}
	for i, b := range space.ApparentBytes {
		if b <= 0 {
			t.Errorf("space: store %d has %d bytes", i, b)
		}
	}
	for _, f := range c.Files {
		if !slices.Contains(space.Files, f) {
			t.Errorf("space: no file %q among %v", f, space.Files)
		}
	}
	return space
}

// checkReopen: a store that is opened, counted and closed again still
// holds every note. It catches an engine whose data lives only in a log
// that a close forgets, or that a reopen truncates.
func (ph *phases) checkReopen() {
	t, c := ph.t, ph.c
	t.Helper()
	s, err := c.Variant.Open(job.StoreDir(ph.base.Dir, 0, 0))
	if err != nil {
		t.Fatalf("reopen store 0: %v", err)
	}
	n, err := s.Count()
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil || n != int64(c.Objects) {
		t.Fatalf("reopen store 0: count %d, %v; want %d", n, err, c.Objects)
	}
}

// Lean runs c (its Variant left nil) with the variant f.Lean makes, as a
// worker under the lean setting does, and checks that the variant names
// its engine options (engine.Optioner) and that every record carries
// them (engine_options), but for a vector index's, which a workload
// without embeddings leaves out (engine.VectorOptioner). It fails t when f has no Lean. It returns the
// records of Run.
func Lean(t *testing.T, f engine.Factory, c Case) []results.Record {
	t.Helper()
	if f.Lean == nil {
		t.Fatalf("%s has no lean factory", f.ID)
	}
	v, err := f.Lean()
	if err != nil {
		t.Fatalf("%s lean: %v", f.ID, err)
	}
	o, ok := v.(engine.Optioner)
	if !ok || len(o.Options()) == 0 {
		t.Fatalf("%s lean: the variant names no engine option", f.ID)
	}
	c.Variant = v
	recs := Run(t, c)
	// Run's workload has no embeddings: a vector index's options
	// (engine.VectorOptioner) are left out of its records.
	want := maps.Clone(o.Options())
	if vo, ok := v.(engine.VectorOptioner); ok {
		for k := range vo.VectorOptions() {
			delete(want, k)
		}
	}
	for _, r := range recs {
		if !maps.Equal(r.EngineOptions, want) {
			t.Errorf("%s lean, %s record: engine_options %v, want %v", f.ID, r.Phase, r.EngineOptions, want)
		}
	}
	t.Logf("%s lean: %v", f.ID, o.Options())
	return recs
}

// Factory returns the factory of variant id among fs.
func Factory(t *testing.T, fs []engine.Factory, id string) engine.Factory {
	t.Helper()
	for _, f := range fs {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no factory for %s", id)
	return engine.Factory{}
}

// corrupt overwrites every file of store 0 with random bytes (a store on
// a server: drops it there, as a lost store) and checks that an open run
// fails with an error that names store 0 and its directory, instead of
// crashing or answering.
func corrupt(t *testing.T, v engine.Variant, j job.Job) {
	t.Helper()
	dir := job.StoreDir(j.Dir, 0, 0)
	if err := damage(v, dir); err != nil {
		t.Fatal(err)
	}
	j.Phase, j.Run, j.Seed = job.PhaseOpen, 1, 1
	_, err := worker.RunJob(j, v, io.Discard)
	var se *worker.StoreError
	if !errors.As(err, &se) || se.Index != 0 || !strings.Contains(err.Error(), dir) {
		t.Errorf("open run over a corrupt store 0: err = %v; want an error naming store 0 and %s", err, dir)
	}
}

// damage overwrites every file of the store in dir with random bytes,
// or, for a store on a server, drops it there.
func damage(v engine.Variant, dir string) error {
	if sv, ok := v.(engine.ServerVariant); ok {
		return sv.DropStore(dir)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		b := make([]byte, max(fi.Size(), 4096))
		for i := range b {
			b[i] = byte(rnd.Uint32())
		}
		return os.WriteFile(path, b, 0o644)
	})
}

// WorkerVersions builds the worker command in package pkg (e.g.
// "manydb/cmd/worker-gokv") with CGO_ENABLED=0, as the Makefile does for a
// pure-Go worker, runs its versions phase for each variant and returns
// each variant's versions. A test binary's build info lists no modules,
// so this is how a test sees the module versions a worker records.
func WorkerVersions(t *testing.T, pkg string, variants ...string) map[string]map[string]string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a worker binary")
	}
	bin := filepath.Join(t.TempDir(), "worker")
	build := exec.Command("go", "build", "-o", bin, pkg)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %s with CGO_ENABLED=0: %v\n%s", pkg, err, out)
	}
	all := map[string]map[string]string{}
	for _, v := range variants {
		out, err := exec.Command(bin, job.Job{Variant: v, Phase: job.PhaseVersions}.Args()...).Output()
		if err != nil {
			t.Fatalf("%s --variant %s --phase versions: %v", pkg, v, err)
		}
		var rec results.Record
		if err := json.Unmarshal(out, &rec); err != nil {
			t.Fatalf("%s --variant %s: record %q: %v", pkg, v, out, err)
		}
		all[v] = rec.Versions
	}
	return all
}

// PerStore creates n stores of spec, opens and counts them all, keeps
// them open and returns what one open store holds on average: goroutines
// and open file descriptors (the hold phase records threads and files but
// not goroutines). It fails t unless closing the stores gives every
// goroutine and file back. With go test -v it logs the figures and the
// files that store 0 holds open.
func PerStore(t *testing.T, v engine.Variant, n int, spec workload.Spec) (goroutines, files float64) {
	t.Helper()
	dirs := MakeStores(t, v, n, spec)
	g0, f0 := settle(-1), openFiles(t)
	var open []engine.Store
	for _, d := range dirs {
		s, err := v.Open(d)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, s)
		if c, err := s.Count(); err != nil || c != int64(spec.Objects) {
			t.Fatalf("count %d, %v", c, err)
		}
	}
	g1, f1 := settle(-1), openFiles(t)
	goroutines, files = float64(g1-g0)/float64(n), float64(f1-f0)/float64(n)
	t.Logf("%s: per open store %.1f goroutines, %.1f open files", v.ID(), goroutines, files)
	if testing.Verbose() {
		held, _ := measure.OpenFilesUnder(dirs[0])
		for _, l := range held {
			t.Logf("store 0 holds %s", l)
		}
	}
	for _, s := range open {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if g2, f2 := settle(g0), openFiles(t); g2 > g0 || f2 > f0 {
		t.Errorf("after closing: %d goroutines (%d before), %d files (%d before)", g2, g0, f2, f0)
	}
	return goroutines, files
}

// MakeStores creates n stores of spec with v, each in a new temporary
// directory (create, insert, close, untimed), and returns the directories;
// store i holds spec's notes of agent i.
func MakeStores(t *testing.T, v engine.Variant, n int, spec workload.Spec) []string {
	t.Helper()
	notes := make([]workload.Note, spec.Objects)
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = t.TempDir()
		spec.Fill(i, notes)
		s, err := v.Create(dirs[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Insert(notes); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return dirs
}

// settle waits up to a second for the goroutine count to fall to want, or
// with want < 0 to stay the same for 20 ms, and returns it.
func settle(want int) int {
	g := runtime.NumGoroutine()
	for i := 0; i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
		h := runtime.NumGoroutine()
		if (want < 0 && h == g) || (want >= 0 && h <= want) {
			return h
		}
		g = h
	}
	return g
}

func openFiles(t *testing.T) int {
	t.Helper()
	n, err := measure.OpenFiles()
	if err != nil {
		t.Skipf("cannot count open files: %v", err)
	}
	return n
}

// Phase runs one phase of j (its Phase set to phase, then changed by
// edit if not nil) with variant v and fails t on an error.
func Phase(t *testing.T, v engine.Variant, j job.Job, phase job.Phase, edit func(*job.Job)) results.Record {
	t.Helper()
	j.Phase = phase
	if edit != nil {
		edit(&j)
	}
	rec, err := worker.RunJob(j, v, io.Discard)
	if err != nil {
		t.Fatalf("%s: %v", phase, err)
	}
	return rec
}
