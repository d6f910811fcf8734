package faults

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"manydb/internal/job"
	"manydb/internal/orchestrate"
	"manydb/internal/pgserver"
	"manydb/internal/results"
)

// pgStudy is the study of the PostgreSQL cases: both layouts.
var pgStudy = shared(study{Engines: "postgres", Stores: 150, Objects: 20, TextLen: 50, Runs: 2, Hold: 50})

// pgReady skips the case when the server is not installed beside the
// binaries, and opens the case's directory to the server's user (it
// runs as another user under root; a test's temporary directory is
// 0700).
func pgReady(c *fcase) {
	if _, ok := pgserver.Find(binDir); !ok {
		c.skip("PostgreSQL is not installed (make build runs scripts/fetch-postgres.sh)")
	}
	for _, d := range []string{c.dir, filepath.Dir(c.dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			c.fatal("open %s to the server's user: %v", d, err)
		}
	}
}

// serverDir is the directory of the study's server in c's root.
func (c *fcase) serverDir() string { return filepath.Join(c.root, orchestrate.ServerDirName) }

// serverProcesses lists the processes of the server in c's root: the
// postmaster (its command line names its data directory) and its
// backends (their working directory is the data directory).
func (c *fcase) serverProcesses() []int {
	data := filepath.Join(c.serverDir(), "data")
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		cwd, _ := os.Readlink("/proc/" + e.Name() + "/cwd")
		if strings.Contains(string(cmdline), data) || strings.HasPrefix(cwd, data) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// noServerLeft checks that no process of the server is left (given a
// few seconds to end) and that its directory is gone.
func (c *fcase) noServerLeft(when string) {
	var left []int
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if left = c.serverProcesses(); len(left) == 0 || time.Now().After(end) {
			break
		}
	}
	c.expect(len(left) == 0, "no PostgreSQL process left %s (%d found)", when, len(left))
	_, err := os.Stat(c.serverDir())
	c.expect(os.IsNotExist(err), "no server directory left %s", when)
}

// SIGKILL of manydb while a postgres open run's worker runs: the server
// quits with it; the same command starts one server again, makes the
// stores again and completes the study; nothing is left after it.
func pgKillManydb(c *fcase) {
	pgReady(c)
	p := c.start(pgStudy.args(c.root, c.out)...)
	c.caught(p.waitWorker("open") != 0, "the open run ended before it was seen")
	p.kill(syscall.SIGKILL)
	p.wait()
	c.snapshot()
	var left []int
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if left = c.serverProcesses(); len(left) == 0 || time.Now().After(end) {
			break
		}
	}
	c.expect(len(left) == 0, "the server quits with a killed manydb (%d processes left)", len(left))
	res := c.run(pgStudy.args(c.root, c.out)...)
	c.message(res, 0, false, "resum")
	c.expect(strings.Count(res.stderr, "postgres: PostgreSQL") == 1, "the rerun starts one server")
	c.completes(res)
	c.audit()
	c.noServerLeft("after the rerun")
}

// SIGKILL of the PostgreSQL server during an open run: that run fails
// naming PostgreSQL, the phases after it fail saying the server exited,
// none is recorded ok; the same command starts a new server and
// completes the study.
func pgKillServer(c *fcase) {
	pgReady(c)
	p := c.start(pgStudy.args(c.root, c.out)...)
	c.caught(p.waitWorker("open") != 0, "the open run ended before it was seen")
	b, err := os.ReadFile(filepath.Join(c.serverDir(), "data", "postmaster.pid"))
	if err != nil {
		c.fatal("the server's pid: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	syscall.Kill(pid, syscall.SIGKILL)
	res := p.wait()
	c.message(res, 3, false, "failed")
	var failedOpen, exited, okAfter bool
	for _, r := range c.snapshot() {
		switch {
		case r.Phase == job.PhaseOpen && r.Status == results.StatusFailed && strings.Contains(r.Error, "PostgreSQL"):
			failedOpen = true
		case r.Status == results.StatusFailed && strings.Contains(r.Error, "the server exited"):
			exited = true
		}
	}
	okAfter = c.okAfterFailure()
	c.expect(failedOpen, "the open run fails, naming PostgreSQL")
	c.expect(exited, "the phases after it fail: the server exited")
	c.expect(!okAfter, "no phase after the server's death is recorded ok")
	c.completes(c.run(pgStudy.args(c.root, c.out)...))
	c.audit()
	c.noServerLeft("after the rerun")
}

// okAfterFailure tells whether a phase's record of the results file is
// ok after the first failed one of the same layout.
func (c *fcase) okAfterFailure() bool {
	failed := map[bool]bool{}
	for _, r := range c.records() {
		switch {
		case r.Status == results.StatusFailed:
			failed[r.Layout.Shared()] = true
		case r.Status == results.StatusOK && failed[r.Layout.Shared()] && slices.Contains(job.WorkerPhases(), r.Phase):
			return true
		}
	}
	return false
}

// A root too deep for the server's Unix socket: one line, exit 2, nothing
// created.
func pgLongRoot(c *fcase) {
	if _, ok := pgserver.Find(binDir); !ok {
		c.skip("PostgreSQL is not installed (make build runs scripts/fetch-postgres.sh)")
	}
	root := filepath.Join(c.dir, strings.Repeat("r", 100))
	res := c.run(pgStudy.args(root, c.out)...)
	c.message(res, 2, true, "socket", "--root")
	c.expect(!exists(root) && !exists(c.out), "nothing created")
}
