package orchestrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"manydb/internal/engine"
	"manydb/internal/engines/fakeengine"
	"manydb/internal/job"
	"manydb/internal/memcg"
	"manydb/internal/results"
	"manydb/internal/settings"
	"manydb/internal/worker"
	"manydb/internal/workload"
)

// The test binary doubles as a fake worker: started with this variable
// set, it runs worker.Run with the fake engines instead of the tests.
const fakeWorkerEnv = "MANYDB_TEST_FAKE_WORKER"

// Started with this variable set to a JSON Config, the test binary runs
// that study as an orchestrator process (to be killed by a test).
const orchestratorEnv = "MANYDB_TEST_ORCHESTRATOR"

var fakeVariants = []string{"fake", "fake_wrongcount", "fake_crash", "fake_slow", "fake_sigkill", "fake_createfail", "fake_hang", "fake_wrongrecent", "fake_hog", "fake_approxknn", "fake_wrongknn"}

func TestMain(m *testing.M) {
	if os.Getenv(fakeWorkerEnv) == "1" {
		var fs []engine.Factory
		for _, id := range fakeVariants {
			fs = append(fs, engine.Factory{ID: id, New: fakeengine.New(id), Lean: fakeengine.NewLean(id)})
		}
		os.Exit(worker.Exit(worker.Run(os.Args[1:], os.Stdout, os.Stderr, fs...)))
	}
	if js := os.Getenv(orchestratorEnv); js != "" {
		var c Config
		if err := json.Unmarshal([]byte(js), &c); err != nil {
			panic(err)
		}
		c.Log, c.Env = io.Discard, append(os.Environ(), fakeWorkerEnv+"=1")
		if _, err := Run(context.Background(), c); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeConfig returns a study of the fake engines whose worker is this
// test binary, linked into a bin directory as worker-fake. Its hold
// phases make no memory cgroup (noCgroups): a container's figure takes
// seconds to settle.
func fakeConfig(t *testing.T, variants ...string) Config {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(bin, "worker-fake")); err != nil {
		t.Fatal(err)
	}
	return Config{
		Variants: variants,
		Settings: []settings.Setting{mustSetting(t, "default")},
		Layouts:  job.DefaultLayouts(),
		Stores:   10,
		Runs:     2,
		Hold:     4,
		Workload: workload.Spec{Name: "small", Objects: 10, TextLen: 40},
		Root:     filepath.Join(dir, "root"),
		Out:      filepath.Join(dir, "results.jsonl"),
		BinDir:   bin,
		LoadWait: time.Second,
		Env:      append(os.Environ(), fakeWorkerEnv+"=1"),
		Log:      io.Discard,
		Catalog:  []engine.Family{{Binary: "worker-fake", Variants: fakeVariants, Cgo: true}},
		Cgroups:  noCgroups(t),
	}
}

// noCgroups is a hierarchy where no memory cgroup can be made: a hold
// record then has no container figure and says why.
func noCgroups(t *testing.T) *memcg.Hierarchy {
	return &memcg.Hierarchy{V1: t.TempDir(), V2: t.TempDir(), Self: "/proc/self/cgroup"}
}

func mustSetting(t *testing.T, name string) settings.Setting {
	t.Helper()
	s, ok := settings.Lookup(name)
	if !ok {
		t.Fatalf("no setting %s", name)
	}
	return s
}

func TestStudyRecordsEveryPhase(t *testing.T) {
	c := fakeConfig(t, "fake")
	id, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	for _, r := range recs {
		phases = append(phases, string(r.Phase))
		if r.Study != id || r.Status != results.StatusOK || r.Started.IsZero() {
			t.Errorf("record %s: study %s, status %s, started %v; want %s, ok, a start time", r.Phase, r.Study, r.Status, r.Started, id)
		}
		if r.Phase == job.PhaseEnd || r.Phase == job.PhaseEnv {
			continue
		}
		if r.Setting != "default" || r.Versions["fake"] != "1.0" || r.WorkerS <= 0 || len(r.LoadDuring) == 0 {
			t.Errorf("%s: setting %q, versions %v, worker %v s, load samples %v", r.Phase, r.Setting, r.Versions, r.WorkerS, r.LoadDuring)
		}
		// The worker's own account is of a part of the process' time,
		// and it knows how long its process took to reach its run.
		if w := r.WorkerTime; w == nil || w.RunS <= 0 || w.SpawnS <= 0 || w.RunS+w.SpawnS > r.WorkerS {
			t.Errorf("%s: worker's account %+v in a process of %v s", r.Phase, w, r.WorkerS)
		}
	}
	if env := recs[0]; env.Config == nil || env.Config.Stores != 10 || env.Versions["fake"] != "1.0" || env.Env["kernel"] == "" {
		t.Errorf("env record = %+v", env)
	}
	// The end record says where the time went; the parts add up to no more
	// than the wall time.
	b := recs[len(recs)-1].Budget
	if b == nil || b.Engine <= 0 || b.Workers < b.Engine || b.Cleanup <= 0 || b.Failed != 0 ||
		b.Wait+b.Workers+b.Failed+b.Cleanup > b.Wall {
		t.Errorf("budget = %+v", b)
	}
	// The workers' accounts: the open runs' warm-ups are untimed engine
	// calls, every phase draws or checks data, and manydb's own work is a
	// part of the wall time that holds the removal and the workers' starts.
	if w := b.InWorkers; w == nil || w.UntimedS <= 0 || w.DataS <= 0 || b.Accounted != b.Workers || b.StartS() <= 0 ||
		b.OwnS() < b.Cleanup+b.StartS()+w.DataS || b.OwnS() >= b.Wall {
		t.Errorf("budget's accounts = %+v, own %v s, starts %v s", w, b.OwnS(), b.StartS())
	}
	if got := strings.Join(phases, ","); got != "env,create,open,open,hold,space,end" {
		t.Errorf("phases = %s", got)
	}
	// The stores were removed, the marked root stays.
	if _, err := os.Stat(filepath.Join(c.Root, "default", "fake")); !os.IsNotExist(err) {
		t.Errorf("stores not removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(c.Root, MarkerFile)); err != nil {
		t.Errorf("marker gone: %v", err)
	}
}

func TestKeepKeepsStores(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Keep = true
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(job.StoreDir(filepath.Join(c.Root, "default", "fake"), 9, 0), fakeengine.FileName)); err != nil {
		t.Errorf("store 9 not kept: %v", err)
	}
}

// A worker that fails or crashes becomes a failed record with its command
// and stderr; the study goes on with the next variant and Run reports it.
func TestFailedPhasesAreRecordedAndTheStudyGoesOn(t *testing.T) {
	c := fakeConfig(t, "fake_wrongcount", "fake_crash", "fake")
	_, err := Run(context.Background(), c)
	var failed *Failed
	if !errors.As(err, &failed) {
		t.Fatalf("err = %v, want *Failed", err)
	}
	recs, _ := results.ReadFile(c.Out)
	byKey := map[string]results.Record{}
	for _, r := range recs {
		key := r.Variant + " " + string(r.Phase)
		if r.Repeat() > 0 {
			key += " " + string(rune('0'+r.Repeat()))
		}
		byKey[key] = r
	}
	wc := byKey["fake_wrongcount open 1"]
	if wc.Status != results.StatusFailed || !strings.Contains(wc.Error, "count returned 11 notes, want 10") || len(wc.Command) == 0 || wc.Command[0] != filepath.Join(c.BinDir, "worker-fake") {
		t.Errorf("wrong count record = %+v", wc)
	}
	crash := byKey["fake_crash open 1"]
	if crash.Status != results.StatusFailed || !strings.Contains(crash.StderrTail, "crashing on purpose") || !strings.Contains(crash.Error, "exit status 3") {
		t.Errorf("crash record = %+v", crash)
	}
	if r := byKey["fake space"]; r.Status != results.StatusOK {
		t.Errorf("the study did not go on to fake: %+v", r)
	}
	if len(failed.Phases) != 6 { // wrongcount: 2 opens + hold; crash: 2 opens + hold
		t.Errorf("failed phases = %v", failed.Phases)
	}
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		name   string
		change func(c *Config)
		want   string
	}{
		{"missing worker", func(c *Config) { c.BinDir = t.TempDir() }, "worker binary"},
		{"worker not executable", func(c *Config) {
			bin := t.TempDir()
			os.WriteFile(filepath.Join(bin, "worker-fake"), []byte("#!/bin/sh\n"), 0o644)
			c.BinDir = bin
		}, "is not executable"},
		{"hold above stores", func(c *Config) { c.Hold = 11 }, "--hold 11"},
		{"no runs", func(c *Config) { c.Runs = 0 }, "--runs 0"},
		{"foreign root", func(c *Config) {
			os.MkdirAll(c.Root, 0o755)
			os.WriteFile(filepath.Join(c.Root, "precious.txt"), []byte("mine"), 0o644)
		}, "not empty and has no .manydb-root marker"},
		{"root is a file", func(c *Config) {
			os.WriteFile(c.Root, []byte("x"), 0o644)
		}, "is a file, not a directory"},
		{"out inside the root", func(c *Config) {
			c.Out = filepath.Join(c.Root, "default", "fake", "r.jsonl")
		}, "inside the data root"},
		{"out is a directory", func(c *Config) { c.Out = t.TempDir() }, "is a directory"},
		{"out is a device", func(c *Config) { c.Out = "/dev/full" }, "is not a regular file"},
		{"notes larger than memory", func(c *Config) { c.Workload.Objects = 1 << 62 }, "more than half of this machine's"},
		{"root under a file", func(c *Config) {
			os.WriteFile(filepath.Join(filepath.Dir(c.Root), "f"), nil, 0o644)
			c.Root = filepath.Join(filepath.Dir(c.Root), "f", "root")
		}, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fakeConfig(t, "fake")
			// Something already measured in the results file must survive.
			os.WriteFile(c.Out, []byte("earlier line\n"), 0o644)
			earlier := c.Out
			tt.change(&c)
			_, err := Run(context.Background(), c)
			var in *job.InputError
			if !errors.As(err, &in) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want an job.InputError with %q", err, tt.want)
			}
			if b, _ := os.ReadFile(earlier); string(b) != "earlier line\n" {
				t.Errorf("results file changed to %q", b)
			}
			if _, err := os.Stat(c.Out); c.Out != earlier && !strings.HasPrefix(tt.name, "out is a") && err == nil {
				t.Errorf("bad input created the results file %s", c.Out)
			}
			// Nothing was created: no root, no marker (case 9 of issue 12).
			if _, err := os.Stat(filepath.Join(c.Root, MarkerFile)); err == nil {
				t.Errorf("bad input created the marker in %s", c.Root)
			}
		})
	}
}

