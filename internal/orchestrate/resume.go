package orchestrate

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"manydb/internal/datasource"
	"manydb/internal/job"
	"manydb/internal/results"
)

// readPrior reads the records already in the results file, if any; a
// last line cut by a crash is left out (the writer cuts it off).
func readPrior(out string) ([]results.Record, error) {
	recs, err := results.ReadFile(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case errors.Is(err, results.ErrCutLine):
		return recs, nil
	}
	var syn *results.SyntaxError
	if errors.As(err, &syn) {
		return nil, &job.InputError{Msg: fmt.Sprintf("results file %s: %v; fix or move that line, or choose another --out", out, err)}
	}
	if err != nil {
		return nil, &job.InputError{Msg: fmt.Sprintf("results file %s cannot be read: %v", out, err)}
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
		s.noteUnfinished(prior, want)
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

// noteUnfinished says, when prior's last study has no end record and
// another configuration than want, that a new study starts and leaves it
// unfinished, and how the two differ.
func (s *study) noteUnfinished(prior []results.Record, want *results.StudyConfig) {
	var last *results.Record
	ended := map[string]bool{}
	for i, r := range prior {
		switch {
		case r.Phase == job.PhaseEnv && r.Config != nil:
			last = &prior[i]
		case r.Phase == job.PhaseEnd:
			ended[r.Study] = true
		}
	}
	if last == nil || ended[last.Study] {
		return
	}
	fmt.Fprintf(s.Log, "%s holds study %s, unfinished, of another configuration (%s): a new study starts, and %s stays unfinished until its own command runs again\n",
		s.Out, last.Study, configDiff(last.Config, want), last.Study)
}

// configDiff names what differs between the configurations a (an earlier
// study's) and b (this one's): "stores 100, now 50; dims 384, now 0".
func configDiff(a, b *results.StudyConfig) string {
	var d []string
	add := func(what string, x, y any) {
		if fmt.Sprint(x) != fmt.Sprint(y) {
			d = append(d, fmt.Sprintf("%s %v, now %v", what, x, y))
		}
	}
	add("stores", a.Stores, b.Stores)
	add("runs", a.Runs, b.Runs)
	add("hold", a.Hold, b.Hold)
	add("hold counts", a.Holds, b.Holds)
	add("fanout", a.Fanout, b.Fanout)
	add("workload", a.Workload.Name, b.Workload.Name)
	add("data", datasource.Name(a.Workload.Data), datasource.Name(b.Workload.Data))
	add("objects", a.Workload.Objects, b.Workload.Objects)
	add("text length", a.Workload.TextLen, b.Workload.TextLen)
	add("dims", a.Workload.Dims, b.Workload.Dims)
	add("queries", a.Queries, b.Queries)
	add("deletes", a.Deletes, b.Deletes)
	add("sqld's namespaces loaded", a.SqldMaxActive, b.SqldMaxActive)
	add("root", a.Root, b.Root)
	if !sameServe(a.Serve, b.Serve) {
		d = append(d, "serve's traffic")
	}
	if !sameSweep(a.Sweep, b.Sweep) {
		d = append(d, "the sweep's store counts")
	}
	if !sameAgentSweep(a.AgentSweep, b.AgentSweep) || a.NoDelete != b.NoDelete {
		d = append(d, "the agent sweep")
	}
	if len(d) == 0 {
		return "its configuration"
	}
	return strings.Join(d, "; ")
}

func sameStudy(a, b *results.StudyConfig) bool {
	return a.Stores == b.Stores && a.Runs == b.Runs && a.Hold == b.Hold && slices.Equal(a.Holds, b.Holds) && a.Fanout == b.Fanout &&
		sameSweep(a.Sweep, b.Sweep) && a.Workload == b.Workload && a.Root == b.Root &&
		slices.Equal(a.Queries, b.Queries) && a.Deletes == b.Deletes && a.SqldMaxActive == b.SqldMaxActive && sameServe(a.Serve, b.Serve) &&
		sameAgentSweep(a.AgentSweep, b.AgentSweep) && a.NoDelete == b.NoDelete
}

// sameAgentSweep compares two agent sweeps: their ids, totals and counts.
func sameAgentSweep(a, b *results.AgentSweepConfig) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ID == b.ID && a.Total == b.Total && slices.Equal(a.Agents, b.Agents)
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
	return slices.Equal(a.Pools, b.Pools) && a.Requests == b.Requests && a.Concurrency == b.Concurrency && a.Zipf == b.Zipf && a.Rate == b.Rate && slices.Equal(a.Rates, b.Rates) &&
		a.PoolTimeS == b.PoolTimeS && a.MemoryMaxBytes == b.MemoryMaxBytes
}
