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

// The layouts (--layout). A record of the per-agent layout leaves its
// layout empty, as every record made before layouts existed does.
const (
	LayoutPerAgent Layout = "per-agent"
	LayoutShared   Layout = "shared"
)

// Layouts lists the layouts in table order.
func Layouts() []Layout { return []Layout{LayoutPerAgent, LayoutShared} }

// Name is the layout's name on the command line: per-agent for the empty
// layout of a record.
func (l Layout) Name() string {
	if l == "" {
		return string(LayoutPerAgent)
	}
	return string(l)
}

// Shared tells whether l is the shared layout.
func (l Layout) Shared() bool { return l == LayoutShared }

// ParseLayouts reads a --layout list: known layouts, each at most once.
func ParseLayouts(s string) ([]Layout, error) {
	var out []Layout
	for _, name := range strings.Split(s, ",") {
		l := Layout(strings.TrimSpace(name))
		switch {
		case !slices.Contains(Layouts(), l):
			return nil, fmt.Errorf("--layout: unknown layout %q: use %s, comma-separated", name, JoinNames(Layouts(), ", "))
		case slices.Contains(out, l):
			return nil, fmt.Errorf("--layout: %s is listed twice", l)
		}
		out = append(out, l)
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
// deletes: one in DeleteShare, at least one.
func DeleteAgents(n int) int { return max(1, n/DeleteShare) }