func TestRemoveInRootRefusesUnmarkedDirectories(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(root, "default", "sqlite")
	os.MkdirAll(victim, 0o755)
	if _, err := RemoveInRoot(root, victim); err == nil || !strings.Contains(err.Error(), "no .manydb-root marker") {
		t.Fatalf("err = %v, want a refusal", err)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatal("an unmarked directory was removed")
	}
	os.WriteFile(filepath.Join(root, MarkerFile), nil, 0o644)
	if _, err := RemoveInRoot(root, filepath.Dir(root)); err == nil {
		t.Error("removed a directory outside the root")
	}
	if _, err := RemoveInRoot(root, victim); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Error("not removed inside a marked root")
	}
}

// TestResumeAfterSIGKILL kills an orchestrator in the middle of a study,
// reruns the same study and checks that every cell is recorded exactly
// once, under one study id.
func TestResumeAfterSIGKILL(t *testing.T) {
	c := fakeConfig(t, "fake_slow", "fake")
	c.Stores, c.Runs, c.Hold = 8, 3, 4
	// Kill it once create and one open run of fake_slow are recorded
	// (env, create, open): it is then inside the second open run.
	cmd := startOrchestrator(t, c, 3)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before, _ := results.ReadFile(c.Out)
	if n := len(before); n >= 13 {
		t.Fatalf("the study finished (%d records) before it was killed", n)
	}

	id, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range recs {
		if r.Study != id {
			t.Errorf("record of another study %s (want %s)", r.Study, id)
		}
		if r.Phase == job.PhaseEnv || r.Phase == job.PhaseEnd {
			continue
		}
		count[fmt.Sprintf("%s %s %d", r.Variant, r.Phase, r.Repeat())]++
	}
	for _, v := range []string{"fake_slow", "fake"} {
		for _, cell := range []string{"create 0", "open 1", "open 2", "open 3", "hold 0", "space 0"} {
			if n := count[v+" "+cell]; n != 1 {
				t.Errorf("%s %s recorded %d times, want once", v, cell, n)
			}
		}
	}
	// A third run has nothing left to do.
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	again, _ := results.ReadFile(c.Out)
	for _, r := range again[len(recs):] {
		if r.Phase != job.PhaseEnv && r.Phase != job.PhaseEnd {
			t.Errorf("a finished study ran %s %s again", r.Variant, r.Phase)
		}
	}
}

