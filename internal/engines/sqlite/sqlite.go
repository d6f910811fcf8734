// Package sqlite is manydb's adapter for SQLite through
// github.com/mattn/go-sqlite3 (cgo, with the SQLite amalgamation bundled in
// the module). Variant id: sqlite.
//
// It uses the driver's connection (*sqlite3.SQLiteConn) directly, not
// database/sql: sql.Open is lazy and sql.DB pools connections, which would
// hide the open and close being measured. A store is a directory holding
// one file, notes.db, with
//
//	CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT NOT NULL, ts INTEGER NOT NULL)
//
// Open is the driver's Open: sqlite3_open_v2 plus the pragmas the driver
// always runs (busy_timeout, locking_mode, synchronous). SQLite reads the
// schema lazily, so the first statement after an open (the count) pays for
// reading it. The DSN sets _sync=FULL, SQLite's own default (the driver's
// default is NORMAL), so commits sync as in the reference study and in a C
// program; the journal mode is SQLite's default (DELETE).
//
// Under the lean setting (NewLean) SQLite is configured for many open
// stores before the first open (sqlitecapi.Configure: no lookaside, no
// bulk page allocation, reads through mmap) and the DSN adds
// _cache_size=-64, which the driver runs as PRAGMA cache_size at every
// open.
//
// With vectors (CreateVectors) both variants of this package use
// sqlite-vec (github.com/asg017/sqlite-vec-go-bindings/cgo): its C source
// is compiled with SQLITE_CORE against the sqlite3.h on the system include
// path (scripts/ensure-sqlite-dev.sh) and calls the SQLite that mattn
// compiles, the only one in the binary. It is registered with
// sqlite3_auto_extension (registerVec) only when the worker prepares the
// variant for a workload with embeddings (engine.VectorPreparer), before
// its first open; every connection opened after that has its vec0 table
// (sqlnotes.SQLiteVec). Without embeddings no connection loads it.
package sqlite

import (
	"fmt"

	sqlitevec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	sqlite3 "github.com/mattn/go-sqlite3"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlitecapi"
	"manydb/internal/engines/sqlnotes"
)

// Variant is an engine.Variant; Create returns a sqlnotes.Store, Open and
// CreateVectors a sqlnotes.VectorStore.
var (
	_ engine.Variant       = (*Variant)(nil)
	_ engine.Optioner      = (*Variant)(nil)
	_ engine.VectorVariant = (*Variant)(nil)
)

// FileName is the database file inside a store's directory.
const FileName = sqlnotes.FileName

// Variant is the sqlite variant: its stores, shared store and wal
// setting are sqlnotes.DriverStores' through mattn's driver, with
// sqlite-vec's statements for embeddings.
type Variant struct {
	sqlnotes.DriverStores
	drv     sqlite3.SQLiteDriver
	options map[string]string // what lean set
	vec     string            // sqlite-vec's version, vec_version()
}

// dsn is every open's DSN after the file name; lean adds leanDSN.
const (
	dsn     = "?_sync=FULL"
	leanDSN = "&_cache_size=" + sqlnotes.LeanCacheSize
)

// ID is the variant id.
const ID = "sqlite"

// IDCapi is the variant of SQLite's C API called directly (package
// sqlitecapi), with the SQLite this package links.
const IDCapi = "sqlite_capi"

// Factories lists this package's variants for worker-sqlite: the driver
// and, on the same compiled SQLite, the C API floor.
func Factories() []engine.Factory {
	return []engine.Factory{{ID: ID, New: New, Lean: NewLean},
		{ID: IDCapi, New: func() (engine.Variant, error) { return newCapi(false) },
			Lean: func() (engine.Variant, error) { return newCapi(true) }}}
}

