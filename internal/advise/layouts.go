package advise

import (
	"fmt"
)

// A Layout is one variant in one layout, for the side-by-side table of a
// store per agent and one store for all: what an agent costs in each.
type Layout struct {
	Key
	// Warm is a warm open, the queries and close at p99; Turn a turn at
	// p99 (open, recent, an append committed, close).
	Warm Number `json:"warm_p99"`
	Turn Number `json:"turn_p99"`
	// Memory is the anonymous memory of the agents active in an hour
	// (ActiveShare × Agents), each as the hold measured an active agent.
	Memory Number `json:"memory_active"`
	Disk   Number `json:"disk"`
	Export Number `json:"export_agent"`
	Delete Number `json:"delete_agent"`
	Freed  Number `json:"delete_freed"`
}

// layouts are the rows of every variant the records hold in the shared
// layout, each beside its store per agent of the same setting.
func layouts(s Scenario, evs []*Evidence) []Layout {
	by := map[Key]*Evidence{}
	for _, e := range evs {
		by[e.Key] = e
	}
	var out []Layout
	for _, e := range evs {
		if !e.Layout.Shared() {
			continue
		}
		per := by[Key{Variant: e.Variant, Setting: e.Setting}]
		if per != nil {
			out = append(out, layoutRow(s, per))
		}
		out = append(out, layoutRow(s, e))
	}
	return out
}

// layoutRow is e's row of the layouts' table.
func layoutRow(s Scenario, e *Evidence) Layout {
	f := func(name string) Number { return e.base(name, -1) }
	active := int(float64(s.Agents) * s.ActiveShare)
	anon, space := f("anon-per-open-store"), f("space-per-store")
	return Layout{Key: e.Key, Warm: f("open-query-close-p99"), Turn: f("turn-p99"),
		Memory: derived(anon.Value*float64(active), "KB", fmt.Sprintf("%s active agents × %s (%s)", thousands(float64(active)), anon.Text(), anon.From), anon),
		Disk:   derived(space.Value*float64(s.Agents), "KB", fmt.Sprintf("%s agents × %s (%s)", thousands(float64(s.Agents)), space.Text(), space.From), space),
		Export: f("export-agent"), Delete: f("delete-agent"), Freed: f("delete-freed")}
}