// startOrchestrator runs study c in a child process (this test binary
// under orchestratorEnv) and returns once the results file has lines
// lines.
func startOrchestrator(t *testing.T, c Config, lines int) *exec.Cmd {
	t.Helper()
	c.Log = nil // set again by the child
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), orchestratorEnv+"="+string(js))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(c.Out)
		if strings.Count(string(b), "\n") >= lines {
			return cmd
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the study did not get going")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A glibc setting runs cgo engines with its environment variable and marks
// pure-Go engines not applicable.
func TestSettings(t *testing.T) {
	c := fakeConfig(t, "fake", "fake_slow")
	c.Stores, c.Runs, c.Hold = 3, 1, 1
	c.Catalog = []engine.Family{
		{Binary: "worker-fake", Variants: []string{"fake"}, Cgo: true},
		{Binary: "worker-fake", Variants: []string{"fake_slow"}, Cgo: false},
	}
	c.Settings = []settings.Setting{mustSetting(t, "default"), mustSetting(t, "mmap-threshold")}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, _ := results.ReadFile(c.Out)
	seen := map[string]string{}
	for _, r := range recs {
		if r.Phase == job.PhaseCreate {
			seen[r.Variant+" "+r.Setting] = r.Status + " " + r.Process["MALLOC_MMAP_THRESHOLD_"]
		}
	}
	want := map[string]string{
		"fake default":             "ok ",
		"fake mmap-threshold":      "ok 131072",
		"fake_slow default":        "ok ",
		"fake_slow mmap-threshold": "n/a ",
	}
	checkSeen(t, seen, want)
}

// checkSeen checks that seen has want's value at each of want's keys.
func checkSeen(t *testing.T, seen, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if seen[k] != v {
			t.Errorf("%s: %q, want %q", k, seen[k], v)
		}
	}
}

