package memcg

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"manydb/internal/measure"
	"manydb/internal/results"
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
	case "reread": // the file three times, in 1 MiB reads
		buf := make([]byte, 1<<20)
		for range 3 {
			f, err := os.Open(os.Getenv("MANYDB_MEMCG_FILE"))
			if err != nil {
				os.Exit(2)
			}
			for {
				if _, err := f.Read(buf); err != nil {
					break
				}
			}
			f.Close()
		}
	}
	os.Stdout.Write([]byte("ready\n"))
	os.Stdin.Read(make([]byte, 1))
	os.Stdout.Write(keep[:min(1, len(keep))])
	os.Exit(0)
}

// charged starts the child of kind in a fresh cgroup, lets it go and
// returns what the cgroup is charged once the child is ready
// (ReadSettled).
func charged(t *testing.T, kind string, env ...string) Charge {
	t.Helper()
	g := testGroup(t)
	cmd, in, out := startChild(t, g, kind, env...)
	defer func() {
		in.Close()
		cmd.Wait()
	}()
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

// testGroup makes a fresh cgroup, removed when the test ends (after the
// test's own defers, so its children are gone); it skips a test that is
// not root where no cgroup can be made.
func testGroup(t *testing.T) Group {
	t.Helper()
	g, err := Default().New("manydb-test")
	if errors.Is(err, ErrUnavailable) && os.Geteuid() != 0 {
		t.Skipf("not root, so no cgroup can be made: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Remove(); err != nil {
			t.Error(err)
		}
	})
	return g
}

