package faults

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"manydb/internal/job"
	"manydb/internal/orchestrate"
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

// Files of one's own in a root a --keep study left: at the root, in a
// setting's folder, in each layout's variant folder, in a folder among
// the stores, in a store's folder and in the shared store's. Another
// study there removes the kept stores before its create (the engine's
// files only) and its own at its end, leaves each of those files as it
// was, and names those beside the stores on the console.
func foreignFilesInRoot(c *fcase) {
	s := shared(study{Stores: 20, Objects: 20, TextLen: 50, Runs: 1, Hold: 5})
	kept := s
	kept.Extra = append(slices.Clone(s.Extra), "--keep")
	c.completes(c.run(kept.args(c.root, c.out)...))
	perAgent, sharedDir := filepath.Join(c.root, "default", "sqlite"), filepath.Join(c.root, "default", "sqlite-shared")
	mine := []string{filepath.Join(c.root, "notes.txt"), filepath.Join(c.root, "default", "notes.txt"),
		filepath.Join(perAgent, "README"), filepath.Join(perAgent, "mine", "myfile.txt"), filepath.Join(sharedDir, "keep.txt"),
		filepath.Join(job.StoreDir(perAgent, 3, 0), "myfile.txt"), filepath.Join(job.SharedDir(sharedDir), "mine.txt")}
	for _, p := range mine {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			c.fatal("%v", err)
		}
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			c.fatal("%v", err)
		}
	}
	res := c.run(s.args(c.root, filepath.Join(c.dir, "second.jsonl"))...)
	c.message(res, 0, false, "left in "+perAgent+" what manydb did not make there: ", "000003/myfile.txt", "README", "mine")
	intact := true
	for _, p := range mine {
		b, err := os.ReadFile(p)
		intact = intact && err == nil && string(b) == p
	}
	c.expect(intact, "every file of one's own is left as it was")
	c.expect(!exists(job.StoreDir(perAgent, 0, 0)) && !exists(filepath.Join(job.StoreDir(perAgent, 3, 0), "notes.db")) &&
		!exists(filepath.Join(job.SharedDir(sharedDir), "notes.db")) && !exists(filepath.Join(perAgent, orchestrate.ManifestFile)),
		"no store of either study is left (no notes.db beside one's own files)")
}
