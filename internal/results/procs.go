package results

import (
	"errors"
	"fmt"
	"slices"
)

// MergeHolds is the hold of several worker processes (--procs), from each
// one's hold of its share of the stores, in store order: what they held
// together. The processes opened their shares one after another, each
// keeping its stores open while the next opened its own, so the n-th
// open samples, the ladder's samples and the record's recall follow one
// another in that order (sample i is the open made with i stores open in
// all), and each process' memory grew only by its own stores between its
// two snapshots. Counts (held, threads, files, goroutines, mappings,
// pthread keys) and memory before and after are sums over the processes;
// RssKB and AnonKB are the growth of all of them per store held, their
// start-up left out (PssBeforeKB gives it per process). Procs keeps each
// process' own hold, its samples (open_ms, ladder) in the merged lists
// only. The container is
// one cgroup for all, and the server one for all: their figures are
// read before the first process opened its first store and after the
// last opened its last, so they include the later processes' start-up.
func MergeHolds(parts []Hold) (*Hold, error) {
	if len(parts) < 2 {
		return nil, fmt.Errorf("merge holds: %d processes; a split hold has at least 2", len(parts))
	}
	first, last := parts[0], parts[len(parts)-1]
	h := &Hold{Limits: first.Limits, MemAvailableKB: first.MemAvailableKB}
	var rss, anon float64
	for _, p := range parts {
		h.Held += p.Held
		rss, anon = rss+p.RssKB*float64(p.Held), anon+p.AnonKB*float64(p.Held)
		h.RssBeforeKB, h.RssAfterKB = h.RssBeforeKB+p.RssBeforeKB, h.RssAfterKB+p.RssAfterKB
		h.AnonBeforeKB, h.AnonAfterKB = h.AnonBeforeKB+p.AnonBeforeKB, h.AnonAfterKB+p.AnonAfterKB
		h.ThreadsBefore, h.Threads = h.ThreadsBefore+p.ThreadsBefore, h.Threads+p.Threads
		h.FDsBefore, h.FDs = h.FDsBefore+p.FDsBefore, h.FDs+p.FDs
		h.GoroutinesBefore, h.Goroutines = h.GoroutinesBefore+p.GoroutinesBefore, h.Goroutines+p.Goroutines
		h.MappingsBefore, h.Mappings = h.MappingsBefore+p.MappingsBefore, h.Mappings+p.Mappings
		h.PthreadKeysFreeBefore, h.PthreadKeysFree = h.PthreadKeysFreeBefore+p.PthreadKeysFreeBefore, h.PthreadKeysFree+p.PthreadKeysFree
		h.PthreadKeysMax += p.PthreadKeysMax
		h.PssBeforeKB += p.PssBeforeKB
		h.EngineS += p.EngineS
		h.OpenMs = append(h.OpenMs, p.OpenMs...)
	}
	h.RssKB, h.AnonKB = rss/float64(h.Held), anon/float64(h.Held)
	if first.Container != nil && last.Container != nil {
		c := *first.Container
		c.BytesAfter, c.FileAfter, c.AnonAfter = last.Container.BytesAfter, last.Container.FileAfter, last.Container.AnonAfter
		h.Container = &c
	}
	if first.Server != nil && last.Server != nil {
		s := *first.Server
		s.Processes, s.PssAfterKB, s.AnonAfterKB = last.Server.Processes, last.Server.PssAfterKB, last.Server.AnonAfterKB
		h.Server = &s
	}
	var err error
	if h.Ladder, err = mergeLadders(parts); err != nil {
		return nil, err
	}
	// Each process' own figures, its samples kept in the lists above only.
	h.Procs = slices.Clone(parts)
	for k := range h.Procs {
		h.Procs[k].OpenMs, h.Procs[k].Ladder = nil, nil
	}
	return h, nil
}

// mergeLadders joins the processes' knn ladders step by step: each step's
// samples of every process, in store order.
func mergeLadders(parts []Hold) ([]LadderStep, error) {
	steps := parts[0].Ladder
	if len(steps) == 0 {
		return nil, nil
	}
	merged := make([]LadderStep, len(steps))
	for i, s := range steps {
		merged[i].Asked = s.Asked
		for k, p := range parts {
			if len(p.Ladder) != len(steps) || p.Ladder[i].Asked != s.Asked {
				return nil, fmt.Errorf("merge holds: process %d asked another ladder than process 0", k)
			}
			ps := p.Ladder[i]
			merged[i].Ms = append(merged[i].Ms, ps.Ms...)
			merged[i].Recall = append(merged[i].Recall, ps.Recall...)
			merged[i].Returned = append(merged[i].Returned, ps.Returned...)
		}
	}
	return merged, nil
}

// checkProcs refuses a split hold whose processes' holds do not add up to
// it, or one of a single process.
func checkProcs(h *Hold) error {
	if len(h.Procs) == 0 {
		return nil
	}
	if len(h.Procs) < 2 {
		return errors.New("hold.procs holds 1 process: a hold in one process has none")
	}
	held := 0
	for k, p := range h.Procs {
		if len(p.Procs) > 0 {
			return fmt.Errorf("hold.procs[%d] is itself split", k)
		}
		if p.Held < 1 {
			return fmt.Errorf("hold.procs[%d].held is %d: each process holds at least one store", k, p.Held)
		}
		held += p.Held
	}
	if held != h.Held {
		return fmt.Errorf("hold.procs hold %d stores in all, the hold %d", held, h.Held)
	}
	return nil
}