// The lean setting runs the variants that have lean options with them,
// each record naming them, and marks the others n/a with the catalog's
// reason, pure Go or not; a combination with a malloc setting is n/a
// where either part does not apply.
func TestLeanSetting(t *testing.T) {
	c := fakeConfig(t, "fake", "fake_slow", "fake_wrongrecent")
	c.Stores, c.Runs, c.Hold = 3, 1, 1
	c.Catalog = []engine.Family{
		{Binary: "worker-fake", Variants: []string{"fake"}, Cgo: true},
		{Binary: "worker-fake", Variants: []string{"fake_slow"}, Cgo: false},
		{Binary: "worker-fake", Variants: []string{"fake_wrongrecent"}, Cgo: true, NoLean: map[string]string{"fake_wrongrecent": "no option here"}},
	}
	c.Settings = []settings.Setting{mustSetting(t, "default"), mustSetting(t, "lean"), mustSetting(t, "lean+mmap-threshold")}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, _ := results.ReadFile(c.Out)
	seen := map[string]string{}
	for _, r := range recs {
		if r.Variant == "" || r.Setting == "" {
			continue
		}
		key := r.Variant + " " + r.Setting + " " + string(r.Phase)
		got := r.Status
		if len(r.EngineOptions) > 0 {
			got += " " + r.EngineOptions["fake_cache_pages"]
		}
		if r.Status == results.StatusNotApplicable {
			got += " " + r.Error
		}
		seen[key] = got
	}
	want := map[string]string{
		"fake default create":                         "ok",
		"fake default hold":                           "ok",
		"fake lean create":                            "ok 1",
		"fake lean open":                              "ok 1",
		"fake lean hold":                              "ok 1",
		"fake_slow lean create":                       "ok 1",
		"fake_wrongrecent default create":             "ok",
		"fake_wrongrecent lean create":                "n/a lean sets no option for fake_wrongrecent: no option here",
		"fake lean+mmap-threshold create":             "ok 1",
		"fake_slow lean+mmap-threshold create":        "n/a lean+mmap-threshold combines lean with a change to the C library's malloc, which fake_slow does not allocate with, and a combination applies only where each part does (lean alone applies to it)",
		"fake_wrongrecent lean+mmap-threshold create": "n/a lean sets no option for fake_wrongrecent: no option here",
	}
	checkSeen(t, seen, want)
	if _, ok := seen["fake_wrongrecent lean open"]; ok {
		t.Error("fake_wrongrecent was opened under lean")
	}
}

