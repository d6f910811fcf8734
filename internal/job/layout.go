package job

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Layout is how a variant keeps its agents' notes: a store per agent, or
// one store for all agents keyed by agent. Its value is what records, the
// worker's command line and names hold; everything else a layout is and
// does is its entry in layoutSpecs, which the rest of manydb asks through
// Layout's methods and the functions below. Adding a layout is one entry
// there, its reasons in the engine catalog (engine.Family.LayoutGaps) and
// its engine adapters.
type Layout string

// The layouts (--layout). The per-agent layout is the empty value: its
// records leave the layout out, as every record made before layouts
// existed does.
const (
	LayoutPerAgent Layout = ""
	LayoutShared   Layout = "shared"
)

// Stores is where a layout keeps its agents' notes, which decides the
// engine calls a worker makes.
type Stores int

const (
	// OwnStores is a store per agent, each in its own directory
	// (StoreDir), opened by engine.Variant's Open.
	OwnStores Stores = iota
	// OneStore is one store for every agent, keyed by agent, in SharedDir:
	// engine.SharedVariant's store, which a worker opens once per phase.
	OneStore
)

// layoutSpec is one layout: its names and what it does.
type layoutSpec struct {
	layout Layout // its value
	name   string // on the command line and in tables
	phrase string // in prose: "sqlite_capi per agent", "sqlite_capi shared"
	usage  string // what it is, in --layout's help
	stores Stores
	// deletes: a study with this layout ends every layout's phases with
	// the delete phase, which exports and deletes agents (removes them
	// from the stores).
	deletes bool
	// noSplit says why --procs cannot split its stores over worker
	// processes; "" when it can.
	noSplit string
	// underWAL says why the wal setting does not apply to it under the
	// setting named, or nil when it does.
	underWAL func(setting string) string
}

// layoutSpecs lists the layouts in table order.
func layoutSpecs() []layoutSpec {
	return []layoutSpec{
		{layout: LayoutPerAgent, name: "per-agent", phrase: "per agent", usage: "a store each", stores: OwnStores},
		{layout: LayoutShared, name: "shared", phrase: "shared", usage: "one store for all, keyed by agent", stores: OneStore, deletes: true,
			noSplit: "every process would open the one shared store",
			underWAL: func(setting string) string {
				return "the shared store is in WAL mode under every setting: under " + setting + " it is the shared store of the setting without wal"
			}},
	}
}

// spec returns l's entry; an unknown layout's is its value alone, which
// CheckLayout refuses.
func (l Layout) spec() layoutSpec {
	specs := layoutSpecs()
	if i := slices.IndexFunc(specs, func(s layoutSpec) bool { return s.layout == l }); i >= 0 {
		return specs[i]
	}
	return layoutSpec{layout: l, name: string(l), phrase: string(l)}
}

// Layouts lists the layouts in table order.
func Layouts() []Layout {
	var out []Layout
	for _, s := range layoutSpecs() {
		out = append(out, s.layout)
	}
	return out
}

// DefaultLayouts are a study's layouts when --layout is not given: a
// store per agent.
func DefaultLayouts() []Layout { return []Layout{LayoutPerAgent} }

// Name is the layout's name on the command line and in tables.
func (l Layout) Name() string { return l.spec().name }

// Phrase is how prose names the layout after a variant: "per agent",
// "shared".
func (l Layout) Phrase() string { return l.spec().phrase }

// Label is how records, the worker's command line and the names of a
// column, a directory or a database mark the layout: its value, empty for
// a store per agent (nothing marked, as before layouts).
func (l Layout) Label() string { return string(l) }

// Mark returns name marked with the layout after sep ("sqlite shared"
// with sep " "), or name itself for a layout without a label.
func (l Layout) Mark(name, sep string) string {
	if l.Label() == "" {
		return name
	}
	return name + sep + l.Label()
}

// Stores says where the layout keeps its agents' notes.
func (l Layout) Stores() Stores { return l.spec().stores }

// Shared tells whether the layout keeps every agent's notes in one
// store (Stores is OneStore). The code asks Stores; tests that pick a
// layout's records ask this.
func (l Layout) Shared() bool { return l.Stores() == OneStore }

// StoreDir returns the directory of agent i's notes in a variant's
// directory dir (Job.Dir) with fanout: its own store's (the package's
// StoreDir), or the one store's (SharedDir).
func (l Layout) StoreDir(dir string, i, fanout int) string {
	if l.Stores() == OneStore {
		return SharedDir(dir)
	}
	return StoreDir(dir, i, fanout)
}

// SharedDir is the directory of the one store of a layout that keeps
// every agent's notes in one (OneStore) inside a variant's directory
// (Job.Dir).
func SharedDir(dir string) string { return filepath.Join(dir, "shared") }

// ExportsDir is the directory in a variant's directory (Job.Dir) where
// the delete phase writes the agents' exports before it deletes them.
func ExportsDir(dir string) string { return filepath.Join(dir, "exports") }

