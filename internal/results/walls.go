package results

import (
	"math"
	"slices"
)

// A Wall is one limit that open stores use up: how many open stores of a
// variant it lets this process hold, extrapolated from a hold phase.
type Wall struct {
	Name string // "open files", "memory mappings", "threads", "pthread keys", "memory"
	// PerStore is what one open store takes of it (files, mappings,
	// threads, keys, or KB of anonymous memory), Left what the process had
	// left of it before the hold's first open.
	PerStore, Left float64
	// Stores is Left / PerStore: the open stores it lets the process hold.
	Stores float64
}

// Walls are the limits a hold phase's stores use up, the one that stops
// the first open stores first; a limit an open store takes nothing of is
// left out (it does not stop them). nil for a record made before the
// limits were recorded. Memory is the machine's available memory over
// the anonymous memory per open store (page cache can be reclaimed); the
// others are the worker's own limits (Limits), open files and mappings
// times the processes of a split hold (Procs: each has its own), threads
// not (the user's limit counts them all). Counts of a small
// hold are coarse: one file more or less over 10 stores is 0.1 per store.
func (h *Hold) Walls() []Wall {
	if h == nil || h.Limits == nil || h.Held < 1 {
		return nil
	}
	n, procs := float64(h.Held), float64(max(len(h.Procs), 1))
	var ws []Wall
	add := func(name string, perStore, left float64) {
		if perStore > 0 && left >= 0 {
			ws = append(ws, Wall{Name: name, PerStore: perStore, Left: left, Stores: math.Floor(left / perStore)})
		}
	}
	add("open files", float64(h.FDs-h.FDsBefore)/n, procs*float64(h.Limits.OpenFiles)-float64(h.FDsBefore))
	add("memory mappings", float64(h.Mappings-h.MappingsBefore)/n, procs*float64(h.Limits.Mappings)-float64(h.MappingsBefore))
	add("threads", float64(h.Threads-h.ThreadsBefore)/n, float64(h.Limits.Threads)-float64(h.ThreadsBefore))
	if h.PthreadKeysMax > 0 {
		add("pthread keys", float64(h.PthreadKeysFreeBefore-h.PthreadKeysFree)/n, float64(h.PthreadKeysFreeBefore))
	}
	add("memory", h.AnonKB, float64(h.MemAvailableKB))
	slices.SortStableFunc(ws, func(a, b Wall) int {
		switch {
		case a.Stores < b.Stores:
			return -1
		case a.Stores > b.Stores:
			return 1
		}
		return 0
	})
	return ws
}

// ProcsFor is the fewest worker processes that hold n stores like the
// ones h held, each process keeping its open files, memory mappings and
// pthread keys within headroom (0.9: 90 %) of its own limit, and how
// (the limit that sets that number). Memory and threads, which all
// processes share, are not per-process limits: the study checks them
// apart. 0 when a process cannot hold even one store (the choice says
// which limit).
func (h *Hold) ProcsFor(n int, headroom float64) (int, ProcsChoice) {
	choice := ProcsChoice{Headroom: headroom}
	if h == nil || h.Limits == nil || h.Held < 1 {
		choice.FirstHold = true
		return 1, choice
	}
	k := 1
	for _, l := range h.processLimits() {
		if l.perStore <= 0 {
			continue
		}
		each := math.Floor((headroom*l.most - l.before) / l.perStore)
		if each < 1 {
			choice.Limit, choice.Most, choice.PerStore = l.name, l.most, l.perStore
			return 0, choice
		}
		if need := int(math.Ceil(float64(n) / each)); need > k {
			k = need
			choice.Limit, choice.PerProcess, choice.Most, choice.PerStore = l.name, each, l.most, l.perStore
		}
	}
	return k, choice
}

// processLimit is one limit of a process, what one store takes of it and
// what a process had of it before its first store (a split hold's sums
// shared out per process).
type processLimit struct {
	name                   string
	perStore, most, before float64
}

// processLimits are the limits of one process that h's stores use up.
func (h *Hold) processLimits() []processLimit {
	held, procs := float64(h.Held), float64(max(len(h.Procs), 1))
	limits := []processLimit{
		{"open files", float64(h.FDs-h.FDsBefore) / held, float64(h.Limits.OpenFiles), float64(h.FDsBefore) / procs},
		{"memory mappings", float64(h.Mappings-h.MappingsBefore) / held, float64(h.Limits.Mappings), float64(h.MappingsBefore) / procs},
	}
	if h.PthreadKeysMax > 0 {
		limits = append(limits, processLimit{"pthread keys", float64(h.PthreadKeysFreeBefore-h.PthreadKeysFree) / held,
			float64(h.PthreadKeysMax) / procs, float64(h.PthreadKeysMax-h.PthreadKeysFreeBefore) / procs})
	}
	return limits
}
