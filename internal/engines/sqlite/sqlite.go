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
var _ engine.Variant = (*Variant)(nil)

// FileName is the database file inside a store's directory.
const FileName = sqlnotes.FileName

// Variant is the sqlite variant.
type Variant struct {
	drv sqlite3.SQLiteDriver
}

// ID is the variant id.
const ID = "sqlite"

// IDCapi is the variant of SQLite's C API called directly (package
// sqlitecapi), with the SQLite this package links.
const IDCapi = "sqlite_capi"

// Factories lists this package's variants for worker-sqlite: the driver
// and, on the same compiled SQLite, the C API floor.
func Factories() []engine.Factory {
	return []engine.Factory{{ID: ID, New: New},
		{ID: IDCapi, New: func() (engine.Variant, error) { return sqlitecapi.New(IDCapi, nil), nil }}}
}

// New returns the sqlite variant.
func New() (engine.Variant, error) { return &Variant{}, nil }

// ID implements engine.Variant.
func (v *Variant) ID() string { return ID }

// Versions implements engine.Variant.
func (v *Variant) Versions() map[string]string {
	lib, _, source := sqlite3.Version()
	return map[string]string{"sqlite": lib, "sqlite_source_id": source}
}

func (v *Variant) connect(dir string) (*sqlite3.SQLiteConn, error) {
	c, err := v.drv.Open("file:" + filepath.Join(dir, FileName) + "?_sync=FULL")
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
