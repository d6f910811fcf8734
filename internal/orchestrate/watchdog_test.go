package orchestrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/worker"
)

// lockedBuffer is a console that the watchdog and the study write to from
// their goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStalledWorkerFails: a worker whose engine stops making progress
// (fake_hang sleeps while opening the third store) is killed once the
// stall limit passes, the console says so, and its phase is recorded
// failed, naming the stall and the store it was stuck in; the study goes
// on. Without the watchdog the study waits for the worker until the
// test's deadline.
func TestStalledWorkerFails(t *testing.T) {
	c := fakeConfig(t, "fake_hang")
	c.Runs, c.StallLimit = 1, time.Second
	// A worker built with -race sleeps a second before it exits, after
	// its last progress line.
	c.Env = append(c.Env, "GORACE=atexit_sleep_ms=0")
	var log lockedBuffer
	c.Log = &log
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Run(ctx, c)
	var failed *Failed
	if !errors.As(err, &failed) {
		t.Fatalf("Run: %v, want a study with failed phases\nconsole:\n%s", err, log.String())
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	// The open run's warm-up opens the run's last store, its first store
	// the second open; the third open, of its second store, hangs.
	stuck := worker.Order(c.Stores, 1)[1]
	dir := job.StoreDir(filepath.Join(c.Root, "default", "fake_hang"), stuck, 0)
	want := map[job.Phase]string{
		job.PhaseOpen: fmt.Sprintf("no progress for 1s at store %d (%s), 1 of 10 stores done", stuck, dir),
		job.PhaseHold: "at store 1 (",
	}
	for _, r := range recs {
		w, ok := want[r.Phase]
		if !ok {
			continue
		}
		delete(want, r.Phase)
		if r.Status != results.StatusFailed || !strings.Contains(r.Error, w) || !strings.HasSuffix(r.Error, "; worker killed") {
			t.Errorf("%s record: status %s, error %q; want failed, naming %q and the kill", r.Phase, r.Status, r.Error, w)
		}
		if len(r.TotalMs) > 0 {
			t.Errorf("%s record keeps samples: %v", r.Phase, r.TotalMs)
		}
	}
	if len(want) > 0 {
		t.Errorf("no record of %v", want)
	}
	if con := log.String(); !strings.Contains(con, "fake_hang open run 1: no progress for 1s at store") || !strings.Contains(con, "killing it") {
		t.Errorf("the console does not say that the open run stalled:\n%s", con)
	}
}

// TestStoppedWorkerFails: a worker stopped with SIGSTOP during an open
// run, for less than the stall limit, then continued, runs to its end,
// but its record is a failed one: its samples are not measurements.
func TestStoppedWorkerFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a study of slow fake stores (-short)")
	}
	c := fakeConfig(t, "fake_slow")
	c.Stores, c.Runs, c.Hold, c.StallLimit = 60, 1, 2, 20*time.Second
	stopped := make(chan error, 1)
	go func() { stopped <- stopWorker("open", 500*time.Millisecond) }()
	_, err := Run(context.Background(), c)
	if serr := <-stopped; serr != nil {
		t.Fatal(serr)
	}
	var failed *Failed
	if !errors.As(err, &failed) {
		t.Fatalf("Run: %v, want a study with failed phases", err)
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Phase != job.PhaseOpen {
			continue
		}
		if r.Status != results.StatusFailed || !strings.Contains(r.Error, "was stopped") || !strings.Contains(r.Error, "not measurements") {
			t.Errorf("open record: status %s, error %q; want failed, saying the worker was stopped", r.Status, r.Error)
		}
	}
}

// stopWorker waits for this process' worker of phase, stops it with
// SIGSTOP for d and continues it.
func stopWorker(phase string, d time.Duration) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		for _, pid := range childWorkers(phase) {
			if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
				return err
			}
			time.Sleep(d)
			return syscall.Kill(pid, syscall.SIGCONT)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("no %s worker seen", phase)
}

// childWorkers lists this process' children that run phase.
func childWorkers(phase string) []int {
	var pids []int
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, task := range tasks {
		b, _ := os.ReadFile(filepath.Join("/proc/self/task", task.Name(), "children"))
		for _, f := range strings.Fields(string(b)) {
			cmd, _ := os.ReadFile(filepath.Join("/proc", f, "cmdline"))
			if strings.Contains(string(cmd), "--phase\x00"+phase+"\x00") {
				var pid int
				fmt.Sscan(f, &pid)
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// TestWasStopped: waitid reports a stopped child once, and once more
// when it is continued; a running one not at all.
func TestWasStopped(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	pid := cmd.Process.Pid
	if wasStopped(pid) {
		t.Fatal("a running child reported stopped")
	}
	for _, sig := range []syscall.Signal{syscall.SIGSTOP, syscall.SIGCONT} {
		syscall.Kill(pid, sig)
		seen := false
		for range 1000 {
			if seen = wasStopped(pid); seen {
				break
			}
			time.Sleep(time.Millisecond)
		}
		if !seen {
			t.Fatalf("after %v: not reported", sig)
		}
		if wasStopped(pid) {
			t.Errorf("after %v: reported twice", sig)
		}
	}
}

// TestStallLimitRule: the default limit is 100 × the longest gap between
// progress lines, at least a minute; --stall-limit replaces it.
func TestStallLimitRule(t *testing.T) {
	start := time.Now()
	w := newWatchdog(0, "store", "x", nil, start)
	if got := w.currentLimit(); got != minStall {
		t.Errorf("before any line: %v, want %v", got, minStall)
	}
	w.progress(start.Add(2*time.Second), 1, 10)
	w.progress(start.Add(2500*time.Millisecond), 2, 10)
	if got := w.currentLimit(); got != 200*time.Second {
		t.Errorf("longest gap 2s: %v, want 200s", got)
	}
	if got := newWatchdog(time.Second, "store", "x", nil, start).currentLimit(); got != time.Second {
		t.Errorf("--stall-limit 1s: %v", got)
	}
	if gap := w.longestGap(); gap != 500*time.Millisecond {
		t.Errorf("gaps of 2s from the start, then 0.5s: %v carried to the next worker, want 0.5s (not the start's)", gap)
	}
	// A worker after one whose stores took 7 s each (a shared index's
	// create before its delete) starts from that gap, and keeps it.
	after := newWatchdog(0, "agent", "x", nil, start)
	after.startFrom(7 * time.Second)
	after.progress(start.Add(time.Second), 1, 3)
	if got, gap := after.currentLimit(), after.longestGap(); got != 700*time.Second || gap != 7*time.Second {
		t.Errorf("after a 7s gap: limit %v, gap %v; want 700s and 7s", got, gap)
	}
}

// TestHaltedServerEndsTheWorker: when halted says the worker's server
// answers nothing, the watchdog kills the worker at its next look, long
// before the stall limit, and its result carries that reason.
func TestHaltedServerEndsTheWorker(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	why := errors.New("the server's postmaster (pid 1) is stopped")
	asks := 0
	dog := newWatchdog(time.Hour, "store", "x", nil, time.Now())
	dog.halted = func() error {
		if asks++; asks < 3 {
			return nil
		}
		return why
	}
	res := dog.run(cmd.Process.Pid, make(chan struct{}))
	if !errors.Is(res.halted, why) || res.stall != nil {
		t.Errorf("halted %v, stall %v; want the server's reason and no stall", res.halted, res.stall)
	}
	var exit *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("the worker ended with %v, want SIGKILL", err)
	}
}
