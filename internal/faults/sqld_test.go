package faults

import (
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"manydb/internal/job"
	"manydb/internal/orchestrate"
	"manydb/internal/results"
	"manydb/internal/sqldserver"
)

// sqldStudy is the study of the sqld case: a namespace per agent, open
// runs long enough (a request per open) to be caught.
var sqldStudy = study{Engines: "sqld", Stores: 200, Objects: 20, TextLen: 50, Runs: 2, Hold: 20}

// sqldDir is the directory of the study's sqld server in c's root.
func (c *fcase) sqldDir() string { return filepath.Join(c.root, orchestrate.SqldDirName) }

// sqldProcesses lists the sqld processes serving c's root: the program
// sqld whose command line names the server's directory (a worker's names
// it too, as the server it is given).
func (c *fcase) sqldProcesses() []int {
	return processesWhere(func(prog, cmdline, _ string) bool {
		return filepath.Base(prog) == "sqld" && strings.Contains(cmdline, c.sqldDir())
	})
}

// SIGKILL of the sqld server during an open run: that run and the phases
// after it fail saying the server exited, none is recorded ok, manydb
// exits 3; the same command starts a new server and completes the
// study, and no server or server directory is left after it.
func sqldKillServer(c *fcase) {
	if _, ok := sqldserver.Find(binDir); !ok {
		c.skip("sqld is not installed (make build runs scripts/fetch-sqld.sh)")
	}
	p := c.start(sqldStudy.args(c.root, c.out)...)
	c.caught(p.waitWorker("open") != 0, "the open run ended before it was seen")
	pids := c.sqldProcesses()
	c.caught(len(pids) == 1, "no sqld process to kill")
	syscall.Kill(pids[0], syscall.SIGKILL)
	res := p.wait()
	c.message(res, 3, false, "failed")
	exited := false
	for _, r := range c.snapshot() {
		exited = exited || r.Status == results.StatusFailed && slices.Contains(job.WorkerPhases(), r.Phase) && strings.Contains(r.Error, "the server exited")
	}
	c.expect(exited, "the phases after the kill fail: the server exited")
	c.expect(!c.okAfterFailure(), "no phase after the server's death is recorded ok")
	c.completes(c.run(sqldStudy.args(c.root, c.out)...))
	c.audit()
	c.noneLeft("sqld", c.sqldProcesses, c.sqldDir(), "after the rerun")
}
