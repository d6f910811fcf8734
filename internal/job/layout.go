package job

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Layout is how a variant keeps its agents' notes: a store per agent, or
// one store for all agents keyed by agent.
type Layout string

// The layouts (--layout). The per-agent layout is the empty value: its
// records leave the layout out, as every record made before layouts
// existed does.
const (
	LayoutPerAgent Layout = ""
	LayoutShared   Layout = "shared"
)

// Layouts lists the layouts in table order.
func Layouts() []Layout { return []Layout{LayoutPerAgent, LayoutShared} }

// Name is the layout's name on the command line and in tables.
func (l Layout) Name() string {
	if l == LayoutPerAgent {
		return "per-agent"
	}
	return string(l)
}

// layoutNames lists the layouts' names.
func layoutNames() []string {
	var out []string
	for _, l := range Layouts() {
		out = append(out, l.Name())
	}
	return out
}

// Shared tells whether l is the shared layout.
func (l Layout) Shared() bool { return l == LayoutShared }

// ParseLayouts reads a --layout list: known layouts, each at most once.
func ParseLayouts(s string) ([]Layout, error) {
	var out []Layout
	for _, name := range strings.Split(s, ",") {
		i := slices.Index(layoutNames(), strings.TrimSpace(name))
		switch {
		case i < 0:
			return nil, fmt.Errorf("--layout: unknown layout %q: use %s, comma-separated", name, strings.Join(layoutNames(), ", "))
		case slices.Contains(out, Layouts()[i]):
			return nil, fmt.Errorf("--layout: %s is listed twice", name)
		}
		out = append(out, Layouts()[i])
	}
	return out, nil
}

// SharedDir is the directory of the one store of the shared layout
// inside a variant's directory (Job.Dir).
func SharedDir(dir string) string { return filepath.Join(dir, "shared") }

// DeleteShare is the share of the agents the delete phase exports and
// deletes (at least one): the others stay, so that each delete meets a
// store of nearly all agents, as an application deleting one agent
// among many does.
const DeleteShare = 10

// DeleteAgents is how many of n agents the delete phase exports and
// deletes by default: one in DeleteShare, at least one.
func DeleteAgents(n int) int { return max(1, n/DeleteShare) }

// DeleteCountOf is how many of stores agents the delete phase exports and
// deletes when asked for deletes (--deletes; 0: DeleteAgents).
func DeleteCountOf(deletes, stores int) int {
	if deletes > 0 {
		return deletes
	}
	return DeleteAgents(stores)
}
