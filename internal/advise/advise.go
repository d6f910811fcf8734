package advise

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"manydb/internal/job"
	"manydb/internal/report"
	"manydb/internal/results"
)

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
		case e.Layout.Stores() == job.OneStore && e.ServeStores() == 0:
			continue // in the layouts' table; a shared store under serve is an option
		case s.Dims > 0 && e.Vec == nil:
			a.Refused = append(a.Refused, Refusal{e.Key, notWithEmbeddings(s)})
			continue
		case len(e.ServeCounts) > 1:
			a.Refused = append(a.Refused, Refusal{e.Key, severalCounts(e.ServeCounts)})
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
	rankTies(a.Options)
	a.Gaps = gaps(s, evs, a.Options, unserved)
	a.Layouts, a.PerStore, a.AllOpen = layouts(s, evs), perStore(s, evs), allOpen(s, evs)
	a.Ranks = ranks(s, evs)
	return a, nil
}

// FromRecords answers s from recs, read from files: Advise over their
// evidence, naming the machines the records ran on, with a layouts table
// of the paired records only (pairedRecords).
func FromRecords(s Scenario, recs []results.Record, files []string) (Answer, error) {
	a, err := Advise(s, Collect(recs, s.Dims), files)
	if err != nil {
		return Answer{}, err
	}
	a.Layouts = layouts(s, Collect(pairedRecords(recs), s.Dims))
	a.Machines = report.MachineTexts(recs)
	return a, nil
}

// tryPools is e at each pool share its serve records measured.
func tryPools(s Scenario, e *Evidence) PoolRow {
	row := PoolRow{Key: e.Key}
	for _, pool := range e.Base.Levels(string(report.FigureServeP99)) {
		o, why := plan(s, e, pool)
		row.Pools, row.Whys = append(row.Pools, o), append(row.Whys, why)
	}
	return row
}

// plan is e at serve's pool of level stores on as many machines like the
// records' as s's requests need (one when it served them there): each
// with its share of the agents and requests, an option of that share;
// and why it does not meet s ("" when it does).
func plan(s Scenario, e *Evidence, level int) (Option, string) {
	o := at(s, e, level)
	if !o.Served.known() || s.RequestRate() <= o.Served.Value {
		return o, fails(s, o)
	}
	machines := int(math.Ceil(s.RequestRate() / o.Served.Value))
	per := s
	per.Agents = (s.Agents + machines - 1) / machines
	per.Rate = s.RequestRate() / float64(machines)
	o = at(per, e, level)
	o.Machines = machines
	return o, fails(per, o)
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
		return fmt.Sprintf("p99 %s (at %s) over %s", o.P99.Text(), o.Load.Text(), report.Natural(target, "ms"))
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
	}
	return ""
}

// severalCounts is why a variant served at several store counts is not
// an option: a pool is a share of one count's stores.
func severalCounts(counts []int) string {
	texts := make([]string, len(counts))
	for i, n := range counts {
		texts[i] = thousands(float64(n))
	}
	return "serve measured it with " + strings.Join(texts, " and with ") + " stores, and a pool is a share of one of them: give advise the files of one serve study"
}
