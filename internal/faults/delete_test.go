package faults

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"manydb/internal/job"
	"manydb/internal/results"
)

// deleteStudy is a study with a delete phase in layouts, a turn run
// before it (whose note every export holds).
func deleteStudy(layouts string) study {
	return study{Stores: 200, Objects: 20, TextLen: 50, Runs: 1, Hold: 5,
		Extra: []string{"--turns", "1", "--deletes", "150", "--layout", layouts}}
}

// killInDelete: SIGKILL of manydb in the delete phase of the first cell
// of layouts, in an export (an export file is there) or after a delete
// (three agents exported: the second timed one comes after the first
// delete; no export file is there). The same command makes the stores
// again, replays the turn run, exports and deletes every agent again and
// completes; nothing is left in the root.
func killInDelete(layouts string, inExport bool) func(*fcase) {
	return func(c *fcase) {
		s := deleteStudy(layouts)
		p := c.start(s.args(c.root, c.out)...)
		c.caught(p.waitWorker("delete") != 0, "the delete phase ended before it was seen")
		c.caught(waitExports(p, c.root, inExport), "the delete phase ended before the moment was seen")
		p.kill(syscall.SIGKILL)
		p.wait()
		recs := c.snapshot()
		left := exportFiles(c.root)
		if inExport {
			c.caught(len(left) > 0, "the export ended before the kill")
		}
		c.caught(!hasPhase(recs, job.PhaseDelete), "the delete phase was recorded before the kill")
		c.row.Checks = append(c.row.Checks, fmt.Sprintf("killed with %d export file(s) left", len(left)))
		res := c.run(s.args(c.root, c.out)...)
		c.message(res, 0, false, "cannot be reused (a delete phase ran")
		c.completes(res)
		c.expect(strings.Contains(res.stderr, "turn run 1 (redone"), "turn run 1 replayed on the stores made again")
		files := filesIn(c.root)
		c.expect(len(files) == 0, "nothing but the marker left in the root (%d files)", len(files))
		c.audit()
	}
}

// waitExports waits, while manydb runs, for an export file (inExport) or
// for the third agent exported and then no export file; false when
// manydb ended first.
func waitExports(p *proc, root string, inExport bool) bool {
	seen := map[string]bool{}
	for !p.exited() {
		now := exportFiles(root)
		for _, f := range now {
			seen[f] = true
		}
		if inExport && len(now) > 0 || !inExport && len(seen) >= 3 && len(now) == 0 {
			return true
		}
		time.Sleep(pollEvery)
	}
	return false
}

// exportFiles lists the export files of the delete phases under root.
func exportFiles(root string) []string {
	files, _ := filepath.Glob(filepath.Join(root, "*", "*", "exports", "*.jsonl"))
	return files
}

// hasPhase tells whether recs hold a record of phase.
func hasPhase(recs []results.Record, phase job.Phase) bool {
	for _, r := range recs {
		if r.Phase == phase {
			return true
		}
	}
	return false
}