// startChild starts this test binary as the child of kind and moves it
// into g; the child waits for a byte on in before it goes.
func startChild(t *testing.T, g Group, kind string, env ...string) (*exec.Cmd, io.WriteCloser, io.Reader) {
	t.Helper()
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
	if err := g.Join(cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	return cmd, in, out
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

// underLimit runs the child of kind in a fresh cgroup limited to limit
// bytes until it is ready or gone, and returns the group's pressure
// (read after memory.stat's fold) and how the child ended.
func underLimit(t *testing.T, kind string, limit int64, env ...string) (results.Pressure, error) {
	t.Helper()
	g := testGroup(t)
	if err := g.SetLimit(limit); err != nil {
		t.Fatal(err)
	}
	cmd, in, out := startChild(t, g, kind, env...)
	in.Write([]byte("g"))
	out.Read(make([]byte, 6)) // "ready", or EOF when the child was killed
	in.Close()
	waitErr := cmd.Wait()
	time.Sleep(StatDelay) // memory.stat's fold
	p, err := g.ReadPressure()
	if err != nil {
		t.Fatal(err)
	}
	return p, waitErr
}

// Past its limit, a process that needs more anonymous memory is killed by
// the OOM killer, and the group counts the kill.
func TestOOMKillIsCounted(t *testing.T) {
	p, err := underLimit(t, "anon", 16<<20)
	if err == nil {
		t.Fatalf("a child that touched 64 MiB under a 16 MiB limit exited normally; pressure %+v", p)
	}
	if p.OOMKills != 1 || p.LimitHits == 0 { // -1 under v1: not counted
		t.Fatalf("a child killed at its 16 MiB limit (%v): pressure %+v, want 1 OOM kill and limit hits", err, p)
	}
	// The peak reaches the limit (the kernel may overshoot by a charge
	// batch of a few pages); 0 where the kernel keeps no peak.
	if p.PeakBytes != 0 && (p.PeakBytes < 12<<20 || p.PeakBytes > 17<<20) {
		t.Errorf("peak %d bytes: want about the 16 MiB limit", p.PeakBytes)
	}
}

// A file read three times under a limit smaller than it is evicted and
// read again: the group counts limit hits and refaults, and no OOM kill.
func TestEvictionsUnderLimitAreCounted(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, make([]byte, 96<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := measure.Evict(dir); err != nil {
		t.Fatal(err)
	}
	p, err := underLimit(t, "reread", 48<<20, "MANYDB_MEMCG_FILE="+path)
	if err != nil {
		t.Fatalf("a child reading a file under a limit: %v (pressure %+v)", err, p)
	}
	if p.OOMKills != 0 || p.LimitHits == 0 || p.RefaultPages <= 0 || p.PeakBytes < 40<<20 {
		t.Fatalf("a 96 MiB file read 3 times under a 48 MiB limit: pressure %+v, want limit hits and refaults, no OOM kill", p)
	}
	if p.ReclaimedPages == 0 {
		t.Errorf("pages reclaimed %d: want > 0 (v2) or -1 (v1, no count)", p.ReclaimedPages)
	}
}

// ReadPressure reads the v2 files (a folder made to look like a v2 group,
// so the test needs no root).
func TestReadPressureV2(t *testing.T) {
	files := map[string]string{
		"memory.current": "100\n",
		"memory.stat":    "anon 1\nfile 2\nworkingset_refault_file 37\npgsteal 410\n",
		"memory.events":  "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n",
		"memory.peak":    "4096\n",
	}
	g := Open(fakeGroup(t, files))
	if !g.V2 {
		t.Fatal("a folder with memory.current: not read as a v2 group")
	}
	p, err := g.ReadPressure()
	if err != nil {
		t.Fatal(err)
	}
	want := results.Pressure{PeakBytes: 4096, LimitHits: 12, RefaultPages: 37, ReclaimedPages: 410, OOMKills: 1}
	if p != want {
		t.Fatalf("pressure %+v, want %+v", p, want)
	}
}

// ReadPressure reads the v1 files (a folder made to look like a v1
// group); a memory.stat without refault lines gives -1, not 0.
func TestReadPressureV1(t *testing.T) {
	files := map[string]string{
		"memory.usage_in_bytes":     "100\n",
		"memory.stat":               "cache 2\nrss 1\ntotal_cache 2\ntotal_rss 1\ntotal_workingset_refault_file 37\n",
		"memory.max_usage_in_bytes": "4096\n",
		"memory.oom_control":        "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n",
	}
	g := Open(fakeGroup(t, files))
	if g.V2 {
		t.Fatal("a folder without memory.current: read as a v2 group")
	}
	p, err := g.ReadPressure()
	if err != nil {
		t.Fatal(err)
	}
	want := results.Pressure{PeakBytes: 4096, LimitHits: -1, RefaultPages: 37, ReclaimedPages: -1, OOMKills: 1}
	if p != want {
		t.Fatalf("pressure %+v, want %+v", p, want)
	}
	os.WriteFile(filepath.Join(g.Path, "memory.stat"), []byte("total_cache 2\ntotal_rss 1\n"), 0o644)
	if p, err := g.ReadPressure(); err != nil || p.RefaultPages != -1 {
		t.Fatalf("a memory.stat without refaults: pressure %+v, %v; want RefaultPages -1", p, err)
	}
}

// SetLimit writes the limit, and the swap limit where the group has one.
func TestSetLimitFiles(t *testing.T) {
	for _, v2 := range []bool{false, true} {
		dir := t.TempDir()
		limit, swap := "memory.limit_in_bytes", "memory.memsw.limit_in_bytes"
		if v2 {
			limit, swap = "memory.max", "memory.swap.max"
		}
		os.WriteFile(filepath.Join(dir, swap), nil, 0o644)
		if err := (Group{Path: dir, V2: v2}).SetLimit(1 << 30); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(dir, limit))
		gotSwap, _ := os.ReadFile(filepath.Join(dir, swap))
		wantSwap := "1073741824"
		if v2 {
			wantSwap = "0"
		}
		if string(got) != "1073741824" || string(gotSwap) != wantSwap {
			t.Errorf("v2 %v: %s = %q, %s = %q", v2, limit, got, swap, gotSwap)
		}
	}
}

// fakeGroup makes a folder holding files (name → text), to be read as a
// cgroup without root.
func fakeGroup(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
