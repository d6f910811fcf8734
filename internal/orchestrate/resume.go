package orchestrate

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"manydb/internal/job"
	"manydb/internal/results"
)

// readPrior reads the records already in the results file, if any.
func readPrior(out string) ([]results.Record, error) {
	recs, err := results.ReadFile(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	var syn *results.SyntaxError
	if errors.As(err, &syn) {
		return nil, &InputError{fmt.Sprintf("results file %s: %v; fix or move that line, or choose another --out", out, err)}
	}
	if err != nil {
		return nil, &InputError{fmt.Sprintf("results file %s cannot be read: %v", out, err)}
	}
	return recs, nil
}

// resume finds the last study in prior with the same stores, runs, hold,
// queries, workload and root (engines, settings, cache modes and turns may
// be added), measured by this
// version of manydb, fills s.done with its recorded cells and returns its
// id; "" when there is none to resume.
//
// A resumed study skips every cell (variant, setting, phase, run) that has
// a record and does the rest. Records are appended whole and synced, so a
// study killed at any moment loses at most the cell in progress, and no
// cell is recorded twice.
func (s *study) resume(prior []results.Record) string {
	if s.Fresh {
		return ""
	}
	want := s.config()
	id, version, sweep := "", "", ""
	for _, r := range prior {
		if r.Phase == job.PhaseEnv && r.Config != nil && sameStudy(r.Config, want) {
			id, version = r.Study, r.Env["manydb"]
			if r.Config.Sweep != nil {
				sweep = r.Config.Sweep.ID
			}
		}
	}
	if id == "" {
		return ""
	}
	if version != s.Version {
		// Figures of two versions of manydb are not mixed in one study.
		fmt.Fprintf(s.Log, "%s holds study %s, measured by manydb %s; this is manydb %s, so a new study starts\n", s.Out, id, version, s.Version)
		return ""
	}
	if sweep != "" {
		s.sweepID = sweep
	}
	for _, r := range prior {
		if r.Phase == job.PhaseEnv || r.Phase == job.PhaseEnd {
			continue // not cells
		}
		if r.Study == id {
			s.noteRecorded(r)
		}
	}
	return id
}

func sameStudy(a, b *results.StudyConfig) bool {
	return a.Stores == b.Stores && a.Runs == b.Runs && a.Hold == b.Hold && slices.Equal(a.Holds, b.Holds) && a.Fanout == b.Fanout &&
		sameSweep(a.Sweep, b.Sweep) && a.Workload == b.Workload && a.Root == b.Root &&
		slices.Equal(a.Queries, b.Queries) && sameServe(a.Serve, b.Serve)
}

// sameSweep compares two sweeps' store counts (not their ids: a resumed
// sweep takes the id of the one it resumes).
func sameSweep(a, b *results.SweepConfig) bool {
	if a == nil || b == nil {
		return a == b
	}
	return slices.Equal(a.Stores, b.Stores)
}

func sameServe(a, b *results.ServeConfig) bool {
	if a == nil || b == nil {
		return a == b
	}
	return slices.Equal(a.Pools, b.Pools) && a.Requests == b.Requests && a.Concurrency == b.Concurrency && a.Zipf == b.Zipf && a.Rate == b.Rate &&
		a.PoolTimeS == b.PoolTimeS && a.MemoryMaxBytes == b.MemoryMaxBytes
}
