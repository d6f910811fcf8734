// Package advise answers a team's scenario (how many agents, how much
// memory, a turn's p99 target, the traffic, embeddings) from manydb's
// records: every variant that qualifies, ranked, with the pool of open
// stores to keep, its p99, memory, disk and processes; every variant that
// does not, with the reason; and what the records do not cover, with the
// command that would measure it. Each number names the figure of the
// records it comes from (manydb tables' figure names) and the files.
//
// Gathering, computing and writing are apart, each reading only what
// the step before made: Collect gathers each variant's evidence from the
// records (evidence.go); Advise computes the answer from the evidence
// (advise.go, with pool.go, allopen.go, layouts.go, rank.go and gaps.go);
// the answer's types are the model (model.go); and the writers only read
// an answer: its tables and sentences (grids.go), the text, Markdown and
// JSON (write.go) and the report's lead (lead.go). What does not qualify
// and what the records do not cover are values of the answer (Refused,
// Gaps), never errors. The figures are named by report's FigureName
// constants.
package advise

import (
	"cmp"
	"errors"
	"fmt"
	"manydb/internal/job"
	"manydb/internal/results"
	"time"
)

// Scenario is what a team plans to run.
type Scenario struct {
	Agents int `json:"agents"` // stores, one per agent
	Notes  int `json:"notes"`  // notes per agent
	// MemoryBytes is the memory the stores' process(es) may use on one
	// machine; 0: no limit given.
	MemoryBytes int64 `json:"memory_bytes"`
	// Container says MemoryBytes is a container's limit, which is charged
	// the page cache the stores' files bring in as well as the process'
	// own memory; else it bounds the processes' resident memory.
	Container bool          `json:"container"`
	P99       time.Duration `json:"p99_ns"` // a turn's latency target at the 99th percentile
	// ActiveShare is the share of agents active in an hour (0–1), and
	// TurnsPerActive the turns an active agent makes in that hour: the
	// request rate is Agents × ActiveShare × TurnsPerActive / 3,600 s
	// unless Rate is given.
	ActiveShare    float64 `json:"active_share"`
	TurnsPerActive float64 `json:"turns_per_active"`
	Rate           float64 `json:"rate"`       // requests per second; 0: from ActiveShare
	Dims           int     `json:"dims"`       // values per note's embedding; 0: no embeddings
	DiskBytes      int64   `json:"disk_bytes"` // disk for the stores; 0: no limit given
	// MaxProcs is the most processes per machine; 0: as many as the
	// per-process limits need.
	MaxProcs int `json:"max_procs"`
	// OpenFiles is a process' open-file limit to plan with; 0: the limit
	// the records' holds recorded (their machine's).
	OpenFiles int `json:"open_files"`
}

// Default is the scenario advise answers when given nothing: the
// record's store count and size, a 20 ms p99, a tenth of the agents
// active in an hour with 20 turns each.
func Default() Scenario {
	return Scenario{Agents: 10_000, Notes: 1_000, Container: true, P99: 20 * time.Millisecond,
		ActiveShare: 0.1, TurnsPerActive: 20}
}

// ErrScenario marks a scenario advise refuses; the message says which
// value and why.
var ErrScenario = errors.New("advise")

// Validate checks every value of s, and says the first that is out of
// its domain.
func (s Scenario) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrScenario}, a...)...)
	}
	switch {
	case s.Agents < 1 || s.Agents > 1_000_000_000:
		return bad("--agents %d: give 1 to 1,000,000,000 agents", s.Agents)
	case s.Notes < 1:
		return bad("--notes %d: give at least 1 note per agent", s.Notes)
	case s.MemoryBytes < 0:
		return bad("--memory %d: must not be negative", s.MemoryBytes)
	case s.P99 < time.Microsecond || s.P99 > time.Hour:
		return bad("--p99 %v: give a duration from 1µs to 1h, e.g. 20ms", s.P99)
	case !(s.ActiveShare > 0 && s.ActiveShare <= 1):
		return bad("--active %g: give a share of agents above 0 and at most 100 %%, e.g. 10%%", s.ActiveShare)
	case !(s.TurnsPerActive > 0 && s.TurnsPerActive <= 1e6):
		return bad("--turns-per-hour %g: give a number of turns above 0 and at most 1,000,000", s.TurnsPerActive)
	case !(s.Rate >= 0 && s.Rate <= 1e9):
		return bad("--rate %g: give requests per second, 0 (from --active) to 1,000,000,000", s.Rate)
	case s.Dims < 0 || s.Dims > 8192:
		return bad("--dims %d: give 0 (no embeddings) to 8,192", s.Dims)
	case s.DiskBytes < 0:
		return bad("--disk %d: must not be negative", s.DiskBytes)
	case s.MaxProcs < 0:
		return bad("--procs %d: must not be negative (0: as many as needed)", s.MaxProcs)
	case s.OpenFiles != 0 && (s.OpenFiles < 64 || s.OpenFiles > 1<<30):
		return bad("--open-files %d: give a process' open-file limit (ulimit -n), 64 to 1,073,741,824, or 0 for the records' machine's", s.OpenFiles)
	}
	return nil
}

// RequestRate is the scenario's requests per second: Rate, or the turns
// of the agents active in an hour spread over it.
func (s Scenario) RequestRate() float64 {
	if s.Rate > 0 {
		return s.Rate
	}
	return float64(s.Agents) * s.ActiveShare * s.TurnsPerActive / 3600
}

// RecordsAgents is the agents a scenario answered from recs alone fits:
// the stores of their serve studies (the most), else of their other
// studies; 0 when no record counts stores.
func RecordsAgents(recs []results.Record) int {
	served, any := 0, 0
	for _, r := range recs {
		if r.Phase == job.PhaseServe {
			served = max(served, r.Stores)
		}
		any = max(any, r.Stores)
	}
	return cmp.Or(served, any)
}
