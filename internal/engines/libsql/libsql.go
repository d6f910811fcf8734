// Package libsql is manydb's adapter for libSQL (Turso's fork of SQLite)
// through github.com/tursodatabase/go-libsql: cgo, linking the prebuilt
// static library lib/<os>_<arch>/libsql_experimental.a that ships inside
// the Go module (Rust bindings around libSQL's C core; the C code and the
// Rust code both allocate with glibc's malloc). Variant id: libsql.
//
// libSQL defines the same sqlite3_* symbols as SQLite, so this package
// cannot be linked into a binary together with mattn/go-sqlite3: it has
// its own worker, cmd/worker-libsql.
//
// A store is a directory holding one file, notes.db, with the same schema
// as the sqlite variant:
//
//	CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT NOT NULL, ts INTEGER NOT NULL)
//
// Open is the driver's OpenConnector("file:<dir>/notes.db") (libsql_open_file,
// which opens the database) followed by the connector's Connect
// (libsql_connect, one connection); Close closes the connection
// (libsql_disconnect) and then the connector (libsql_close). database/sql
// is not used: sql.Open is lazy and sql.DB pools connections. The driver's
// Open(name) must not be used either: it makes a connector and never
// closes it, so every open leaks the database handle (the process' memory
// grows with every open, by about 0.5 to 0.8 KiB); see leak_test.go. The
// DSN must start with "file:": the driver picks local or remote by the URL
// scheme.
//
// libsql_disconnect does not close the connection before it returns: it
// hands the Rust connection to a thread of libSQL's tokio blocking pool,
// which drops it (sqlite3_close) in the background. So the close time
// measured here is the hand-off, not the close; the close itself runs
// concurrently with the next store's open. The pool's threads (named
// tokio-runtime-w, up to dozens, idle ones exit after 10 s) each get their
// own glibc malloc arena. And the process crashes now and then (SIGSEGV
// on a tokio thread, or "double free or corruption"), or the next open or
// query fails with SQLITE_MISUSE (21): in unit tests with 100-note stores
// about once in 30,000 open/count/close cycles, in a 200-store study with
// 1,000-note stores in one of three open runs. Waiting 0.2 ms after each
// close made it go away in tests; waiting until the file descriptor is
// closed (inotify) did not, so it is not only the late sqlite3_close. It
// is not fixed here: a worker crash is recorded as a failed phase.
//
// No pragma is set: libSQL's defaults are SQLite's (journal_mode=DELETE,
// synchronous=FULL, page_size 4096, cache_size -2000), so commits sync as
// in the sqlite variant. go-libsql has no prepared-statement reuse (its
// statements are prepared again on every execution), so Insert runs one
// prepared-and-freed INSERT per note inside one BEGIN … COMMIT, the way
// any user of this driver does.
package libsql

/*
// libsql_libversion is in libsql_experimental.a, linked by go-libsql.
const char *libsql_libversion(void);
*/
import "C"

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	golibsql "github.com/tursodatabase/go-libsql"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/workload"
)

// FileName is the database file inside a store's directory.
const FileName = sqlnotes.FileName

// The statements, the same for every SQL engine.
const (
	schema    = sqlnotes.Schema
	insertSQL = sqlnotes.InsertSQL
	countSQL  = sqlnotes.CountSQL
)

// Variant is the libsql variant.
type Variant struct {
	drv      driver.DriverContext
	versions map[string]string
}

// ID is the variant id.
const ID = "libsql"

// Factories lists the variant of this package for its worker.
func Factories() []engine.Factory { return []engine.Factory{{ID: ID, New: New}} }

// New returns the libsql variant. It opens an in-memory database once to
// read the library's SQLite version.
func New() (engine.Variant, error) {
	// The zero Connector only serves to reach the driver without
	// database/sql; go-libsql does not export the driver type.
	var c golibsql.Connector
	drv, ok := c.Driver().(driver.DriverContext)
	if !ok {
		return nil, errors.New("go-libsql's driver has no OpenConnector: this go-libsql version is not supported, use the one in go.mod")
	}
	v := &Variant{drv: drv}
	sqliteVersion, sourceID, err := v.sqliteVersion()
	if err != nil {
		return nil, fmt.Errorf("read libSQL's version: %w", err)
	}
	v.versions = map[string]string{
		"libsql":           C.GoString(C.libsql_libversion()),
		"sqlite":           sqliteVersion,
		"sqlite_source_id": sourceID,
	}
	return v, nil
}

