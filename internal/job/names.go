package job

import (
	"fmt"
	"slices"
	"strings"
)

// Phase names one phase of a study. A worker runs the phases from
// PhaseCreate to PhaseProfile, and PhaseVersions; the orchestrator writes
// the env and end records.
type Phase string

// Phases, in the order a study runs them for one variant.
const (
	PhaseEnv    Phase = "env" // one per study: the environment it ran in
	PhaseCreate Phase = "create"
	PhaseOpen   Phase = "open"
	PhaseHold   Phase = "hold"
	PhaseSpace  Phase = "space"
	PhaseTurn   Phase = "turn"  // after space: one agent turn per store (--turns)
	PhaseServe  Phase = "serve" // manydb serve: agent traffic on a pool of open stores
	// PhaseDelete exports and then deletes a share of the agents
	// (Job.DeleteCount), last, as it removes them.
	PhaseDelete  Phase = "delete"
	PhaseProfile Phase = "profile"
	PhaseEnd     Phase = "end" // one per finished study: its wall time
	// PhaseVersions only reports the engine's and the worker's versions
	// (no stores, no record in a results file).
	PhaseVersions Phase = "versions"
)

// WorkerPhases are the phases a worker runs, in study order.
func WorkerPhases() []Phase {
	return []Phase{PhaseCreate, PhaseOpen, PhaseHold, PhaseSpace, PhaseTurn, PhaseServe, PhaseDelete, PhaseProfile, PhaseVersions}
}

// Query names what an open store is asked.
type Query string

// The queries of an open run (--queries) and the write of a turn.
const (
	QueryCount  Query = "count"  // the number of notes (the reference's query)
	QueryRecent Query = "recent" // the RecentN newest notes
	QueryGet    Query = "get"    // GetN notes by id, drawn per store from the run's seed
	QueryScan   Query = "scan"   // every note
	// QueryKNN asks for the vector.K notes nearest to a query vector by
	// cosine distance (a workload with embeddings, --dims).
	QueryKNN Query = "knn"
	// QueryAppend is the write of a turn: one new note in its own transaction.
	QueryAppend Query = "append"
)

// How many notes the recent and get queries ask for.
const (
	RecentN = 20
	GetN    = 10
)

// Queries lists the queries an open run can make, in their usual order.
func Queries() []Query { return []Query{QueryCount, QueryRecent, QueryGet, QueryScan, QueryKNN} }

// MaxDims is the longest embedding --dims takes: sqlite-vec's limit
// (8,192), the lowest of the engines'.
const MaxDims = 8192

// ParseQueries reads a --queries list: known queries, each at most once.
func ParseQueries(s string) ([]Query, error) {
	queries, err := ParseList(s, ParseQuery)
	if err != nil {
		return nil, fmt.Errorf("--queries: %w", err)
	}
	return queries, nil
}

// ParseQuery reads one query of a --queries list.
func ParseQuery(name string) (Query, error) {
	if q := Query(name); slices.Contains(Queries(), q) {
		return q, nil
	}
	return "", fmt.Errorf("unknown query %q: use %s, comma-separated, in the order to run them", name, JoinNames(Queries(), ", "))
}

// CacheMode is the page cache an open run's stores start from.
type CacheMode string

// Cache modes of an open run (Job.Cache). The third, drop, is the
// orchestrator's: it drops the kernel's caches before a worker whose
// stores it then opens as in a warm run.
const (
	CacheWarm CacheMode = ""
	CacheCold CacheMode = "cold"
	CacheDrop CacheMode = "drop"
)

// CacheModes lists the cache modes by the names --cache takes.
func CacheModes() []CacheMode { return []CacheMode{CacheWarm, CacheCold, CacheDrop} }

// Name is the mode's name on the command line and in tables: "warm" for
// CacheWarm, which records leave empty.
func (m CacheMode) Name() string {
	if m == CacheWarm {
		return "warm"
	}
	return string(m)
}

// Allocator names a malloc implementation.
type Allocator string

// The allocators a worker can run with: glibc's malloc, or one a setting
// preloads.
const (
	Glibc    Allocator = "glibc"
	Jemalloc Allocator = "jemalloc"
	Mimalloc Allocator = "mimalloc"
	Tcmalloc Allocator = "tcmalloc"
)

// Allocators lists every allocator a worker can prove it runs with.
func Allocators() []Allocator { return []Allocator{Glibc, Jemalloc, Mimalloc, Tcmalloc} }

// JoinNames joins names of any string type (phases, queries, …) with sep.
func JoinNames[S ~string](names []S, sep string) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, sep)
}

// CacheModeNames lists the modes by name, as --cache takes them:
// "warm, cold, drop".
func CacheModeNames() string {
	names := make([]string, 0, len(CacheModes()))
	for _, m := range CacheModes() {
		names = append(names, m.Name())
	}
	return strings.Join(names, ", ")
}

// CacheModeNamed returns the cache mode whose Name is name (warm, cold or
// drop), and whether there is one.
func CacheModeNamed(name string) (CacheMode, bool) {
	for _, m := range CacheModes() {
		if m.Name() == name {
			return m, true
		}
	}
	return "", false
}
