// Package sqlitencruces is manydb's adapter for SQLite through
// github.com/ncruces/go-sqlite3, no cgo. Variant id: sqlite_ncruces.
//
// At v0.37.0 this module no longer runs SQLite's Wasm build with wazero:
// the Wasm build is translated to Go source (wasm2go) and shipped in
// github.com/ncruces/go-sqlite3-wasm/v6, so there is nothing to compile at
// run time and nothing to embed (the github.com/ncruces/go-sqlite3/embed
// package is deprecated; importing it only prints a warning). Instead,
// every connection instantiates its own copy of the module: its own
// linear memory (256 MiB of address space reserved with PROT_NONE and
// committed as SQLite grows it, 320 KiB at first) into which its ~100 KiB
// data segment is copied. Files are read and written by the module's own
// Go VFS (package vfs), not by SQLite's unix VFS.
//
// It does what the sqlite variant (internal/sqlite, mattn/go-sqlite3)
// does, through the module's own API (sqlite3.OpenFlags, Conn.Exec,
// Conn.Prepare), not database/sql: a store is a directory holding one
// file, notes.db, with
//
//	CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT NOT NULL, ts INTEGER NOT NULL)
//
// committed by Create in its own transaction; Insert writes all notes
// between BEGIN and COMMIT with one prepared statement; Count runs SELECT
// count(*) FROM notes. Open is OpenFlags(READWRITE|CREATE|URI) of
// "file:DIR/notes.db?_pragma=busy_timeout(5000)&_pragma=synchronous(FULL)":
// the two pragmas mattn's driver also runs on every open (its third,
// locking_mode=NORMAL, is SQLite's default). synchronous FULL is SQLite's
// own default; the journal mode is SQLite's default (DELETE).
//
// The variant opens an in-memory database once when it is made, before
// any timed span, to read the SQLite version (SELECT sqlite_version(),
// sqlite_source_id()); this also runs the package's one-time set-up
// (registering its VFS), so that the first timed open pays only what
// every later open pays.
package sqlitencruces

import (
	"fmt"
	"path/filepath"

	"github.com/ncruces/go-sqlite3"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/workload"
)

// FileName is the database file inside a store's directory.
const FileName = sqlnotes.FileName

const (
	schema = sqlnotes.Schema
	params = "?_pragma=busy_timeout(5000)&_pragma=synchronous(FULL)"
	flags  = sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE | sqlite3.OPEN_URI
)

// Variant is the sqlite_ncruces variant.
type Variant struct {
	versions map[string]string
}

// ID is the variant id.
const ID = "sqlite_ncruces"

// Factories lists the variant of this package for its worker.
func Factories() []engine.Factory { return []engine.Factory{{ID: ID, New: New}} }

// New returns the sqlite_ncruces variant, after reading the SQLite
// version from an in-memory database.
func New() (engine.Variant, error) {
	c, err := sqlite3.OpenFlags(":memory:", flags)
	if err != nil {
		return nil, fmt.Errorf("open an in-memory database: %w", err)
	}
	defer c.Close()
	st, _, err := c.Prepare("SELECT sqlite_version(), sqlite_source_id()")
	if err != nil {
		return nil, fmt.Errorf("read the SQLite version: %w", err)
	}
	defer st.Close()
	if !st.Step() {
		return nil, fmt.Errorf("read the SQLite version: no row: %w", st.Err())
	}
	return &Variant{versions: map[string]string{"sqlite": st.ColumnText(0), "sqlite_source_id": st.ColumnText(1)}}, nil
}

// ID implements engine.Variant.
func (v *Variant) ID() string { return ID }

// Versions implements engine.Variant.
func (v *Variant) Versions() map[string]string { return v.versions }

func connect(dir string) (*sqlite3.Conn, error) {
	return sqlite3.OpenFlags("file:"+filepath.Join(dir, FileName)+params, flags)
}

// Create implements engine.Variant: open a new database and commit the
// schema (its own transaction, as an application creating it would).
func (v *Variant) Create(dir string) (engine.Store, error) {
	c, err := connect(dir)
	if err != nil {
		return nil, err
	}
	if err := c.Exec(schema); err != nil {
		c.Close()
		return nil, fmt.Errorf("create table: %w", err)
	}
	return &store{c: c}, nil
}

// Open implements engine.Variant.
func (v *Variant) Open(dir string) (engine.Store, error) {
	c, err := connect(dir)
	if err != nil {
		return nil, err
	}
	return &store{c: c}, nil
}

type store struct {
	c *sqlite3.Conn
}

// Insert writes all notes in one transaction with one prepared statement.
func (s *store) Insert(notes []workload.Note) (err error) {
	if err := s.c.Exec("BEGIN"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			s.c.Exec("ROLLBACK")
		}
	}()
	st, _, err := s.c.Prepare(sqlnotes.InsertSQL)
	if err != nil {
		return err
	}
	for _, n := range notes {
		if err := bindExec(st, n); err != nil {
			st.Close()
			return fmt.Errorf("insert note %d: %w", n.ID, err)
		}
	}
	if err := st.Close(); err != nil {
		return err
	}
	return s.c.Exec("COMMIT")
}

func bindExec(st *sqlite3.Stmt, n workload.Note) error {
	if err := st.BindInt64(1, n.ID); err != nil {
		return err
	}
	if err := st.BindText(2, n.Text); err != nil {
		return err
	}
	if err := st.BindInt64(3, n.Ts); err != nil {
		return err
	}
	return st.Exec() // steps to the end and resets
}

// Count runs SELECT count(*) FROM notes.
func (s *store) Count() (int64, error) {
	st, _, err := s.c.Prepare(sqlnotes.CountSQL)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	if !st.Step() {
		if err := st.Err(); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("count returned no row")
	}
	return st.ColumnInt64(0), nil
}

// Close closes the connection and frees its module instance.
func (s *store) Close() error { return s.c.Close() }
