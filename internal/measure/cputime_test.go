package measure

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestParseCPUTicks(t *testing.T) {
	got, err := parseCPUTicks([]byte("cpu  100 2 30 400 5 6 7 8 9 10\ncpu0 1 2 3 4 5 6 7 8 9 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (CPUTicks{Busy: 100 + 2 + 30 + 6 + 7 + 8, Total: 558}); got != want {
		t.Fatalf("parseCPUTicks = %+v, want %+v (guest time is inside user and nice)", got, want)
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4 5 6 7 8", "cpu 1 2 3", "cpu 1 2 x 4 5 6 7 8"} {
		if _, err := parseCPUTicks([]byte(bad)); err == nil {
			t.Errorf("parseCPUTicks(%q) gave no error", bad)
		}
	}
}

func TestParseSelfTicks(t *testing.T) {
	line := "22121 (a (odd) name) R 22119 22119 18601 0 -1 4194304 97 0 0 0 13 29 0 0 20 0 1 0 2714542\n"
	if n, err := parseSelfTicks([]byte(line)); err != nil || n != 42 {
		t.Fatalf("parseSelfTicks = %d, %v; want utime 13 + stime 29 = 42", n, err)
	}
	if n, err := parseStatTicks([]byte(line), 4); err != nil || n != 42 {
		t.Fatalf("parseStatTicks(4) = %d, %v; want 13 + 29 + 0 + 0 = 42", n, err)
	}
	waited := "7 (w) S 1 7 7 0 -1 0 0 0 0 0 13 29 5 7 20 0 1 0 2714542\n"
	if n, err := parseStatTicks([]byte(waited), 4); err != nil || n != 54 {
		t.Fatalf("parseStatTicks(4) = %d, %v; want utime, stime, cutime and cstime: 54", n, err)
	}
	for _, bad := range []string{"no name", "1 (x) R 1 2 3", "1 (x) R 1 1 1 0 -1 0 0 0 0 0 u 2 0"} {
		if _, err := parseSelfTicks([]byte(bad)); err == nil {
			t.Errorf("parseSelfTicks(%q) gave no error", bad)
		}
	}
}

// TestCPUTicksGrow: the machine's ticks and this process' own grow while
// it spins, and its own are within the machine's busy ones.
func TestCPUTicksGrow(t *testing.T) {
	m0, err := ReadCPUTicks()
	if err != nil {
		t.Fatal(err)
	}
	s0, err := SelfCPUTicks()
	if err != nil {
		t.Fatal(err)
	}
	for s := s0; s < s0+5; {
		if s, err = SelfCPUTicks(); err != nil {
			t.Fatal(err)
		}
	}
	m1, _ := ReadCPUTicks()
	s1, _ := SelfCPUTicks()
	if m1.Total <= m0.Total || m1.Busy-m0.Busy < s1-s0-1 {
		t.Fatalf("machine %+v → %+v, process %d → %d: the process' ticks are not within the machine's", m0, m1, s0, s1)
	}
}

// TestTreeCPUTicksCountsChildren: a process' tree counts the CPU time of
// a busy child beside its own.
func TestTreeCPUTicksCountsChildren(t *testing.T) {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var kid uint64
	for deadline := time.Now().Add(10 * time.Second); kid < 5 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		kid, _ = TreeCPUTicks(cmd.Process.Pid)
	}
	if kid < 5 {
		t.Fatalf("the busy child used %d ticks in 10 s, want 5 or more", kid)
	}
	self, err := SelfCPUTicks()
	if err != nil {
		t.Fatal(err)
	}
	tree, err := TreeCPUTicks(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if tree < self+kid {
		t.Errorf("TreeCPUTicks(self) = %d, want at least its own %d + the child's %d", tree, self, kid)
	}
	if _, err := TreeCPUTicks(1 << 30); err == nil {
		t.Error("TreeCPUTicks of no process gave no error")
	}
	cmd.Process.Kill()
	cmd.Wait() // the child ends and is waited for: its time moves to this process' cutime
	after, err := TreeCPUTicks(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after < self+kid {
		t.Errorf("TreeCPUTicks(self) after the child ended = %d, want at least %d (its time kept)", after, self+kid)
	}
}

// TestParseActiveTasks: the running and the blocked tasks are summed; a
// /proc/stat without them is an error.
func TestParseActiveTasks(t *testing.T) {
	stat := "cpu  1 2 3 4 5 6 7 8\nprocs_running 3\nprocs_blocked 2\nsoftirq 1 2\n"
	if n, err := parseActiveTasks([]byte(stat)); err != nil || n != 5 {
		t.Fatalf("parseActiveTasks = %d, %v; want 3 + 2", n, err)
	}
	for _, bad := range []string{"cpu 1 2\n", "procs_running 3\n", "procs_running x\nprocs_blocked 1\n"} {
		if _, err := parseActiveTasks([]byte(bad)); err == nil {
			t.Errorf("parseActiveTasks(%q) gave no error", bad)
		}
	}
}

// TestTreeActiveTasksSeesABusyChild: a child spinning on a CPU is
// counted as active in this process' tree, most of the time.
func TestTreeActiveTasksSeesABusyChild(t *testing.T) {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	seen := 0
	for range 50 {
		if TreeActiveTasks(cmd.Process.Pid) == 1 {
			seen++
		}
		time.Sleep(2 * time.Millisecond)
	}
	if seen == 0 {
		t.Errorf("a spinning child was never seen running in 50 readings")
	}
	if n := TreeActiveTasks(1 << 30); n != 0 {
		t.Errorf("TreeActiveTasks of no process = %d", n)
	}
	if _, err := ActiveTasks(); err != nil {
		t.Error(err)
	}
}
