package worker

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"manydb/internal/datasource"
	"manydb/internal/engine"
	"manydb/internal/engines/fakeengine"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/workload"
)

func fakeJob(t *testing.T, phase job.Phase) job.Job {
	t.Helper()
	return job.Job{Variant: "fake", Phase: phase, Dir: t.TempDir(), Stores: 12,
		Workload: workload.Spec{Name: "small", Objects: 10, TextLen: 40}}
}

// sourceOf opens job j's data source, as RunJob does.
func sourceOf(t *testing.T, j job.Job) datasource.Source {
	t.Helper()
	data, err := datasource.Open(j.Workload)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func newFake(t *testing.T, id string) *fakeengine.Variant {
	t.Helper()
	v, err := fakeengine.New(id)()
	if err != nil {
		t.Fatal(err)
	}
	return v.(*fakeengine.Variant)
}

// created returns a fake job whose stores exist.
func created(t *testing.T) job.Job {
	t.Helper()
	j := fakeJob(t, job.PhaseCreate)
	if _, err := RunJob(j, newFake(t, "fake"), io.Discard); err != nil {
		t.Fatal(err)
	}
	return j
}

// TestPhases runs every phase with the fake engine and checks the shape of
// each record: one sample per store, the run's order, held counts, files.
func TestPhases(t *testing.T) {
	v := newFake(t, "fake")
	j := fakeJob(t, job.PhaseCreate)
	rec, err := RunJob(j, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.CreateMs) != j.Stores || rec.WallS <= 0 {
		t.Fatalf("create: %d samples, wall %v; want %d samples and a wall time", len(rec.CreateMs), rec.WallS, j.Stores)
	}
	if rec.Versions["fake"] != "1.0" || rec.Versions["go"] == "" {
		t.Errorf("versions = %v, want the engine's and Go's", rec.Versions)
	}
	for i := 0; i < j.Stores; i++ {
		if _, err := os.Stat(filepath.Join(job.StoreDir(j.Dir, i, 0), fakeengine.FileName)); err != nil {
			t.Fatalf("store %d not created: %v", i, err)
		}
	}

	j.Phase, j.Run, j.Seed = job.PhaseOpen, 2, 2
	rec, err = RunJob(j, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Run != 2 || rec.Seed != 2 {
		t.Errorf("run/seed = %d/%d, want 2/2", rec.Run, rec.Seed)
	}
	for name, xs := range map[string][]float64{"open": rec.OpenMs, "query": rec.QueryMs, "close": rec.CloseMs, "total": rec.TotalMs} {
		if len(xs) != j.Stores {
			t.Errorf("%s: %d samples, want %d", name, len(xs), j.Stores)
		}
	}
	for k := range rec.TotalMs {
		if sum := rec.OpenMs[k] + rec.QueryMs[k] + rec.CloseMs[k]; sum > rec.TotalMs[k]+1e-9 {
			t.Errorf("store %d: open+query+close %v > total %v", k, sum, rec.TotalMs[k])
		}
	}

	j.Phase, j.Hold = job.PhaseHold, 5
	rec, err = RunJob(j, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Hold == nil || rec.Hold.Held != 5 || rec.Hold.RssAfterKB <= 0 || rec.Hold.Threads <= 0 || rec.Hold.FDs <= 0 {
		t.Errorf("hold = %+v, want 5 held and real process figures", rec.Hold)
	}
	if rec.Hold != nil {
		checkHeldOpens(t, rec.Hold, 5)
	}

	j.Phase = job.PhaseSpace
	rec, err = RunJob(j, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(job.StoreDir(j.Dir, 0, 0), fakeengine.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.Files, []string{fakeengine.FileName}) || len(rec.Bytes) != j.Stores || rec.ApparentBytes[0] != st.Size() {
		t.Errorf("space: files %v, %d sizes, apparent %v; want [fake.db], %d, store 0's %d bytes", rec.Files, len(rec.Bytes), rec.ApparentBytes, j.Stores, st.Size())
	}
}

// TestHoldTimesEachOpen: the hold phase times each held store's open, the
// i-th sample being the open made with i stores open. fake_nthopen sleeps
// 1 ms per store open in each open, so sample i is at least i ms: a lower
// bound that the sleep guarantees (not a timing), which samples out of
// order, or spans without the open, would break.
func TestHoldTimesEachOpen(t *testing.T) {
	j := created(t)
	j.Phase, j.Hold = job.PhaseHold, 6
	rec, err := RunJob(j, newFake(t, "fake_nthopen"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	checkHeldOpens(t, rec.Hold, 6)
	if h := rec.Hold; h.Limits == nil || h.Limits.OpenFiles < 1 || h.MappingsBefore < 1 || h.Mappings < 1 || h.MemAvailableKB < 1 || h.PthreadKeysMax == 0 {
		t.Errorf("hold: limits %+v, mappings %d → %d, available %d KB, pthread keys max %d: want each recorded", h.Limits, h.MappingsBefore, h.Mappings, h.MemAvailableKB, h.PthreadKeysMax)
	}
	for i, x := range rec.Hold.OpenMs {
		if x < float64(i) {
			t.Errorf("open %d took %.3f ms, want at least %d ms (%d stores open)", i, x, i, i)
		}
	}
}

// settling is the fake engine with engine.Settler: it counts the calls
// of Settle and the opens before the first.
type settling struct {
	*fakeengine.Variant
	settles, opens, opensAtSettle int
}

func (s *settling) Open(dir string) (engine.Store, error) {
	s.opens++
	return s.Variant.Open(dir)
}

func (s *settling) Settle() error {
	if s.settles == 0 {
		s.opensAtSettle = s.opens
	}
	s.settles++
	return nil
}

// TestHoldSettles: a variant that closes stores in the background is
// settled once, after the hold's warm-up store and before the held
// stores' opens; its wait counts as an untimed engine call.
func TestHoldSettles(t *testing.T) {
	j := created(t)
	j.Phase, j.Hold = job.PhaseHold, 4
	v := &settling{Variant: newFake(t, "fake")}
	rec, err := RunJob(j, v, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if v.settles != 1 || v.opensAtSettle != 1 || v.opens != 1+4 {
		t.Errorf("settled %d times, after %d opens, of %d in all; want once, after the warm-up's 1, of 5", v.settles, v.opensAtSettle, v.opens)
	}
	checkHeldOpens(t, rec.Hold, 4)
}

// checkHeldOpens checks that a hold has one open sample per held store,
// each positive.
func checkHeldOpens(t *testing.T, h *results.Hold, held int) {
	t.Helper()
	if len(h.OpenMs) != held {
		t.Fatalf("hold: %d open samples, want %d (one per held store)", len(h.OpenMs), held)
	}
	for i, x := range h.OpenMs {
		if x <= 0 {
			t.Errorf("hold: open %d took %v ms, want a positive time", i, x)
		}
	}
}

func TestWrongCountFailsThePhase(t *testing.T) {
	j := fakeJob(t, job.PhaseCreate)
	if _, err := RunJob(j, newFake(t, "fake"), io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, phase := range []job.Phase{job.PhaseOpen, job.PhaseHold} {
		j.Phase, j.Seed, j.Hold = phase, 1, 3
		_, err := RunJob(j, newFake(t, "fake_wrongcount"), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "count returned 11 notes, want 10") {
			t.Errorf("%s: err = %v, want a wrong-count failure", phase, err)
		}
	}
}

func TestCreateRefusesExistingStore(t *testing.T) {
	j := fakeJob(t, job.PhaseCreate)
	if err := os.Mkdir(job.StoreDir(j.Dir, 3, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := RunJob(j, newFake(t, "fake"), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "store 3") {
		t.Fatalf("err = %v, want store 3 to fail (its directory exists)", err)
	}
}

func TestOrderIsASeededPermutation(t *testing.T) {
	a, b, c := Order(100, 1), Order(100, 1), Order(100, 2)
	if !slices.Equal(a, b) {
		t.Error("the same seed gave two orders")
	}
	if slices.Equal(a, c) {
		t.Error("seeds 1 and 2 gave the same order")
	}
	sorted := slices.Sorted(slices.Values(a))
	for i, x := range sorted {
		if x != i {
			t.Fatalf("order is not a permutation of 0..99: %v", a)
		}
	}
}

func TestRunCommandLine(t *testing.T) {
	factory := engine.Factory{ID: "fake", New: fakeengine.New("fake")}
	dir, empty := t.TempDir(), t.TempDir()
	var out, errOut bytes.Buffer
	err := Run([]string{"--variant", "fake", "--phase", "create", "--dir", dir, "--stores", "3", "--objects", "7", "--progress"}, &out, &errOut, factory)
	if err != nil {
		t.Fatalf("%v; stderr: %s", err, errOut.String())
	}
	var rec results.Record
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil {
		t.Fatalf("stdout is not one record: %v: %q", err, out.String())
	}
	if rec.Phase != "create" || rec.Workload.Objects != 7 || len(rec.CreateMs) != 3 {
		t.Errorf("record = %+v", rec)
	}
	if strings.Contains(out.String(), `"data"`) {
		t.Errorf("the record names the default data source: %s", out.String())
	}

	bad := []struct {
		args []string
		want string
	}{
		{[]string{"--variant", "nope", "--phase", "create"}, `--variant "nope": this worker serves fake`},
		{[]string{"--variant", "fake", "--phase", "warm"}, `--phase "warm"`},
		{[]string{"--variant", "fake", "--phase", "open", "--dir", dir, "--stores", "3"}, "--seed is required"},
		{[]string{"--variant", "fake", "--phase", "hold", "--dir", dir, "--stores", "3", "--hold", "4"}, "--hold 4"},
		{[]string{"--variant", "fake", "--phase", "create", "--dir", dir}, "--stores 0"},
		{[]string{"--variant", "fake", "--phase", "create", "--dir", empty, "--stores", "3", "--data", "nope"}, `--data "nope": use synthetic`},
	}
	for _, b := range bad {
		err := Run(b.args, io.Discard, io.Discard, factory)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%v: err = %v, want %q", b.args, err, b.want)
		}
	}
	if made, err := os.ReadDir(empty); err != nil || len(made) > 0 {
		t.Errorf("an unknown data source left %d entries in its directory (%v)", len(made), err)
	}
}

// TestLean: --lean makes the variant with the factory's Lean, and every
// record names its engine options, its vector index's only with
// embeddings; a variant without a lean factory, or
// whose lean variant names no option, fails before it measures.
func TestLean(t *testing.T) {
	factory := engine.Factory{ID: "fake", New: fakeengine.New("fake"), Lean: fakeengine.NewLean("fake")}
	args := []string{"--variant", "fake", "--phase", "create", "--stores", "2", "--objects", "3", "--dir"}
	var out bytes.Buffer
	if err := Run(append(args, t.TempDir(), "--lean"), &out, io.Discard, factory); err != nil {
		t.Fatal(err)
	}
	var rec results.Record
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil || !maps.Equal(rec.EngineOptions, fakeengine.LeanOptions()) {
		t.Errorf("lean record: engine_options %v, %v; want %v", rec.EngineOptions, err, fakeengine.LeanOptions())
	}
	// With embeddings the vector index's options are recorded too.
	out.Reset()
	if err := Run(append(args, t.TempDir(), "--lean", "--dims", "4"), &out, io.Discard, factory); err != nil {
		t.Fatal(err)
	}
	want := fakeengine.LeanOptions()
	maps.Copy(want, fakeengine.LeanVectorOptions())
	var vrec results.Record
	if err := json.Unmarshal(out.Bytes(), &vrec); err != nil || !maps.Equal(vrec.EngineOptions, want) {
		t.Errorf("lean record with embeddings: engine_options %v, %v; want %v", vrec.EngineOptions, err, want)
	}
	out.Reset()
	if err := Run(append(args, t.TempDir()), &out, io.Discard, factory); err != nil || strings.Contains(out.String(), "engine_options") {
		t.Errorf("default record: %v, %s; want no engine_options", err, out.String())
	}
	for name, f := range map[string]engine.Factory{
		"no lean factory":      {ID: "fake", New: fakeengine.New("fake")},
		"lean without options": {ID: "fake", New: fakeengine.New("fake"), Lean: fakeengine.New("fake")},
	} {
		err := Run(append(args, t.TempDir(), "--lean"), io.Discard, io.Discard, f)
		if err == nil || !strings.Contains(err.Error(), "lean") {
			t.Errorf("%s: err = %v, want a lean error", name, err)
		}
	}
	err := Run(append(args, t.TempDir()), io.Discard, io.Discard, engine.Factory{ID: "fake", New: fakeengine.NewLean("fake")})
	if err == nil || !strings.Contains(err.Error(), "names engine options") {
		t.Errorf("default variant with options: err = %v", err)
	}
}

// TestTHPOffAndProcessSettings runs a worker with --thp-off in a child
// process (the prctl stays with the process) and checks its record: THP
// off, the malloc variable of its environment recorded. The child ends
// with os.Exit, which runs no cleanup, so its store directory is the
// parent's t.TempDir.
func TestTHPOffAndProcessSettings(t *testing.T) {
	if dir := os.Getenv("MANYDB_TEST_THP_DIR"); dir != "" {
		var out bytes.Buffer
		err := Run([]string{"--variant", "fake", "--phase", "create", "--dir", dir, "--stores", "1", "--thp-off"}, &out, io.Discard,
			engine.Factory{ID: "fake", New: fakeengine.New("fake")})
		if err != nil {
			t.Fatal(err)
		}
		os.Stdout.Write(out.Bytes())
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestTHPOffAndProcessSettings$")
	cmd.Env = append(os.Environ(), "MANYDB_TEST_THP_DIR="+t.TempDir(), "MALLOC_TRIM_THRESHOLD_=67108864")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var rec results.Record
	if err := json.Unmarshal(out, &rec); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rec.Process["MALLOC_TRIM_THRESHOLD_"] != "67108864" {
		t.Errorf("process = %v: the malloc variable did not reach the worker", rec.Process)
	}
	v, ok := rec.Process["thp_enabled"]
	if !ok {
		t.Skip("this kernel's /proc/self/status has no THP_enabled line: --thp-off cannot be checked")
	}
	if v != "0" {
		t.Errorf("thp_enabled = %q after --thp-off, want 0", v)
	}
}

// TestSinceSpawn: the time from the orchestrator's clock at the worker's
// start to its run; none without it, and never negative.
func TestSinceSpawn(t *testing.T) {
	start := time.Unix(100, 500_000_000)
	for _, c := range []struct {
		env  string
		want float64
	}{{"99000000000", 1.5}, {"", 0}, {"soon", 0}, {"101000000000", 0}} {
		if got := sinceSpawn(c.env, start); got != c.want {
			t.Errorf("sinceSpawn(%q) = %v, want %v", c.env, got, c.want)
		}
	}
}

// TestMkStoreDirBesideOnesOwnFiles: a store's folder that exists is taken
// when it holds only files not the engine's, refused when it holds one of
// the engine's, and always refused for a variant the catalog does not
// name the files of.
func TestMkStoreDirBesideOnesOwnFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "000003")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "myfile.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := mkStoreDir("sqlite", dir); err != nil {
		t.Errorf("a folder with one's own file: %v, want it taken", err)
	}
	if err := mkStoreDir("fake", dir); err == nil {
		t.Error("a variant of no listed files: taken, want refused")
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.db-wal"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := mkStoreDir("sqlite", dir); err == nil {
		t.Error("a folder with the engine's notes.db-wal: taken, want refused")
	}
}

// TestRemoveStoreLeavesOnesOwnFiles: deleting an agent's store takes the
// engine's files of its folder and the folder, but a file of one's own
// stays, with its folder; a variant of no listed files loses the folder.
func TestRemoveStoreLeavesOnesOwnFiles(t *testing.T) {
	root := t.TempDir()
	write := func(dir string, names ...string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	mine := filepath.Join(root, "000001")
	write(mine, "notes.db", "notes.db-wal", "myfile.txt")
	if err := removeStore(nil, folderFiles("sqlite"), mine); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(mine); len(left) != 1 || left[0].Name() != "myfile.txt" {
		t.Errorf("left in the store's folder: %v, want myfile.txt alone", left)
	}
	only := filepath.Join(root, "000002")
	write(only, "notes.db", "notes.db-shm")
	if err := removeStore(nil, folderFiles("sqlite"), only); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(only); !os.IsNotExist(err) {
		t.Errorf("a folder of the engine's files alone: %v after the delete, want it gone", err)
	}
	fake := filepath.Join(root, "000003")
	write(fake, "data", "myfile.txt")
	if err := removeStore(nil, folderFiles("fake"), fake); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fake); !os.IsNotExist(err) {
		t.Errorf("a variant of no listed files: %v after the delete, want the folder gone", err)
	}
}
