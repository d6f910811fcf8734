package orchestrate

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
)

func fakeProfileConfig(t *testing.T, variant string) ProfileConfig {
	t.Helper()
	c := fakeConfig(t, variant)
	strace := FindStrace()
	if strace != "" && exec.Command(strace, "-o", os.DevNull, "true").Run() != nil {
		strace = "" // installed, but ptrace is not allowed here: test the path without it
	}
	return ProfileConfig{Variant: variant, Stores: 6, Workload: c.Workload, Root: c.Root, Out: c.Out,
		SyncStores: 2, Strace: strace, BinDir: c.BinDir, Env: c.Env, Log: c.Log, Catalog: c.Catalog}
}

// tmpfsDir returns a new directory under /dev/shm, or skips the test.
func tmpfsDir(t *testing.T) string {
	t.Helper()
	if fs, _ := filesystem("/dev/shm"); fs != "tmpfs" {
		t.Skip("/dev/shm is not a tmpfs here")
	}
	dir, err := os.MkdirTemp("/dev/shm", "manydb-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestProfileRecords(t *testing.T) {
	c := fakeProfileConfig(t, "fake")
	c.Tmpfs = filepath.Join(tmpfsDir(t), "root")
	c.CPUProfile = filepath.Join(t.TempDir(), "cpu.pprof")
	id, err := Profile(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		if r.Study != id || r.Status != results.StatusOK {
			t.Errorf("%s: study %s status %s, want %s ok (%s)", r.Phase, r.Study, r.Status, id, r.Error)
		}
		what := string(r.Phase)
		if r.Profile != nil {
			p := r.Profile
			what += " " + p.Medium + " " + p.FS
			if len(p.TotalMs) != c.Stores || len(p.CreateMs) != c.Stores {
				t.Errorf("%s: %d samples, want %d", what, len(p.TotalMs), c.Stores)
			}
			switch {
			case p.Syncs == nil:
				t.Errorf("%s: no sync count", what)
			case c.Strace == "" && p.Syncs.NotCounted == "":
				t.Errorf("%s: no strace, but syncs %+v", what, p.Syncs)
			case c.Strace != "" && (p.Syncs.Stores != 2 || p.Syncs.NotCounted != "" || !strings.HasPrefix(p.Syncs.Tool, "strace")):
				t.Errorf("%s: syncs = %+v, want 2 stores counted with strace", what, p.Syncs)
			}
		}
		got = append(got, what)
	}
	if s := strings.Join(got, ","); !strings.HasPrefix(s, "env,profile disk ") || !strings.HasSuffix(s, ",profile tmpfs tmpfs,end") {
		t.Errorf("records = %s, want env, profile on disk and tmpfs, end", s)
	}
	for _, f := range []string{c.CPUProfile, TmpfsName(c.CPUProfile)} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("CPU profile %s missing: %v", f, err)
		}
	}
	// The stores are gone; the roots stay, marked.
	for _, root := range []string{c.Root, c.Tmpfs} {
		entries, _ := os.ReadDir(filepath.Join(root, "profile"))
		if len(entries) != 0 {
			t.Errorf("%s/profile still holds %d entries", root, len(entries))
		}
	}
}

// TestProfileStraceFails: when the counting run fails, the timed run's
// record is kept and says why the syncs were not counted.
func TestProfileStraceFails(t *testing.T) {
	c := fakeProfileConfig(t, "fake")
	c.Strace = "/bin/false"
	if _, err := Profile(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	var prof []results.Record
	for _, r := range recs {
		if r.Phase == job.PhaseProfile {
			prof = append(prof, r)
		}
	}
	if len(prof) != 1 || prof[0].Status != results.StatusOK || prof[0].Profile.Syncs == nil ||
		!strings.Contains(prof[0].Profile.Syncs.NotCounted, "the run under strace failed") {
		t.Fatalf("profile records = %+v, want one ok record whose syncs were not counted", prof)
	}
}

func TestProfileRefusesNonTmpfs(t *testing.T) {
	c := fakeProfileConfig(t, "fake")
	c.Tmpfs = filepath.Join(t.TempDir(), "not-tmpfs")
	if fs, _ := filesystem(t.TempDir()); fs == "tmpfs" {
		t.Skip("the test's temporary directory is on a tmpfs")
	}
	_, err := Profile(context.Background(), c)
	var in *job.InputError
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "not on a tmpfs") || strings.Contains(err.Error(), "--root") {
		t.Errorf("err = %v, want an job.InputError saying the --tmpfs root is not on a tmpfs", err)
	}
	// Nothing was created before the input was checked (issue 12, case 9).
	for _, dir := range []string{c.Root, c.Tmpfs} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s was created by a refused profile (%v)", dir, err)
		}
	}
}

func TestTmpfsName(t *testing.T) {
	for in, want := range map[string]string{"cpu.pprof": "cpu.tmpfs.pprof", "/x/cpu": "/x/cpu.tmpfs", "a.b/c.prof": "a.b/c.tmpfs.prof"} {
		if got := TmpfsName(in); got != want {
			t.Errorf("TmpfsName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestProfileRefusesAServerVariant(t *testing.T) {
	c := fakeProfileConfig(t, "fake")
	c.Catalog = append(c.Catalog, engine.Family{Binary: "worker-fake-server", Variants: []string{"fake_server"}, Server: "postgres"})
	c.Variant = "fake_server"
	_, err := Profile(context.Background(), c)
	var in *job.InputError
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "postgres server") {
		t.Errorf("err = %v, want an job.InputError saying profile has nothing to time in a server", err)
	}
	if _, err := os.Stat(c.Root); !os.IsNotExist(err) {
		t.Errorf("%s was created by a refused profile (%v)", c.Root, err)
	}
}
