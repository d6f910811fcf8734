package advise

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"manydb/internal/report"
)

var nan = math.NaN()

// A Number is one figure of the answer and where it comes from: a figure
// of the records (its name as manydb tables names it, the level, how many
// values and the files), or the arithmetic over such figures.
type Number struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	From  string  `json:"from"`
	// Sources are the figures of the records it is computed from.
	Sources []Source `json:"sources"`
}

// A Source is one figure of the records a Number uses: the median of
// Values values of figure Figure (manydb tables' name) of a variant,
// setting and layout, in records with Dims values per embedding, at
// Level (a serve figure's pool; -1: every value) in Files; for a figure
// with a value per run (Pooled), its statistic over the samples of those
// runs pooled instead, as the tables give it.
type Source struct {
	Key
	Dims   int      `json:"dims"`
	Figure string   `json:"figure"`
	Level  int      `json:"level"`
	Values int      `json:"values"`
	Median float64  `json:"median"`
	Pooled bool     `json:"pooled,omitempty"`
	Files  []string `json:"files"`
}

// derived is a number computed from parts, whose sources it keeps.
func derived(value float64, unit, from string, parts ...Number) Number {
	n := Number{Value: value, Unit: unit, From: from}
	for _, p := range parts {
		n.Sources = append(n.Sources, p.Sources...)
	}
	return n
}

// MarshalJSON writes n, its value null when it has none.
func (n Number) MarshalJSON() ([]byte, error) {
	type plain Number
	if n.known() {
		return json.Marshal(plain(n))
	}
	return json.Marshal(struct {
		Value   *float64 `json:"value"`
		Unit    string   `json:"unit"`
		From    string   `json:"from"`
		Sources []Source `json:"sources"`
	}{nil, n.Unit, n.From, n.Sources})
}

// known tells whether n has a value.
func (n Number) known() bool { return !math.IsNaN(n.Value) }

// Text writes n in its unit as the tables do ("–" without a value).
func (n Number) Text() string { return report.Natural(n.Value, n.Unit) }

// An Option is a variant that qualifies: the pool of open stores to keep
// and what it costs there.
type Option struct {
	Key
	// Pool is the open stores to keep (a share of the agents, as the
	// records' serve pools were of theirs), PoolShare that share.
	Pool      int     `json:"pool"`
	PoolShare float64 `json:"pool_share"`
	P99       Number  `json:"p99"`
	HitRate   Number  `json:"hit_rate"`
	Served    Number  `json:"requests_per_second"` // what the records' machine served at that pool
	Memory    Number  `json:"memory"`              // the scenario's kind: container charge or resident
	Disk      Number  `json:"disk"`
	Recall    Number  `json:"recall,omitzero"` // with embeddings
	Procs     int     `json:"processes"`
	// Limit names the per-process limit that set Procs ("" when one
	// process holds the pool).
	Limit string `json:"limit,omitempty"`
}

// A Refusal is a variant that does not qualify, and why.
type Refusal struct {
	Key
	Why string `json:"why"`
}

// notServed is why a variant without serve records does not qualify.
const notServed = "no serve figures in the records: its pool, p99 under traffic and memory under traffic are not measured"

// A Gap is what the records do not cover for the scenario, and the
// command that would measure it.
type Gap struct {
	What    string `json:"what"`
	Command string `json:"command"`
}

// Answer is advise's answer to a scenario.
type Answer struct {
	Scenario Scenario  `json:"scenario"`
	Rate     float64   `json:"requests_per_second"`
	Options  []Option  `json:"qualify"`
	Refused  []Refusal `json:"do_not_qualify"`
	Gaps     []Gap     `json:"not_covered"`
	Pools    []PoolRow `json:"pools"`
	AllOpen  []AllOpen `json:"all_open"`
	Layouts  Table     `json:"layouts"`
	PerStore Table     `json:"per_store_table"`
	Ranks    []Rank    `json:"per_store"`
	Files    []string  `json:"files"`
}

