package faults

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"manydb/internal/job"
	"manydb/internal/results"
)

// Case 1: a study killed in its open run, then another study (other
// workload, more stores) on the same root and out, killed too; the first
// command run again must measure its own stores, not the other's.
func reusedStores(c *fcase) {
	large := study{Stores: 50, Objects: 200, TextLen: 300, Runs: 2, Hold: 5}
	other := study{Workload: "small", Stores: 80, Runs: 2, Hold: 5}
	for _, s := range []study{large, other} {
		p := c.start(s.args(c.root, c.out)...)
		c.caught(p.waitWorker("open") != 0, "the open run ended before it was seen")
		p.kill(syscall.SIGKILL)
		p.wait()
		c.snapshot()
	}
	res := c.run(large.args(c.root, c.out)...)
	c.completes(res)
	c.expect(!strings.Contains(res.stderr, "count returned"), "no open run counts the other study's notes")
	c.audit()
}

// Case 2: the same command twice, 0.3 s apart: the second stops at once
// naming the first, which completes.
func lock(c *fcase) {
	first := c.start(small.args(c.root, c.out)...)
	time.Sleep(300 * time.Millisecond)
	second := c.run(small.args(c.root, c.out)...)
	c.caught(!first.exited(), "the first run ended before the second did")
	c.message(second, 2, true, strconv.Itoa(first.res.pid))
	c.completes(first.wait())
	c.audit()
}

// Case 3: killed right after a record was appended, the results file loses
// its last newline; the same command completes, creating nothing twice.
func newlineCut(c *fcase) {
	p := c.start(small.args(c.root, c.out)...)
	c.caught(c.waitRecord(p, phaseIs(job.PhaseCreate)), "the study ended before its create record was seen")
	p.kill(syscall.SIGKILL)
	p.wait()
	c.snapshot()
	b, err := os.ReadFile(c.out)
	if err != nil || len(b) == 0 || b[len(b)-1] != '\n' {
		c.fatal("results file does not end with a newline after the kill (%v)", err)
	}
	if err := os.Truncate(c.out, int64(len(b)-1)); err != nil {
		c.fatal("truncate: %v", err)
	}
	c.completes(c.run(small.args(c.root, c.out)...))
	c.audit()
}

// Case 4: the data root's disk fills during create: a failed record, the
// partial stores removed; on a bigger disk the same command completes.
func diskFull(c *fcase) {
	s := study{Stores: 60, Objects: 200, TextLen: 300, Runs: 2, Hold: 5, Extra: []string{"--skip-space-check"}}
	fillDisk(c, s, "a failed create record", func(r results.Record) bool { return r.Phase == job.PhaseCreate })
}

// fillDisk runs study s on a 3 MB data root, which must fail with a
// failed record that is (what) and the partial stores removed, and then
// on a bigger disk, where the same command must complete.
func fillDisk(c *fcase, s study, what string, is func(results.Record) bool) {
	c.mount(c.root, "3m")
	res := c.run(s.args(c.root, c.out)...)
	c.message(res, 3, false, "no space left|disk is full")
	failed := false
	for _, r := range c.snapshot() {
		failed = failed || is(r) && r.Status == results.StatusFailed && r.Error != ""
	}
	c.expect(failed, "%s", what)
	left := filesIn(c.root)
	c.expect(len(left) == 0, "partial stores removed (%d files left)", len(left))
	c.remount(c.root, "size=64m")
	c.completes(c.run(s.args(c.root, c.out)...))
	c.audit()
}

// Case 5: killed while the stores are removed; the same command removes
// what is left.
func killDuringRemoval(c *fcase) {
	s := study{Stores: 600, Objects: 20, TextLen: 50, Runs: 1, Hold: 5}
	p := c.start(s.args(c.root, c.out)...)
	c.caught(c.waitRecord(p, phaseIs(job.PhaseSpace)), "the study ended before its space record was seen")
	for storeDirs(c.root) == s.Stores && !p.exited() {
		time.Sleep(pollEvery) // until the first store is gone
	}
	p.kill(syscall.SIGKILL)
	p.wait()
	c.snapshot()
	left := storeDirs(c.root)
	c.caught(left > 0, "the stores were all removed before the kill")
	c.row.Checks = append(c.row.Checks, fmt.Sprintf("killed with %d of %d stores left", left, s.Stores))
	c.completes(c.run(s.args(c.root, c.out)...))
	files := filesIn(c.root)
	c.expect(len(files) == 0, "nothing but the marker left in the root (%d files)", len(files))
	c.audit()
}

