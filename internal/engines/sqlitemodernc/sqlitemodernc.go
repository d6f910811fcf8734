// Package sqlitemodernc is manydb's adapter for SQLite through
// modernc.org/sqlite: SQLite's C source transpiled to Go (with
// modernc.org/libc standing in for the C library), no cgo. Variant id:
// sqlite_modernc.
//
// It does what the sqlite variant (internal/engines/sqlite, mattn/go-sqlite3)
// does, so that the two differ only in how SQLite is compiled: the
// driver's connection is used directly, not database/sql; a store is a
// directory holding one file, notes.db, with
//
//	CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT NOT NULL, ts INTEGER NOT NULL)
//
// committed by Create in its own transaction; Insert writes all notes in
// one transaction with one prepared statement; Count runs SELECT count(*)
// FROM notes. Open is the driver's Open of
// "file:DIR/notes.db?_pragma=busy_timeout(5000)&_pragma=synchronous(FULL)":
// sqlite3_open_v2 (read-write, create, full mutex, URI) on a fresh libc
// TLS, then the two pragmas mattn's driver also runs on every open
// (mattn's third, locking_mode=NORMAL, is SQLite's default and is left
// out). synchronous FULL is SQLite's own default; the journal mode is
// SQLite's default (DELETE).
//
// The SQLite version is read once from an in-memory database when the
// variant is made (SELECT sqlite_version(), sqlite_source_id()).
//
// Under the lean setting (NewLean) SQLite is configured for many open
// stores before the variant's first open, through modernc.org/sqlite/lib's
// Xsqlite3_config (configure: no lookaside, mmap; modernc builds SQLite
// with SQLITE_ENABLE_MEMORY_MANAGEMENT, one page cache group for all
// connections, so no bulk allocation to turn off), and the DSN adds
// _pragma=cache_size(-64).
package sqlitemodernc

import (
	"database/sql/driver"
	"fmt"
	"sync"

	"modernc.org/libc"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"manydb/internal/engine"
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

// params are every open's DSN parameters; lean adds leanParams.
const (
	params     = "?_pragma=busy_timeout(5000)&_pragma=synchronous(FULL)"
	leanParams = "&_pragma=cache_size(" + sqlnotes.LeanCacheSize + ")"
)

// conn is what the adapter uses of the driver's connection.
type conn interface {
	driver.Conn
	driver.Execer  //lint:ignore SA1019 the driver implements it; no context needed
	driver.Queryer //lint:ignore SA1019 as above
}

// Variant is the sqlite_modernc variant.
type Variant struct {
	sqlnotes.DriverStores
	drv      *sqlite.Driver
	versions map[string]string
	options  map[string]string // what lean set
}

// ID is the variant id.
const ID = "sqlite_modernc"

// Factories lists the variant of this package for its worker.
func Factories() []engine.Factory { return []engine.Factory{{ID: ID, New: New, Lean: NewLean}} }

// New returns the sqlite_modernc variant, after reading the SQLite version
// from an in-memory database; SQLite's process-wide configuration is its
// default.
func New() (engine.Variant, error) {
	if err := configure(false); err != nil {
		return nil, err
	}
	return newVariant(params, nil)
}

// NewLean returns the variant under the lean setting: SQLite configured
// for many open stores, and PRAGMA cache_size=-64 on every open.
func NewLean() (engine.Variant, error) {
	if err := configure(true); err != nil {
		return nil, err
	}
	return newVariant(params+leanParams, sqlnotes.LeanConfig(false))
}

// Options implements engine.Optioner.
func (v *Variant) Options() map[string]string { return v.options }

// configured is whether configure last set lean; SQLite starts with its
// defaults.
var configured struct {
	sync.Mutex
	lean bool
}

// configure sets SQLite's process-wide configuration for lean (lookaside
// 0,0 and mmap size sqlnotes.LeanMmapSize, as sqlnotes.LeanConfig names
// them) or back to SQLite's defaults (lookaside 1200,40, modernc's
// compile-time SQLITE_DEFAULT_LOOKASIDE as in SQLite's source, and the
// compile-time mmap size), unless it already is: sqlite3_shutdown, then
// sqlite3_config. No connection may be open; the next open initialises
// SQLite again.
func configure(lean bool) error {
	configured.Lock()
	defer configured.Unlock()
	if lean == configured.lean {
		return nil
	}
	tls := libc.NewTLS()
	defer tls.Close()
	if rc := sqlite3.Xsqlite3_shutdown(tls); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("sqlite3_shutdown: error %d", rc)
	}
	lookaside, mmap := []any{int32(1200), int32(40)}, int64(-1)
	if lean {
		lookaside, mmap = []any{int32(0), int32(0)}, sqlnotes.LeanMmapSize
	}
	for _, c := range []struct {
		op   int32
		args []any
	}{{sqlite3.SQLITE_CONFIG_LOOKASIDE, lookaside}, {sqlite3.SQLITE_CONFIG_MMAP_SIZE, []any{mmap, int64(-1)}}} {
		va := libc.NewVaList(c.args...)
		rc := sqlite3.Xsqlite3_config(tls, c.op, va)
		libc.Xfree(tls, va)
		if rc != sqlite3.SQLITE_OK {
			return fmt.Errorf("sqlite3_config(%d, %v): error %d", c.op, c.args, rc)
		}
	}
	configured.lean = lean
	return nil
}

func newVariant(params string, options map[string]string) (*Variant, error) {
	v := &Variant{drv: &sqlite.Driver{}, options: options}
	v.DriverStores = sqlnotes.DriverStores{Connect: v.connectDSN, Driver: "modernc", Params: params, WALParam: walParam, Vectors: vectors}
	c, err := v.connect(":memory:")
	if err != nil {
		return nil, fmt.Errorf("open an in-memory database: %w", err)
	}
	defer c.Close()
	row, err := sqlnotes.QueryRow(c, "SELECT sqlite_version(), sqlite_source_id()", 2)
	if err != nil {
		return nil, fmt.Errorf("read the SQLite version: %w", err)
	}
	v.versions = map[string]string{"sqlite": fmt.Sprint(row[0]), "sqlite_source_id": fmt.Sprint(row[1])}
	return v, nil
}

// ID implements engine.Variant.
func (v *Variant) ID() string { return ID }

// Versions implements engine.Variant.
func (v *Variant) Versions() map[string]string { return v.versions }

// connectDSN is connect as sqlnotes.DriverStores opens a store.
func (v *Variant) connectDSN(dsn string) (driver.Conn, error) { return v.connect(dsn) }

func (v *Variant) connect(name string) (conn, error) {
	c, err := v.drv.Open(name)
	if err != nil {
		return nil, err
	}
	cc, ok := c.(conn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("driver connection %T has no Exec and Query", c)
	}
	return cc, nil
}

// vectors is the embeddings as blobs, the knn an exact scan in Go
// (sqlnotes.ScanInGo): modernc's SQLite is Go and cannot load sqlite-vec,
// which is C.
func vectors(int) sqlnotes.Vectors { return sqlnotes.ScanInGo() }

// walParam is the wal setting's addition to the DSN.
const walParam = "&_pragma=journal_mode(WAL)"