// newCapi returns the sqlite_capi variant, lean or not, with sqlite-vec
// registered (its version among the variant's versions).
func newCapi(lean bool) (engine.Variant, error) {
	var v *sqlitecapi.Variant
	var err error
	if lean {
		v, err = sqlitecapi.NewLean(IDCapi, nil, true)
	} else {
		v, err = sqlitecapi.New(IDCapi, nil)
	}
	if err != nil {
		return nil, err
	}
	version, err := vecVersion()
	if err != nil {
		return nil, err
	}
	v.WithSharedVectors(func(dims int) sqlnotes.Vectors { return sqlnotes.SQLiteVecShared(dims, version) })
	return v.WithVectors(vectors(version), map[string]string{VecVersionKey: version}, registerVec), nil
}

// VecVersionKey is the key of sqlite-vec's version in Versions.
const VecVersionKey = "sqlite_vec"

// vectors is the statements of both variants: sqlite-vec's vec0 table.
func vectors(version string) sqlnotes.VectorsFunc {
	return func(dims int) sqlnotes.Vectors { return sqlnotes.SQLiteVec(dims, version) }
}

// registerVec registers sqlite-vec with SQLite for every connection
// opened from now on (sqlite3_auto_extension): engine.VectorPreparer's
// PrepareVectors, which the worker calls only for a workload with
// embeddings, so that the reference workload's connections do not load
// it. It must follow sqlitecapi.Configure: sqlite3_shutdown clears the
// list of automatic extensions (sqlite3_reset_auto_extension);
// registering the same extension twice is a no-op.
func registerVec() error {
	sqlitevec.Auto()
	return nil
}

// vecVersion returns sqlite-vec's version as a connection of mattn's
// driver reports it (SELECT vec_version()), registering the extension for
// that connection only: it is cancelled again
// (sqlite3_cancel_auto_extension) before vecVersion returns.
func vecVersion() (string, error) {
	sqlitevec.Auto()
	defer sqlitevec.Cancel()
	var drv sqlite3.SQLiteDriver
	c, err := drv.Open(":memory:")
	if err != nil {
		return "", fmt.Errorf("open an in-memory database: %w", err)
	}
	defer c.Close()
	row, err := sqlnotes.QueryRow(c, "SELECT vec_version()", 1)
	if err != nil {
		return "", fmt.Errorf("sqlite-vec is not linked: %w", err)
	}
	version, ok := row[0].(string)
	if !ok {
		return "", fmt.Errorf("vec_version() returned %T, want a string", row[0])
	}
	return version, nil
}

// New returns the sqlite variant, SQLite's process-wide configuration its
// default.
func New() (engine.Variant, error) {
	if err := sqlitecapi.Configure(false, false); err != nil {
		return nil, err
	}
	return newVariant(dsn, nil)
}

func newVariant(dsn string, options map[string]string) (*Variant, error) {
	version, err := vecVersion()
	if err != nil {
		return nil, err
	}
	v := &Variant{options: options, vec: version}
	v.DriverStores = sqlnotes.DriverStores{Connect: v.drv.Open, Driver: "mattn", Params: dsn, WALParam: walDSN, Vectors: vectors(version)}
	return v, nil
}

// NewLean returns the sqlite variant under the lean setting: SQLite
// configured for many open stores (its connections each have their own
// page cache, so bulk too) and PRAGMA cache_size=-64 through the DSN.
func NewLean() (engine.Variant, error) {
	if err := sqlitecapi.Configure(true, true); err != nil {
		return nil, err
	}
	return newVariant(dsn+leanDSN, sqlnotes.LeanConfig(true))
}

// Options implements engine.Optioner.
func (v *Variant) Options() map[string]string { return v.options }

// ID implements engine.Variant.
func (v *Variant) ID() string { return ID }

// Versions implements engine.Variant: SQLite's and sqlite-vec's.
func (v *Variant) Versions() map[string]string {
	lib, _, source := sqlite3.Version()
	return map[string]string{"sqlite": lib, "sqlite_source_id": source, VecVersionKey: v.vec}
}

// PrepareVectors implements engine.VectorPreparer: sqlite-vec is
// registered for every connection opened from now on.
func (v *Variant) PrepareVectors() error { return registerVec() }

// walDSN is the wal setting's addition to the DSN.
const walDSN = "&_journal_mode=WAL"