func TestWaitsForTheLoad(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Stores, c.Runs, c.Hold = 2, 1, 1
	var log strings.Builder
	c.Log = &log
	c.MaxLoad, c.LoadWait = 1, time.Millisecond
	loads := []float64{5, 3, 0.5} // busy twice before the first phase, then quiet
	c.ReadLoad = func() (float64, error) {
		v := loads[0]
		if len(loads) > 1 {
			loads = loads[1:]
		}
		return v, nil
	}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log.String(), "waiting before fake create: load average"); n != 2 {
		t.Errorf("%d waiting messages, want 2:\n%s", n, log.String())
	}
	recs, _ := results.ReadFile(c.Out)
	create := recs[1]
	if create.Phase != job.PhaseCreate || create.Load1 != 0.5 || create.WaitS <= 0 || create.MaxLoad != 1 {
		t.Errorf("create record: phase %s, load1 %v, wait %v s, max load %v", create.Phase, create.Load1, create.WaitS, create.MaxLoad)
	}
	// What stalled during the waits is a part of them (on a kernel with
	// pressure stall information; none is recorded elsewhere).
	if b := recs[len(recs)-1].Budget; b == nil || b.WaitIOStallS < 0 || b.WaitCPUStallS < 0 ||
		b.WaitIOStallS > b.Wait || b.WaitCPUStallS > b.Wait {
		t.Errorf("budget %+v: the stalls during the load waits are not a part of them", b)
	}
}

func TestRefusesAStudyTheDiskCannotHold(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Stores, c.Hold = 1_000_000_000, 1
	_, err := Run(context.Background(), c)
	var in *job.InputError
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "GB free, but this study needs about") {
		t.Fatalf("err = %v, want a refusal with both figures", err)
	}
	if _, err := os.Stat(c.Out); !os.IsNotExist(err) {
		t.Error("a refused study wrote a results file")
	}
}

// After a failed phase the stores are kept, and a rerun redoes only the
// failed cells on them: create is not recorded twice.
func TestRerunAfterAFailedPhaseKeepsTheStores(t *testing.T) {
	c := fakeConfig(t, "fake_crash")
	c.Stores, c.Runs, c.Hold = 5, 1, 2
	for i := 0; i < 2; i++ {
		_, err := Run(context.Background(), c)
		var failed *Failed
		if !errors.As(err, &failed) {
			t.Fatalf("run %d: err = %v, want failed phases", i, err)
		}
	}
	recs, _ := results.ReadFile(c.Out)
	creates := 0
	for _, r := range recs {
		if r.Phase == job.PhaseCreate {
			creates++
		}
	}
	if creates != 1 {
		t.Errorf("create recorded %d times, want once", creates)
	}
	if _, err := os.Stat(filepath.Join(c.Root, "default", "fake_crash", ManifestFile)); err != nil {
		t.Errorf("the stores of a variant with failed phases were removed: %v", err)
	}
}

// A study recorded by another version of manydb is not resumed: figures of
// two versions are never mixed in one study.
func TestNoResumeAcrossVersions(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Stores, c.Runs, c.Hold = 2, 1, 1
	c.Version = "v1"
	first, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	c.Version = "v2"
	second, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if first == second {
		t.Errorf("manydb v2 resumed study %s of manydb v1", first)
	}
	c.Version = "v2"
	third, _ := Run(context.Background(), c)
	if third != second {
		t.Errorf("the same version started study %s instead of resuming %s", third, second)
	}
}

// TestRemoveInRootRemovesTreesNotLinkTargets removes a nested store tree
// (more stores than removeAll's goroutines, in fanout folders, with files
// and folders at several depths in each store, one a symbolic link to a
// folder outside the root) and checks that the tree and the trash are
// empty and the link's target is untouched.
func TestRemoveInRootRemovesTreesNotLinkTargets(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, MarkerFile), nil, 0o644)
	kept := filepath.Join(outside, "kept.db")
	os.WriteFile(kept, []byte("not manydb's"), 0o644)
	stores := filepath.Join(root, "default", "sqlite")
	n := 3 * removeWorkers
	for i := range n {
		dir := job.StoreDir(stores, i, 1)
		if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "data.db"), []byte("x"), 0o644)
		os.WriteFile(filepath.Join(dir, "sub", "wal"), []byte("y"), 0o644)
	}
	os.WriteFile(filepath.Join(stores, "manifest.json"), []byte("{}"), 0o644)
	if err := os.Symlink(outside, filepath.Join(job.StoreDir(stores, 0, 1), "link")); err != nil {
		t.Fatal(err)
	}
	if left, err := RemoveInRoot(root, stores, made{stores: n, fanout: 1}); err != nil || len(left) != 0 {
		t.Fatalf("left %v, err %v", left, err)
	}
	if _, err := os.Lstat(stores); !os.IsNotExist(err) {
		t.Errorf("stores still there: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Join(root, TrashDir)); len(left) != 0 {
		t.Errorf("trash holds %d entries after the removal", len(left))
	}
	if b, err := os.ReadFile(kept); err != nil || string(b) != "not manydb's" {
		t.Errorf("the link's target was touched: %q, %v", b, err)
	}
}

