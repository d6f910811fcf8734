package advise

import (
	"fmt"
)

// An AllOpen is a variant with every agent's store held open at once,
// idle (as the hold measured them, not under traffic): the memory that
// takes, resident, anonymous and charged to a container, and the
// processes the per-process limits need.
type AllOpen struct {
	Key
	Resident  Number `json:"resident"`
	Anonymous Number `json:"anonymous"`
	Charged   Number `json:"charged"`
	Procs     int    `json:"processes"`
	Limit     string `json:"limit,omitempty"`
	// Why says what of the scenario it does not meet ("" when it fits).
	Why string `json:"why,omitempty"`
}

// allOpen is every variant in a store of its own with all of s's agents
// held open: the hold's memory per open store × agents (the processes'
// memory before their stores is not added).
func allOpen(s Scenario, evs []*Evidence) []AllOpen {
	var out []AllOpen
	for _, e := range evs {
		if e.Layout.Shared() || !e.base("anon-per-open-store", -1).known() {
			continue
		}
		a := AllOpen{Key: e.Key}
		a.Procs, a.Limit = procs(s, e, s.Agents)
		n := float64(s.Agents)
		times := func(name string) Number {
			per := e.base(name, -1)
			return derived(per.Value*n, "KB", fmt.Sprintf("%s agents × %s (%s)", thousands(n), per.Text(), per.From), per)
		}
		a.Resident, a.Anonymous, a.Charged = times("rss-per-open-store"), times("anon-per-open-store"), times("container-per-open-store")
		a.Why = allOpenFails(s, a)
		out = append(out, a)
	}
	return out
}

// allOpenFails says what of s the variant held all open does not meet.
func allOpenFails(s Scenario, a AllOpen) string {
	mem := a.Resident
	if s.Container && a.Charged.known() { // a server variant: its resident memory (Pss), as charged does
		mem = a.Charged
	}
	switch {
	case s.MemoryBytes > 0 && !mem.known():
		return "memory not in the records"
	case s.MemoryBytes > 0 && mem.Value*1024 > float64(s.MemoryBytes):
		return "memory"
	case s.MaxProcs > 0 && a.Procs > s.MaxProcs:
		return "processes"
	case a.Procs == 0:
		return "unknown: the open-file limit is not in these records (--open-files)"
	}
	return ""
}

// allOpenGrid is the table of allOpen.
func (a Answer) allOpenGrid() grid {
	g := grid{head: []string{"variant", "resident", "anonymous", "charged to a container", "processes (the first limit)", "fits"}}
	for _, x := range a.AllOpen {
		fits := "yes"
		if x.Why != "" {
			fits = "no: " + x.Why
		}
		procs := fmt.Sprint(x.Procs)
		if x.Procs == 0 {
			procs = "?"
		} else if x.Limit != "" {
			procs += " (" + x.Limit + ")"
		}
		g.rows = append(g.rows, []string{x.Name(), x.Resident.Text(), x.Anonymous.Text(), x.Charged.Text(), procs, fits})
	}
	return g
}
