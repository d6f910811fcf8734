package orchestrate

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manydb/internal/engine"
	"manydb/internal/fakeengine"
	"manydb/internal/results"
	"manydb/internal/worker"
	"manydb/internal/workload"
)

// The test binary doubles as a fake worker: started with this variable
// set, it runs worker.Run with the fake engines instead of the tests.
const fakeWorkerEnv = "MANYDB_TEST_FAKE_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(fakeWorkerEnv) == "1" {
		os.Exit(worker.Exit(worker.Run(os.Args[1:], os.Stdout, os.Stderr,
			worker.Factory{ID: "fake", New: fakeengine.New("fake")},
			worker.Factory{ID: "fake_wrongcount", New: fakeengine.New("fake_wrongcount")},
			worker.Factory{ID: "fake_crash", New: fakeengine.New("fake_crash")},
		)))
	}
	os.Exit(m.Run())
}

// fakeConfig returns a study of the fake engines whose worker is this
// test binary, linked into a bin directory as worker-fake.
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
		Setting:  "default",
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
		Catalog: []engine.Family{{Binary: "worker-fake",
			Variants: []string{"fake", "fake_wrongcount", "fake_crash"}}},
	}
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
		if r.Study != id || r.Status != results.StatusOK || r.Setting != "default" {
			t.Errorf("record %+v: want study %s, ok, default", r, id)
		}
		if r.Phase != results.PhaseEnv && (r.Started.IsZero() || r.Versions["fake"] != "1.0") {
			t.Errorf("%s: no start time or engine version", r.Phase)
		}
		phases = append(phases, r.Phase)
	}
	if got := strings.Join(phases, ","); got != "env,create,open,open,hold,space" {
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
	if _, err := os.Stat(filepath.Join(worker.StoreDir(filepath.Join(c.Root, "default", "fake"), 9), fakeengine.FileName)); err != nil {
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
		key := r.Variant + " " + r.Phase
		if r.Run > 0 {
			key += " " + string(rune('0'+r.Run))
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
		{"hold above stores", func(c *Config) { c.Hold = 11 }, "--hold 11"},
		{"no runs", func(c *Config) { c.Runs = 0 }, "--runs 0"},
		{"foreign root", func(c *Config) {
			os.MkdirAll(c.Root, 0o755)
			os.WriteFile(filepath.Join(c.Root, "precious.txt"), []byte("mine"), 0o644)
		}, "not empty and has no .manydb-root marker"},
		{"root is a file", func(c *Config) {
			os.WriteFile(c.Root, []byte("x"), 0o644)
		}, "cannot be created"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fakeConfig(t, "fake")
			// Something already measured in the results file must survive.
			os.WriteFile(c.Out, []byte("earlier line\n"), 0o644)
			tt.change(&c)
			_, err := Run(context.Background(), c)
			var in *InputError
			if !errors.As(err, &in) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want an InputError with %q", err, tt.want)
			}
			if b, _ := os.ReadFile(c.Out); string(b) != "earlier line\n" {
				t.Errorf("results file changed to %q", b)
			}
		})
	}
}

func TestRemoveInRootRefusesUnmarkedDirectories(t *testing.T) {
	root := t.TempDir()
	victim := filepath.Join(root, "default", "sqlite")
	os.MkdirAll(victim, 0o755)
	if err := RemoveInRoot(root, victim); err == nil || !strings.Contains(err.Error(), "no .manydb-root marker") {
		t.Fatalf("err = %v, want a refusal", err)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatal("an unmarked directory was removed")
	}
	os.WriteFile(filepath.Join(root, MarkerFile), nil, 0o644)
	if err := RemoveInRoot(root, filepath.Dir(root)); err == nil {
		t.Error("removed a directory outside the root")
	}
	if err := RemoveInRoot(root, victim); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Error("not removed inside a marked root")
	}
}