// TestNewStudyLeavesUnfinished: a run on the results file of an
// unfinished study (no end record) of another configuration says that a
// new study starts and the earlier one stays unfinished, and what differs.
func TestNewStudyLeavesUnfinished(t *testing.T) {
	c := fakeConfig(t, "fake")
	first, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	dropLines(t, c.Out, func(l string) bool { return strings.Contains(l, `"phase":"end"`) })
	var log strings.Builder
	c.Log, c.Stores = &log, 8
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("holds study %s, unfinished, of another configuration (stores 10, now 8): a new study starts", first)
	if !strings.Contains(log.String(), want) {
		t.Errorf("the log lacks %q:\n%s", want, log.String())
	}
}

// TestLayouts: a study of both layouts records each phase of each
// variant in each layout, the delete phase last, the shared layout's
// records naming it; a variant whose family has no shared layout is n/a
// there with the catalog's reason, never measured per agent instead;
// and no store directory is left.
func TestLayouts(t *testing.T) {
	c := fakeConfig(t, "fake", "fake_slow")
	c.Layouts = []job.Layout{job.LayoutPerAgent, job.LayoutShared}
	c.Catalog = []engine.Family{{Binary: "worker-fake", Variants: fakeVariants, Cgo: true,
		NoShared: map[string]string{"fake_slow": "no shared layout for a slow fake"}}}
	c.Turns = 1
	c.Deletes = 3 // of 10 stores; one in ten would be 1
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	phases := map[string][]job.Phase{}
	for _, r := range recs {
		if r.Variant == "" {
			continue
		}
		key := r.Variant + " " + r.Layout.Name()
		phases[key] = append(phases[key], r.Phase)
		switch {
		case key == "fake_slow shared" && (r.Status != results.StatusNotApplicable || r.Error != "no shared layout for a slow fake"):
			t.Errorf("fake_slow shared: %s %s %q, want n/a with the catalog's reason", r.Phase, r.Status, r.Error)
		case key != "fake_slow shared" && r.Status != results.StatusOK:
			t.Errorf("%s %s: %s %s", key, r.Phase, r.Status, r.Error)
		case r.Layout.Shared() && r.Status == results.StatusOK && r.SharedLayout == "":
			t.Errorf("%s %s: no shared_layout", key, r.Phase)
		case r.Phase == job.PhaseDelete && r.Status == results.StatusOK && (r.Deletes != 3 || len(r.DeleteMs) != 3):
			t.Errorf("%s delete: deletes %d, %d samples, want 3 and 3 (--deletes 3)", key, r.Deletes, len(r.DeleteMs))
		}
	}
	want := []job.Phase{job.PhaseCreate, job.PhaseOpen, job.PhaseOpen, job.PhaseHold, job.PhaseSpace, job.PhaseTurn, job.PhaseDelete}
	for _, key := range []string{"fake per-agent", "fake shared", "fake_slow per-agent"} {
		if !slices.Equal(phases[key], want) {
			t.Errorf("%s: phases %v, want %v", key, phases[key], want)
		}
	}
	if got := phases["fake_slow shared"]; !slices.Equal(got, []job.Phase{job.PhaseCreate}) {
		t.Errorf("fake_slow shared: phases %v, want one n/a create", got)
	}
	if env := recs[0]; env.Config == nil || !slices.Equal(env.Config.Layouts, []string{"per-agent", "shared"}) || env.Config.Deletes != 3 {
		t.Errorf("env record's layouts and deletes = %+v", env.Config)
	}
	left, _ := filepath.Glob(filepath.Join(c.Root, "default", "*"))
	if len(left) > 0 {
		t.Errorf("stores left after the study: %v", left)
	}
}