// NotUnderWAL says why the wal setting, named setting, does not apply to
// the layout, or "".
func (l Layout) NotUnderWAL(setting string) string {
	if f := l.spec().underWAL; f != nil {
		return f(setting)
	}
	return ""
}

// CheckLayout refuses an unknown layout l, named flag in the message
// ("--layout" on a worker's command line, "layout" in a record).
func CheckLayout(flag string, l Layout) error {
	if slices.Contains(Layouts(), l) {
		return nil
	}
	var labels []string
	for _, k := range Layouts() {
		if k.Label() != "" {
			labels = append(labels, k.Label())
		}
	}
	return fmt.Errorf("%s %q: use %s, or leave it out for a store per agent", flag, l, strings.Join(labels, ", "))
}

// LayoutNames lists the names of layouts.
func LayoutNames(layouts []Layout) []string {
	var out []string
	for _, l := range layouts {
		out = append(out, l.Name())
	}
	return out
}

// JoinLayouts is a --layout list of layouts.
func JoinLayouts(layouts []Layout) string { return strings.Join(LayoutNames(layouts), ",") }

// LayoutUsage is the help of --layout.
func LayoutUsage() string {
	var each []string
	for _, s := range layoutSpecs() {
		each = append(each, s.name+" ("+s.usage+")")
	}
	return "where agents' notes go, comma-separated, each its own columns: " + strings.Join(each, " and ")
}

// ParseLayouts reads a --layout list: known layouts, each at most once.
func ParseLayouts(s string) ([]Layout, error) {
	names := LayoutNames(Layouts())
	var out []Layout
	for _, name := range strings.Split(s, ",") {
		i := slices.Index(names, strings.TrimSpace(name))
		switch {
		case i < 0:
			return nil, fmt.Errorf("--layout: unknown layout %q: use %s, comma-separated", name, strings.Join(names, ", "))
		case slices.Contains(out, Layouts()[i]):
			return nil, fmt.Errorf("--layout: %s is listed twice", name)
		}
		out = append(out, Layouts()[i])
	}
	return out, nil
}

// RecordedLayouts names layouts as a study's record does: nothing for
// the default alone, as every record made before layouts.
func RecordedLayouts(layouts []Layout) []string {
	if slices.Equal(layouts, DefaultLayouts()) {
		return nil
	}
	return LayoutNames(layouts)
}

// DeletePhase tells whether a study of layouts ends every layout's
// phases with the delete phase: one of them exports and deletes agents.
func DeletePhase(layouts []Layout) bool {
	return slices.ContainsFunc(layouts, func(l Layout) bool { return l.spec().deletes })
}

// CheckLayouts checks a study's layouts: at least one; with a sweep
// (sweep), none whose delete phase removes agents that the sweep's other
// counts use; with stores split over processes (split, --procs), each
// one whose stores can be.
func CheckLayouts(layouts []Layout, sweep, split bool) error {
	if len(layouts) == 0 {
		return fmt.Errorf("--layout: give at least one of %s", strings.Join(LayoutNames(Layouts()), ", "))
	}
	for _, l := range layouts {
		switch s := l.spec(); {
		case sweep && s.deletes:
			return fmt.Errorf("--layout %s with a sweep (--stores A,B,…): the delete phase would remove agents that the sweep's other counts use; give one store count", s.name)
		case split && s.noSplit != "":
			return fmt.Errorf("--procs splits stores per agent over processes; with --layout %s %s: use --layout %s", s.name, s.noSplit, JoinLayouts(DefaultLayouts()))
		}
	}
	return nil
}

// CheckDeletes checks --deletes of a study: only in a study of layouts
// with the delete phase (DeletePhase), and a count CheckDeleteCount
// takes.
func CheckDeletes(n, stores int, layouts []Layout) error {
	if n != 0 && !DeletePhase(layouts) {
		return fmt.Errorf("--deletes %d: only a study with the %s layout (--layout %s) exports and deletes agents", n, deleting(), JoinLayouts(Layouts()))
	}
	return CheckDeleteCount(n, stores)
}

// CheckDeleteCount checks a count of agents to delete: 0 (the default,
// DeleteAgents) or 1 to one less than the stores: an agent stays for the
// untimed export that comes first, so that the engine's one-time set-up
// is in no sample.
func CheckDeleteCount(n, stores int) error {
	if n != 0 && (n < 0 || n >= stores) {
		return fmt.Errorf("--deletes %d: give how many agents the delete phase exports and deletes, 1 to %d of the %d stores (0: one in %d)", n, stores-1, stores, DeleteShare)
	}
	return nil
}

// deleting names the layouts with the delete phase.
func deleting() string {
	var names []string
	for _, s := range layoutSpecs() {
		if s.deletes {
			names = append(names, s.name)
		}
	}
	return strings.Join(names, " or ")
}

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
