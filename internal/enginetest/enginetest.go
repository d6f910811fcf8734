// Package enginetest runs a variant end to end through the worker's phases
// (create, open with the count checked, hold, space) on a few tiny stores,
// for the tests of engine adapter packages. It uses real engines and real
// files in a test's temporary directory.
package enginetest

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"manydb/internal/engine"
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
}

// Run runs c's variant through every phase with worker.RunJob and fails t
// on any error, a wrong count, a missing file or version, or an empty
// figure. It returns the records in phase order.
func Run(t *testing.T, c Case) []results.Record {
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
	base := worker.Job{
		Variant:  c.Variant.ID(),
		Dir:      t.TempDir(),
		Stores:   c.Stores,
		Workload: workload.Spec{Name: "custom", Objects: c.Objects, TextLen: 60},
	}
	run := func(phase string, edit func(*worker.Job)) results.Record {
		t.Helper()
		j := base
		j.Phase = phase
		if edit != nil {
			edit(&j)
		}
		rec, err := worker.RunJob(j, c.Variant, io.Discard)
		if err != nil {
			t.Fatalf("%s phase: %v", phase, err)
		}
		if rec.Status != results.StatusOK {
			t.Fatalf("%s phase: status %q", phase, rec.Status)
		}
		return rec
	}

	create := run(results.PhaseCreate, nil)
	if len(create.CreateMs) != c.Stores {
		t.Errorf("create: %d samples, want %d", len(create.CreateMs), c.Stores)
	}
	for _, k := range c.Versions {
		if create.Versions[k] == "" {
			t.Errorf("versions: no %q in %v", k, create.Versions)
		}
	}

	var recs = []results.Record{create}
	for r := 1; r <= 2; r++ { // the open phase checks every count itself
		open := run(results.PhaseOpen, func(j *worker.Job) { j.Run, j.Seed = r, uint64(r) })
		if len(open.TotalMs) != c.Stores || len(open.QueryMs) != c.Stores {
			t.Errorf("open run %d: %d samples, want %d", r, len(open.TotalMs), c.Stores)
		}
		recs = append(recs, open)
	}

	hold := run(results.PhaseHold, func(j *worker.Job) { j.Hold = c.Stores - 1 })
	if hold.Hold == nil || hold.Hold.Held != c.Stores-1 {
		t.Fatalf("hold: record %+v, want %d stores held", hold.Hold, c.Stores-1)
	}
	if hold.Hold.FDs < hold.Hold.FDsBefore {
		t.Errorf("hold: %d open files with the stores open, %d before", hold.Hold.FDs, hold.Hold.FDsBefore)
	}
	recs = append(recs, hold)

	space := run(results.PhaseSpace, nil)
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
	recs = append(recs, space)

	// A store that is opened, counted and closed again still holds every
	// note: catches an engine whose data lives only in a log that a close
	// forgets, or that a reopen truncates.
	s, err := c.Variant.Open(worker.StoreDir(base.Dir, 0))
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
	return recs
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
		out, err := exec.Command(bin, "--variant", v, "--phase", "versions").Output()
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