// Case 6a: --out inside a data root that does not exist yet.
func outInsideNewRoot(c *fcase) {
	out := filepath.Join(c.root, "default", "sqlite", "r.jsonl")
	res := c.run(small.args(c.root, out)...)
	c.message(res, 2, true, "--out")
	c.expect(!exists(c.root), "no data root created")
}

// Case 6b: --out inside a data root of an earlier study.
func outInsideMarkedRoot(c *fcase) {
	tiny := study{Stores: 5, Objects: 20, TextLen: 50, Runs: 1, Hold: 2}
	if res := c.run(tiny.args(c.root, c.out)...); res.code != 0 {
		c.fatal("the earlier study: %s: %s", res, lastLine(res.stderr))
	}
	out := filepath.Join(c.root, "r.jsonl")
	res := c.run(tiny.args(c.root, out)...)
	c.message(res, 2, true, "--out")
	c.expect(!exists(out), "no results file created in the root")
}

// Case 7: a store overwritten with random bytes after the study was killed
// in its open run: the rerun's open runs fail naming the store, and no
// figure of it is recorded ok.
func corruptStore(c *fcase) {
	s := study{Stores: 50, Objects: 20, TextLen: 50, Runs: 2, Hold: 5}
	p := c.start(s.args(c.root, c.out)...)
	// Killed in the open run: the create is recorded and its stores are
	// complete, so the rerun reuses them.
	c.caught(p.waitWorker("open") != 0, "the open run ended before it was seen")
	p.kill(syscall.SIGKILL)
	p.wait()
	before := len(c.snapshot())
	store := findStore(c.root, 3)
	if store == "" {
		c.fatal("store 3 not found under %s after the kill", c.root)
	}
	corrupt(c, filepath.Join(store, "notes.db"))
	res := c.run(s.args(c.root, c.out)...)
	c.message(res, 3, false, "store 3", store)
	named := false
	for _, r := range c.records()[before:] {
		switch {
		case r.Status == results.StatusFailed && (r.Phase == job.PhaseOpen || r.Phase == job.PhaseHold):
			named = named || strings.Contains(r.Error, "store 3") && strings.Contains(r.Error, store)
		case r.Status == results.StatusOK && (r.Phase == job.PhaseOpen || r.Phase == job.PhaseHold):
			c.extra++ // a figure measured over the corrupt store
		}
	}
	c.expect(named, "a failed record's error names store 3 and %s", store)
	c.audit()
}

// corrupt overwrites a file with random bytes of its size (at least a page).
func corrupt(c *fcase, file string) {
	st, err := os.Stat(file)
	if err != nil {
		c.fatal("corrupt: %v", err)
	}
	b := make([]byte, max(st.Size(), 4096))
	rand.Read(b)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		c.fatal("corrupt: %v", err)
	}
}

// Cases 9 and 10: bad input exits 2 with one line naming want and creates
// nothing (a new root and results file stay absent).
func badInput(want string, args ...string) func(*fcase) {
	return func(c *fcase) {
		s := study{Stores: 20, Objects: 20, TextLen: 50, Runs: 2, Hold: 5}
		res := c.run(append(s.args(c.root, c.out), args...)...)
		c.message(res, 2, true, want)
		c.expect(!exists(c.root) && !exists(c.out), "nothing created")
	}
}

// Case 9: --out names a directory.
func outIsDir(c *fcase) {
	if err := os.Mkdir(c.out, 0o755); err != nil {
		c.fatal("%v", err)
	}
	res := c.run(small.args(c.root, c.out)...)
	c.message(res, 2, true, "--out", "directory")
	c.expect(!exists(c.root), "nothing created")
}

// SIGKILL of manydb while a worker runs phase: the same command resumes
// and completes the study.
func killManydb(phase string) func(*fcase) {
	return func(c *fcase) {
		p := c.start(small.args(c.root, c.out)...)
		c.caught(p.waitWorker(phase) != 0, "the "+phase+" phase ended before it was seen")
		p.kill(syscall.SIGKILL)
		p.wait()
		c.snapshot()
		res := c.run(small.args(c.root, c.out)...)
		c.message(res, 0, false, "resum")
		c.completes(res)
		c.audit()
	}
}

