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
// others are the worker's own limits (Limits). Counts of a small
// hold are coarse: one file more or less over 10 stores is 0.1 per store.
func (h *Hold) Walls() []Wall {
	if h == nil || h.Limits == nil || h.Held < 1 {
		return nil
	}
	n := float64(h.Held)
	var ws []Wall
	add := func(name string, perStore, left float64) {
		if perStore > 0 && left >= 0 {
			ws = append(ws, Wall{Name: name, PerStore: perStore, Left: left, Stores: math.Floor(left / perStore)})
		}
	}
	add("open files", float64(h.FDs-h.FDsBefore)/n, float64(h.Limits.OpenFiles)-float64(h.FDsBefore))
	add("memory mappings", float64(h.Mappings-h.MappingsBefore)/n, float64(h.Limits.Mappings)-float64(h.MappingsBefore))
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
