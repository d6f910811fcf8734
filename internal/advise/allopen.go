package advise

import (
	"fmt"

	"manydb/internal/job"
	"manydb/internal/report"
)

// allOpen is every variant in a store of its own with all of s's agents
// held open: the hold's memory per open store × agents (the processes'
// memory before their stores is not added); with embeddings the vector
// study's hold, and a variant it did not hold is not measured with them.
func allOpen(s Scenario, evs []*Evidence) []AllOpen {
	var out []AllOpen
	for _, e := range evs {
		if e.Layout.Stores() != job.OwnStores || !e.base(report.FigureAnonPerOpenStore, -1).known() {
			continue
		}
		a := AllOpen{Key: e.Key}
		a.Procs, a.Limit = procs(s, e, s.Agents)
		n := float64(s.Agents)
		times := func(name report.FigureName) Number {
			per := e.base(name, -1)
			if s.Dims > 0 {
				per = e.vec(name)
			}
			return derived(per.Value*n, "KB", fmt.Sprintf("%s agents × %s (%s)", thousands(n), per.Text(), per.From), per)
		}
		a.Resident, a.Anonymous, a.Charged = times(report.FigureRSSPerOpenStore), times(report.FigureAnonPerOpenStore), times(report.FigureContainerPerOpenStore)
		a.Why = allOpenFails(s, a)
		if s.Dims > 0 && !a.Anonymous.known() {
			a.Why = notWithEmbeddings(s)
		}
		out = append(out, a)
	}
	return out
}

// notWithEmbeddings says that a variant's records hold none with s's
// embeddings: what it costs with them is not measured.
func notWithEmbeddings(s Scenario) string {
	return fmt.Sprintf("not measured with embeddings of %d values", s.Dims)
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
