package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/memcg"
)

// A run refused because another process holds its results file creates
// no data root (issue 31, case 10): the results file is locked first.
func TestRefusedRunCreatesNoRoot(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Root = filepath.Join(c.Root, "new", "root")
	runRefusedWhileLocked(t, c, c.Out, "the results file")
	if _, err := os.Stat(filepath.Dir(filepath.Dir(c.Root))); err == nil {
		t.Errorf("the refused run created %s", filepath.Dir(filepath.Dir(c.Root)))
	}
}

// A run refused because another process holds its data root leaves no
// results file it created.
func TestRefusedRunLeavesNoResultsFile(t *testing.T) {
	c := fakeConfig(t, "fake")
	if err := PrepareRoot(c.Root, "--root"); err != nil {
		t.Fatal(err)
	}
	runRefusedWhileLocked(t, c, filepath.Join(c.Root, MarkerFile), "the data root")
	if _, err := os.Stat(c.Out); err == nil {
		t.Errorf("the refused run left the results file %s", c.Out)
	}
}

// runRefusedWhileLocked runs study c while this process holds the lock
// on file (what names it in the message) and checks the run is refused as
// bad input saying it is in use.
func runRefusedWhileLocked(t *testing.T, c Config, file, what string) {
	t.Helper()
	held, err := LockFile(file, what)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	_, err = Run(context.Background(), c)
	var in *job.InputError
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("err = %v, want an job.InputError saying %s is in use", err, what)
	}
}

// undo removes what the claim made, but never a file written since or a
// folder that is not empty.
func TestClaimUndoRemovesOnlyWhatItMade(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "a", "b")
	out := filepath.Join(dir, "r.jsonl")
	var cl claim
	if err := cl.lockOut(out); err != nil {
		t.Fatal(err)
	}
	if err := cl.lockRoot(root, "--root"); err != nil {
		t.Fatal(err)
	}
	if err := cl.undo(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{out, filepath.Join(dir, "a")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("undo left %s", p)
		}
	}

	// A results file with a record in it and a root with a store stay.
	cl = claim{}
	if err := cl.lockOut(out); err != nil {
		t.Fatal(err)
	}
	if err := cl.lockRoot(root, "--root"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(out, []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(root, "store"), []byte("x"), 0o644)
	cl.undo()
	for _, p := range []string{out, filepath.Join(root, "store")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("undo removed %s, which was written after the claim", p)
		}
	}
}

// profile --cpuprofile in a folder that does not exist is refused before
// anything is created.
func TestProfileRefusesCPUProfileInMissingFolder(t *testing.T) {
	c := fakeProfileConfig(t, "fake")
	c.CPUProfile = filepath.Join(t.TempDir(), "nonexistent", "cpu.pprof")
	_, err := Profile(context.Background(), c)
	var in *job.InputError
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("err = %v, want an job.InputError naming the missing folder", err)
	}
	for _, p := range []string{c.Root, c.Out} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the refused profile created %s", p)
		}
	}
}

// A run starts by removing the memory cgroups that killed manydb
// processes left, and says so (issue 31, case 11).
func TestRunRemovesStaleCgroups(t *testing.T) {
	v1 := t.TempDir()
	os.WriteFile(filepath.Join(v1, "memory.usage_in_bytes"), []byte("0\n"), 0o644)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(v1, fmt.Sprintf("%s-%d-0a1b2c3d", cgroupPrefix, gone.Process.Pid))
	os.Mkdir(stale, 0o755)
	var log strings.Builder
	c := Config{Cgroups: &memcg.Hierarchy{V1: v1, Self: filepath.Join(v1, "none")}, Log: &log}
	c.removeStaleCgroups()
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("%s is still there", stale)
	}
	if !strings.Contains(log.String(), "removed 1 memory cgroups left by manydb processes that are gone") {
		t.Errorf("log = %q, want a line saying what was removed", log.String())
	}
}