// SIGKILL of the worker of phase: a failed record naming the signal, the
// study goes on; the same command completes it.
func killWorker(phase string) func(*fcase) {
	return func(c *fcase) {
		p := c.start(small.args(c.root, c.out)...)
		w := p.waitWorker(phase)
		c.caught(w != 0, "the "+phase+" phase ended before it was seen")
		syscall.Kill(w, syscall.SIGKILL)
		res := p.wait()
		c.message(res, 3, false, phase, "killed")
		named := false
		for _, r := range c.snapshot() {
			named = named || string(r.Phase) == phase && r.Status == results.StatusFailed && strings.Contains(r.Error, "killed")
		}
		c.expect(named, "the failed %s record names the signal", phase)
		c.completes(c.run(small.args(c.root, c.out)...))
		c.audit()
	}
}

// SIGSTOP of the worker of an open run, never continued: the watchdog
// (--stall-limit 2s, to be quick) kills it and records a failed open
// record naming the stall, the study goes on and exits 3; the same
// command without the 2 s limit completes it (a loaded machine can keep a
// worker silent for 2 s). A stopped worker's samples are never recorded ok.
func stoppedWorker(c *fcase) {
	s := small
	s.Extra = []string{"--stall-limit", "2s"}
	p := c.start(s.args(c.root, c.out)...)
	w := p.waitWorker("open")
	c.caught(w != 0, "the open phase ended before it was seen")
	syscall.Kill(w, syscall.SIGSTOP)
	res := p.wait()
	c.message(res, 3, false, "open", "no progress", "stopped")
	named := false
	for _, r := range c.snapshot() {
		named = named || r.Phase == job.PhaseOpen && r.Status == results.StatusFailed && strings.Contains(r.Error, "no progress")
	}
	c.expect(named, "the failed open record names the stall")
	c.completes(c.run(small.args(c.root, c.out)...))
	c.audit()
}

// SIGINT (Ctrl-C) or SIGHUP (the terminal closed) of manydb during an
// open run: it stops, saying that the same command resumes, and that
// command completes the study.
func interrupt(c *fcase) { stopWith(c, syscall.SIGINT) }

func hangUp(c *fcase) { stopWith(c, syscall.SIGHUP) }

func stopWith(c *fcase, sig syscall.Signal) {
	p := c.start(small.args(c.root, c.out)...)
	c.caught(p.waitWorker("open") != 0, "the open phase ended before it was seen")
	p.kill(sig)
	res := p.wait()
	c.message(res, anyCode, false, "same command")
	c.snapshot()
	c.completes(c.run(small.args(c.root, c.out)...))
	c.audit()
}

// A read-only data root (a tmpfs mounted read-only as root, a folder
// without write permission otherwise): exit 2 with one line, nothing
// written; writable again, the same command completes.
func readOnlyRoot(c *fcase) {
	s := study{Stores: 20, Objects: 20, TextLen: 50, Runs: 2, Hold: 5}
	readOnly, writable := func() { c.remount(c.root, "ro") }, func() { c.remount(c.root, "rw") }
	if os.Geteuid() == 0 {
		c.mount(c.root, "16m")
	} else {
		if err := os.Mkdir(c.root, 0o755); err != nil {
			c.fatal("%v", err)
		}
		readOnly = func() { os.Chmod(c.root, 0o555) }
		writable = func() { os.Chmod(c.root, 0o755) }
	}
	readOnly()
	res := c.run(s.args(c.root, c.out)...)
	c.message(res, 2, true, "read-only|not writable")
	c.expect(!exists(c.out), "no results file created")
	writable()
	c.completes(c.run(s.args(c.root, c.out)...))
	c.audit()
}

// Too few file descriptors for the hold phase (ulimit -n 40, --hold 100):
// a failed hold record naming the error; with the usual limit the same
// command completes.
func fewFiles(c *fcase) {
	args := small.args(c.root, c.out)
	limited := append([]string{"-c", `ulimit -n 40 && exec "$0" "$@"`, filepath.Join(binDir, "manydb")}, args...)
	res := c.startCmd("sh", limited...).wait()
	c.message(res, 3, false, "hold", "too many open files")
	named := false
	for _, r := range c.snapshot() {
		named = named || r.Phase == job.PhaseHold && r.Status == results.StatusFailed && strings.Contains(r.Error, "too many open files")
	}
	c.expect(named, "the failed hold record names the error")
	c.completes(c.run(args...))
	c.audit()
}

// A variant whose engine library is not built in (worker-objectbox without
// the objectbox tag): exit 2 with one line saying how to enable it,
// nothing created.
func missingLibrary(c *fcase) {
	s := study{Engines: "obx", Stores: 20, Objects: 20, TextLen: 50, Runs: 2, Hold: 5}
	res := c.run(s.args(c.root, c.out)...)
	c.message(res, 2, true, "obx", "make build")
	c.expect(!exists(c.root) && !exists(c.out), "nothing created")
}
