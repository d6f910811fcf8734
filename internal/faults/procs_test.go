package faults

import (
	"strings"
	"syscall"

	"manydb/internal/job"
	"manydb/internal/results"
)

// split is the small study with each hold split over two worker
// processes (--procs 2).
func split() study {
	s := small
	s.Extra = []string{"--procs", "2"}
	return s
}

// SIGKILL of one of a split hold's worker processes: the hold fails,
// naming that process and its stores; the other process is stopped and
// nothing of the hold is recorded ok; the same command measures the hold
// again and completes the study.
func killSplitHold(c *fcase) {
	s := split()
	p := c.start(s.args(c.root, c.out)...)
	w := p.waitWorker("hold")
	c.caught(w != 0, "the hold phase ended before it was seen")
	syscall.Kill(w, syscall.SIGKILL)
	res := p.wait()
	c.message(res, 3, false, "hold", "process", "killed")
	c.expect(splitHoldFailed(c.snapshot(), "killed"), "the failed hold record names its process and the signal")
	c.completes(c.run(s.args(c.root, c.out)...))
	c.audit()
}

// SIGSTOP of one of a split hold's worker processes, never continued:
// the watchdog (--stall-limit 2s) kills it, the hold fails naming the
// process and the stall, the other is stopped; the same command without
// the 2 s limit completes the study (on a loaded machine a worker that
// measures its held stores can be silent for 2 s without being stalled).
func stopSplitHold(c *fcase) {
	s := split()
	s.Extra = append(s.Extra, "--stall-limit", "2s")
	p := c.start(s.args(c.root, c.out)...)
	w := p.waitWorker("hold")
	c.caught(w != 0, "the hold phase ended before it was seen")
	syscall.Kill(w, syscall.SIGSTOP)
	res := p.wait()
	c.message(res, 3, false, "hold", "process", "no progress")
	c.expect(splitHoldFailed(c.snapshot(), "no progress"), "the failed hold record names its process and the stall")
	c.completes(c.run(split().args(c.root, c.out)...))
	c.audit()
}

// splitHoldFailed tells whether recs hold a failed hold naming one of its
// two processes and why, and no hold recorded ok.
func splitHoldFailed(recs []results.Record, why string) bool {
	failed := false
	for _, r := range recs {
		if r.Phase != job.PhaseHold {
			continue
		}
		if r.Status == results.StatusOK {
			return false
		}
		failed = failed || strings.Contains(r.Error, "of 2 (stores") && strings.Contains(r.Error, why)
	}
	return failed
}

// splitServe is a serve study whose every pool step is split over two
// worker processes (--procs 2), each step a few seconds long.
func splitServe(root, out string) []string {
	return []string{"serve", "--engines", "sqlite", "--stores", "200", "--workload", "small",
		"--requests", "20000", "--pool", "0,50", "--procs", "2", "--root", root, "--out", out}
}

// SIGKILL of one of a split serve step's two worker processes: the step
// fails, naming that process and the signal; the other process is
// stopped and the step is not recorded ok; the same command serves that
// pool again and completes the study.
func killSplitServe(c *fcase) {
	p := c.start(splitServe(c.root, c.out)...)
	w := p.waitWorker("serve")
	c.caught(w != 0, "the serve step ended before it was seen")
	syscall.Kill(w, syscall.SIGKILL)
	res := p.wait()
	c.message(res, 3, false, "serve", "process", "killed")
	c.expect(splitServeFailed(c.snapshot()), "the failed serve record names its process and the signal, and no step it stopped is ok")
	c.completes(c.run(splitServe(c.root, c.out)...))
	c.audit()
}

// splitServeFailed tells whether recs hold a failed serve step naming one
// of its two processes and the signal, and no ok record of that step.
func splitServeFailed(recs []results.Record) bool {
	failedStep := 0
	for _, r := range recs {
		if r.Phase == job.PhaseServe && r.Status != results.StatusOK &&
			strings.Contains(r.Error, "of 2 (agents") && strings.Contains(r.Error, "killed") {
			failedStep = r.PoolStep
		}
	}
	for _, r := range recs {
		if r.Phase == job.PhaseServe && r.Status == results.StatusOK && r.PoolStep == failedStep {
			return false
		}
	}
	return failedStep > 0
}