// TestNoPerAgent: a variant whose family has the shared layout only
// (engine.Family.NoPerAgent) is n/a in the layout per agent with the
// catalog's reason and measured in the shared layout.
func TestNoPerAgent(t *testing.T) {
	c := fakeConfig(t, "fake", "fake_slow")
	c.Catalog = []engine.Family{{Binary: "worker-fake", Variants: fakeVariants, Cgo: true,
		NoPerAgent: map[string]string{"fake_slow": "a shared form only"}}}
	def, _ := settings.Lookup("default")
	for _, tc := range []struct {
		w    where
		want string
	}{
		{where{set: def, layout: job.LayoutPerAgent, v: "fake_slow"}, "a shared form only"},
		{where{set: def, layout: job.LayoutShared, v: "fake_slow"}, ""},
		{where{set: def, layout: job.LayoutPerAgent, v: "fake"}, ""},
	} {
		if got := c.notApplicable(tc.w); got != tc.want {
			t.Errorf("%s in %s: n/a %q, want %q", tc.w.v, tc.w.layout.Name(), got, tc.want)
		}
	}
}

// TestServerWithoutPgvector: with embeddings, a user's server without
// pgvector (serverNoVectors, set by Validate) makes the server's
// variants n/a with its reason, and no other.
func TestServerWithoutPgvector(t *testing.T) {
	c := fakeConfig(t, "fake", "fake_slow")
	c.Catalog = []engine.Family{{Binary: "worker-fake", Variants: []string{"fake"}, Cgo: true},
		{Binary: "worker-fake", Variants: []string{"fake_slow"}, Cgo: true, Server: "postgres"}}
	c.Workload.Dims, c.serverNoVectors = 16, "no pgvector there"
	def, _ := settings.Lookup("default")
	for v, want := range map[string]string{"fake": "", "fake_slow": "no pgvector there"} {
		if got := c.notApplicable(where{set: def, layout: job.LayoutPerAgent, v: v}); got != want {
			t.Errorf("%s: n/a %q, want %q", v, got, want)
		}
	}
	c.Workload.Dims = 0
	if got := c.notApplicable(where{set: def, layout: job.LayoutPerAgent, v: "fake_slow"}); got != "" {
		t.Errorf("without embeddings fake_slow is n/a: %q", got)
	}
}

// With a load gate, a finished variant's stores are deleted while the
// study waits for the load: the budget counts that time apart, and every
// store is gone at the end, the trash too.
func TestRemovesWhileWaitingForTheLoad(t *testing.T) {
	c := fakeConfig(t, "fake", "fake_slow")
	c.Stores, c.Runs, c.Hold = 5, 1, 1
	c.MaxLoad, c.LoadWait = 1, time.Millisecond
	busy := false
	c.ReadLoad = func() (float64, error) { // busy at every other reading: each phase waits once
		busy = !busy
		if busy {
			return 5, nil
		}
		return 0.5, nil
	}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, _ := results.ReadFile(c.Out)
	if b := recs[len(recs)-1].Budget; b == nil || b.CleanupOverlapped <= 0 {
		t.Errorf("budget %+v: want the first variant's removal to overlap the second's wait", b)
	}
	for _, v := range c.Variants {
		if _, err := os.Stat(filepath.Join(c.Root, "default", v)); !os.IsNotExist(err) {
			t.Errorf("%s's stores: %v, want them removed", v, err)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(c.Root, TrashDir)); len(left) > 0 {
		t.Errorf("the trash holds %d entries, want it emptied", len(left))
	}
}

// With a load gate that never waits, the stores discarded into the trash
// are deleted when the study ends, as its own cleanup, none of it
// overlapped.
func TestEmptiesTheTrashAtTheEnd(t *testing.T) {
	c := fakeConfig(t, "fake", "fake_slow")
	c.Stores, c.Runs, c.Hold = 5, 1, 1
	c.MaxLoad = 1
	c.ReadLoad = func() (float64, error) { return 0.5, nil }
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, _ := results.ReadFile(c.Out)
	if b := recs[len(recs)-1].Budget; b == nil || b.CleanupOverlapped != 0 || b.Cleanup <= 0 {
		t.Errorf("budget %+v: want the removals as cleanup, none overlapped", b)
	}
	if left, _ := os.ReadDir(filepath.Join(c.Root, TrashDir)); len(left) > 0 {
		t.Errorf("the trash holds %d entries, want it emptied", len(left))
	}
}
