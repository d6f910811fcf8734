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
package sqlite

import (
	"path/filepath"

	sqlite3 "github.com/mattn/go-sqlite3"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlitecapi"
	"manydb/internal/engines/sqlnotes"
)

// Variant is an engine.Variant; its stores are sqlnotes.Store, an
// engine.Store.
var (
	_ engine.Variant  = (*Variant)(nil)
	_ engine.Optioner = (*Variant)(nil)
)

// FileName is the database file inside a store's directory.
const FileName = sqlnotes.FileName

// Variant is the sqlite variant.
type Variant struct {
	drv     sqlite3.SQLiteDriver
	dsn     string            // added to the file name: "?_sync=FULL…"
	options map[string]string // what lean set
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
		{ID: IDCapi, New: func() (engine.Variant, error) { return sqlitecapi.New(IDCapi, nil) },
			Lean: func() (engine.Variant, error) { return sqlitecapi.NewLean(IDCapi, nil, true) }}}
}

// New returns the sqlite variant, SQLite's process-wide configuration its
// default.
func New() (engine.Variant, error) {
	if err := sqlitecapi.Configure(false, false); err != nil {
		return nil, err
	}
	return &Variant{dsn: dsn}, nil
}

// NewLean returns the sqlite variant under the lean setting: SQLite
// configured for many open stores (its connections each have their own
// page cache, so bulk too) and PRAGMA cache_size=-64 through the DSN.
func NewLean() (engine.Variant, error) {
	if err := sqlitecapi.Configure(true, true); err != nil {
		return nil, err
	}
	return &Variant{dsn: dsn + leanDSN, options: sqlnotes.LeanConfig(true)}, nil
}

// Options implements engine.Optioner.
func (v *Variant) Options() map[string]string { return v.options }

// ID implements engine.Variant.
func (v *Variant) ID() string { return ID }

// Versions implements engine.Variant.
func (v *Variant) Versions() map[string]string {
	lib, _, source := sqlite3.Version()
	return map[string]string{"sqlite": lib, "sqlite_source_id": source}
}

func (v *Variant) connect(dir string) (*sqlite3.SQLiteConn, error) {
	c, err := v.drv.Open("file:" + filepath.Join(dir, FileName) + v.dsn)
	if err != nil {
		return nil, err
	}
	return c.(*sqlite3.SQLiteConn), nil
}

// Create implements engine.Variant: open a new database and commit the
// schema (its own transaction, as an application creating it would).
func (v *Variant) Create(dir string) (engine.Store, error) {
	c, err := v.connect(dir)
	if err != nil {
		return nil, err
	}
	return sqlnotes.Create(c)
}

// Open implements engine.Variant.
func (v *Variant) Open(dir string) (engine.Store, error) {
	c, err := v.connect(dir)
	if err != nil {
		return nil, err
	}
	return &sqlnotes.Store{Conn: c}, nil
}