// Advise answers s from the evidence: every variant with serve figures
// (a store per agent, or a shared store serve ran) is tried at each pool
// share its serve records measured, and qualifies at the share with the
// lowest p99 that meets every limit of s. The options are ranked by p99,
// then memory.
func Advise(s Scenario, evs []*Evidence, files []string) (Answer, error) {
	if err := s.Validate(); err != nil {
		return Answer{}, err
	}
	a := Answer{Scenario: s, Rate: s.RequestRate(), Files: files}
	var unserved []Key
	for _, e := range evs {
		switch {
		case e.Layout.Shared() && e.ServeStores() == 0:
			continue // in the layouts' table; a shared store under serve is an option
		case s.Dims > 0 && e.Vec == nil:
			a.Refused = append(a.Refused, Refusal{e.Key, fmt.Sprintf("no records with embeddings of %d values", s.Dims)})
			continue
		case len(e.ServeCounts) > 1:
			a.Refused = append(a.Refused, Refusal{e.Key, fmt.Sprintf("serve records of several store counts (%v): a pool's share is of one; give the files of one serve study", e.ServeCounts)})
			continue
		case e.ServeStores() == 0:
			unserved = append(unserved, e.Key)
			a.Refused = append(a.Refused, Refusal{e.Key, notServed})
			continue
		}
		row := tryPools(s, e)
		a.Pools = append(a.Pools, row)
		o, why := row.best()
		if why != "" {
			a.Refused = append(a.Refused, Refusal{e.Key, why})
			continue
		}
		a.Options = append(a.Options, o)
	}
	slices.SortStableFunc(a.Options, func(x, y Option) int {
		return cmp.Or(cmp.Compare(x.P99.Value, y.P99.Value), cmp.Compare(x.Memory.Value, y.Memory.Value))
	})
	a.Gaps = gaps(s, evs, a.Options, unserved)
	a.Layouts, a.PerStore, a.AllOpen = layouts(s, evs), perStore(s, evs), allOpen(s, evs)
	a.Ranks = ranks(s, evs)
	return a, nil
}

// A PoolRow is one variant at every pool share its serve records
// measured, scaled to the scenario's agents: an Option per share, with
// why it does not meet the scenario ("" when it does).
type PoolRow struct {
	Key
	Pools []Option `json:"pools"`
	Whys  []string `json:"whys"`
}

// tryPools is e at each pool share its serve records measured.
func tryPools(s Scenario, e *Evidence) PoolRow {
	row := PoolRow{Key: e.Key}
	for _, pool := range e.Base.Levels("serve-p99") {
		o := at(s, e, pool)
		row.Pools, row.Whys = append(row.Pools, o), append(row.Whys, fails(s, o))
	}
	return row
}

// best is the row's option at the pool share with the lowest p99 that
// meets the scenario, or why no share does.
func (row PoolRow) best() (Option, string) {
	var found *Option
	var whys []string
	for k, o := range row.Pools {
		if row.Whys[k] != "" {
			whys = append(whys, fmt.Sprintf("pool %s: %s", percent(o.PoolShare), row.Whys[k]))
			continue
		}
		if found == nil || o.P99.Value < found.P99.Value {
			found = &row.Pools[k]
		}
	}
	if found == nil {
		return Option{}, strings.Join(whys, "; ")
	}
	return *found, ""
}

// fails says why option o does not meet s ("" when it does).
func fails(s Scenario, o Option) string {
	target := float64(s.P99) / float64(time.Millisecond)
	switch {
	case !o.P99.known():
		return "no p99"
	case o.P99.Value > target:
		return fmt.Sprintf("p99 %s over %s", o.P99.Text(), report.Natural(target, "ms"))
	case s.MemoryBytes > 0 && !o.Memory.known():
		return "memory not in the records"
	case s.DiskBytes > 0 && !o.Disk.known():
		return "disk not in the records"
	case s.MemoryBytes > 0 && o.Memory.Value*1024 > float64(s.MemoryBytes):
		return fmt.Sprintf("memory %s over %s", o.Memory.Text(), report.Natural(float64(s.MemoryBytes)/1024, "KB"))
	case s.DiskBytes > 0 && o.Disk.Value*1024 > float64(s.DiskBytes):
		return fmt.Sprintf("disk %s over %s", o.Disk.Text(), report.Natural(float64(s.DiskBytes)/1024, "KB"))
	case s.MaxProcs > 0 && o.Procs == 0:
		return "processes unknown: " + o.Limit
	case s.MaxProcs > 0 && o.Procs > s.MaxProcs:
		return fmt.Sprintf("needs %d processes (%s), more than %d", o.Procs, o.Limit, s.MaxProcs)
	case o.Served.known() && s.RequestRate() > o.Served.Value:
		return fmt.Sprintf("%s requests/s wanted, the records' machine served %s there: about %d machines like it, each with its share of the agents (not measured)",
			report.Natural(s.RequestRate(), ""), o.Served.Text(), int(math.Ceil(s.RequestRate()/o.Served.Value)))
	}
	return ""
}

// percent writes a share as a percentage: "10 %", "0.5 %".
func percent(share float64) string { return report.Natural(100*share, "") + " %" }
