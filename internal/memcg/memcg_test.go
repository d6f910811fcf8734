package memcg

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"manydb/internal/measure"
)

// The test binary doubles as a child that, once told to go (a byte on
// stdin), touches 64 MiB or 64 KiB of anonymous memory or reads a file, says
// "ready" and waits for stdin to close.
const childEnv = "MANYDB_MEMCG_CHILD"

func TestMain(m *testing.M) {
	kind := os.Getenv(childEnv)
	if kind == "" {
		os.Exit(m.Run())
	}
	os.Stdin.Read(make([]byte, 1))
	var keep []byte
	switch kind {
	case "anon":
		keep = make([]byte, 64<<20)
		for i := range keep {
			keep[i] = byte(i)
		}
	case "small":
		keep = make([]byte, 64<<10)
		for i := range keep {
			keep[i] = byte(i)
		}
	case "file":
		if _, err := os.ReadFile(os.Getenv("MANYDB_MEMCG_FILE")); err != nil {
			os.Exit(2)
		}
	}
	os.Stdout.Write([]byte("ready\n"))
	os.Stdin.Read(make([]byte, 1))
	os.Stdout.Write(keep[:min(1, len(keep))])
	os.Exit(0)
}

// charged starts the child of kind, moves it into a fresh cgroup, lets it
// go and returns what the cgroup is charged once the child is ready
// (ReadSettled).
func charged(t *testing.T, kind string, env ...string) Charge {
	t.Helper()
	g, err := Default().New("manydb-test")
	if errors.Is(err, ErrUnavailable) && os.Geteuid() != 0 {
		t.Skipf("not root, so no cgroup can be made: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(append(os.Environ(), childEnv+"="+kind), env...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		in.Close()
		cmd.Wait()
		if err := g.Remove(); err != nil {
			t.Error(err)
		}
	}()
	if err := g.Join(cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	in.Write([]byte("g"))
	if _, err := out.Read(make([]byte, 6)); err != nil {
		t.Fatal(err)
	}
	c, err := g.ReadSettled()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAnonymousIsCharged(t *testing.T) {
	c := charged(t, "anon")
	if c.Anon < 60<<20 || c.Bytes < c.Anon {
		t.Fatalf("a child that touched 64 MiB: charged %+v", c)
	}
}

// A change too small for the kernel to fold in on a read (it shows only
// at its periodic fold, up to 2 s later) is in the settled reading.
func TestSmallChangeIsSettled(t *testing.T) {
	c := charged(t, "small")
	if c.Anon < 48<<10 { // (part of it may lie in pages the heap had touched)
		t.Fatalf("a child that touched 64 KiB: charged %+v", c)
	}
}

func TestPageCacheIsCharged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, make([]byte, 32<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := measure.Evict(dir); err != nil { // so the child's read brings it in
		t.Fatal(err)
	}
	c := charged(t, "file", "MANYDB_MEMCG_FILE="+path)
	if c.File < 30<<20 { // (ReadFile's buffer is anonymous too)
		t.Fatalf("a child that read a 32 MiB file: charged %+v", c)
	}
}

// RemoveStale removes the cgroups of gone processes made with its prefix,
// and nothing else (issue 31, case 11). The hierarchy is a folder made to
// look like a v1 controller, so the test needs no root.
func TestRemoveStaleRemovesOnlyGoneProcessesGroups(t *testing.T) {
	v1 := t.TempDir()
	os.WriteFile(filepath.Join(v1, "memory.usage_in_bytes"), []byte("0\n"), 0o644)
	h := Hierarchy{V1: v1, V2: t.TempDir(), Self: filepath.Join(t.TempDir(), "none")}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	gonePid := gone.Process.Pid
	names := map[string]bool{ // name → removed
		fmt.Sprintf("manydb-%d-0a1b2c3d", gonePid):     true,
		fmt.Sprintf("manydb-%d-0a1b2c3d", os.Getpid()): false, // this process runs
		fmt.Sprintf("other-%d-0a1b2c3d", gonePid):      false, // not ours
		fmt.Sprintf("manydb-%d-notahex!", gonePid):     false,
		fmt.Sprintf("manydb-%d", gonePid):              false,
	}
	for name := range names {
		if err := os.Mkdir(filepath.Join(v1, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := h.RemoveStale("manydb")
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 {
		t.Errorf("removed %v, want one group", removed)
	}
	for name, want := range names {
		_, err := os.Stat(filepath.Join(v1, name))
		if gotRemoved := err != nil; gotRemoved != want {
			t.Errorf("%s: removed = %v, want %v", name, gotRemoved, want)
		}
	}
}