func (v *Variant) sqliteVersion() (version, sourceID string, err error) {
	s, err := v.open("")
	if err != nil {
		return "", "", err
	}
	defer s.Close()
	rows, err := s.q.QueryContext(context.Background(), "SELECT sqlite_version(), sqlite_source_id()", nil)
	if err != nil {
		return "", "", err
	}
	defer rows.Close()
	dest := make([]driver.Value, 2)
	if err := rows.Next(dest); err != nil {
		return "", "", err
	}
	version, _ = dest[0].(string)
	sourceID, _ = dest[1].(string)
	return version, sourceID, nil
}

// ID implements engine.Variant.
func (v *Variant) ID() string { return ID }

// Versions implements engine.Variant: libsql_libversion() (libSQL's own
// version), sqlite_version() and sqlite_source_id().
func (v *Variant) Versions() map[string]string { return v.versions }

// Create implements engine.Variant: open a new database and commit the
// schema (its own transaction, as an application creating it would).
func (v *Variant) Create(dir string) (engine.Store, error) {
	s, err := v.open(filepath.Join(dir, FileName))
	if err != nil {
		return nil, err
	}
	if _, err := s.x.ExecContext(context.Background(), schema, nil); err != nil {
		s.Close()
		return nil, fmt.Errorf("create table: %w", err)
	}
	return s, nil
}

// Open implements engine.Variant.
func (v *Variant) Open(dir string) (engine.Store, error) {
	return v.open(filepath.Join(dir, FileName))
}

// open opens the database file at path, or an in-memory database if path
// is empty.
func (v *Variant) open(path string) (*store, error) {
	dsn := "file:" + path
	if path == "" {
		dsn = "file::memory:"
	}
	ctr, err := v.drv.OpenConnector(dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dsn, err)
	}
	c, err := ctr.Connect(context.Background())
	if err != nil {
		closeConnector(ctr)
		return nil, fmt.Errorf("connect to %s: %w", dsn, err)
	}
	s := &store{ctr: ctr, c: c}
	var ok1, ok2 bool
	s.x, ok1 = c.(driver.ExecerContext)
	s.q, ok2 = c.(driver.QueryerContext)
	if !ok1 || !ok2 {
		s.Close()
		return nil, errors.New("go-libsql's connection has no ExecContext or QueryContext: this go-libsql version is not supported, use the one in go.mod")
	}
	return s, nil
}

func closeConnector(ctr driver.Connector) error {
	if c, ok := ctr.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

type store struct {
	ctr driver.Connector // the database (libsql_database_t)
	c   driver.Conn      // its one connection (libsql_connection_t)
	x   driver.ExecerContext
	q   driver.QueryerContext
}

// Insert writes all notes in one transaction. The arguments are passed with
// 1-based ordinals, as database/sql does: go-libsql binds Ordinal as the
// SQLite parameter index (its Stmt.Exec passes 0-based ones).
func (s *store) Insert(notes []workload.Note) (err error) {
	ctx := context.Background()
	if _, err := s.x.ExecContext(ctx, "BEGIN", nil); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			s.x.ExecContext(ctx, "ROLLBACK", nil)
		}
	}()
	args := []driver.NamedValue{{Ordinal: 1}, {Ordinal: 2}, {Ordinal: 3}}
	for _, n := range notes {
		args[0].Value, args[1].Value, args[2].Value = n.ID, n.Text, n.Ts
		if _, err := s.x.ExecContext(ctx, insertSQL, args); err != nil {
			return err
		}
	}
	_, err = s.x.ExecContext(ctx, "COMMIT", nil)
	return err
}

// Count runs SELECT count(*) FROM notes.
func (s *store) Count() (int64, error) {
	rows, err := s.q.QueryContext(context.Background(), countSQL, nil)
	if err != nil {
		return 0, err
	}
	return sqlnotes.ScanCount(rows)
}

// Close closes the connection, then the database. libsql_disconnect does
// not close the connection itself: it hands the Rust connection to a tokio
// blocking thread to drop (sqlite3_close runs there) and returns at once;
// see the package doc.
func (s *store) Close() error {
	return errors.Join(s.c.Close(), closeConnector(s.ctr))
}
