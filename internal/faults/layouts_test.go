package faults

import (
	"strings"
	"syscall"

	"manydb/internal/job"
	"manydb/internal/results"
)

// shared is a study of both layouts: sqlite per agent and shared.
func shared(s study) study {
	s.Extra = append(s.Extra, "--layout", "per-agent,shared")
	return s
}

// isShared matches the records of the shared layout's phase.
func isShared(phase job.Phase) func(results.Record) bool {
	return func(r results.Record) bool { return r.Layout.Shared() && r.Phase == phase }
}

// A study of both layouts killed in the shared store's create: the same
// command makes the shared store again and completes; every open run
// counts each agent's notes, so an agent whose notes were doubled or lost
// fails it.
func killSharedCreate(c *fcase) {
	s := shared(study{Stores: 300, Objects: 20, TextLen: 50, Runs: 1, Hold: 5})
	p := c.start(s.args(c.root, c.out)...)
	c.caught(c.waitRecord(p, func(r results.Record) bool { return r.Phase == job.PhaseDelete }), "the per-agent layout's delete was not seen")
	c.caught(p.waitWorker("create") != 0, "the shared create ended before it was seen")
	p.kill(syscall.SIGKILL)
	p.wait()
	c.snapshot()
	c.completes(c.run(s.args(c.root, c.out)...))
	shared := 0
	for _, r := range c.records() {
		if r.Layout.Shared() && r.Status == results.StatusOK {
			shared++
		}
	}
	c.expect(shared >= 5, "the shared layout's phases recorded ok (%d records)", shared)
	c.audit()
}

// The shared store's disk fills during its create: a failed record, the
// partial store removed; on a bigger disk the same command completes.
func sharedDiskFull(c *fcase) {
	s := study{Stores: 60, Objects: 200, TextLen: 300, Runs: 1, Hold: 5, Extra: []string{"--skip-space-check", "--layout", "shared"}}
	fillDisk(c, s, "a failed record of the shared layout", func(r results.Record) bool { return r.Layout.Shared() })
}

// A shared store left by another study (other workload, killed in its
// open run): the first command run again measures its own agents, never
// the other study's.
func sharedOfAnotherStudy(c *fcase) {
	mine := shared(study{Stores: 50, Objects: 200, TextLen: 300, Runs: 2, Hold: 5})
	other := shared(study{Workload: "small", Stores: 80, Runs: 2, Hold: 5})
	for _, s := range []study{mine, other} {
		p := c.start(s.args(c.root, c.out)...)
		c.caught(c.waitRecord(p, isShared(job.PhaseCreate)), "the shared create record was not seen")
		p.kill(syscall.SIGKILL)
		p.wait()
		c.snapshot()
	}
	res := c.run(mine.args(c.root, c.out)...)
	c.completes(res)
	c.expect(!strings.Contains(res.stderr, "count"), "no open run counts the other study's notes")
	c.audit()
}
