// Package tursogo is manydb's adapter for Turso Database (the Rust rewrite
// of SQLite, turso_core) through github.com/tursodatabase/turso-go. Variant
// id: turso_go.
//
// turso-go calls a Rust library, libturso_go.so (turso_core 0.2.0 for
// turso-go v0.2.2), through purego, without cgo. The library ships inside
// the Go module for every platform (libs/<os>_<arch>/) and is embedded
// into the binary with go:embed, so the worker is large (about 150 MB:
// every platform's library is embedded). At start-up, in the package's
// init, turso-go writes the library to
// $TURSO_GO_CACHE_DIR or os.UserCacheDir()/turso-go/<commit>/<os>_<arch>/
// (once; an existing non-empty file is reused as it is) and dlopens it; if
// that fails, it prints a warning on stdout and tries LD_LIBRARY_PATH and
// the working directory, and panics when it finds nothing. Building needs
// only the Go module proxy; running needs a writable cache directory.
// The Rust code allocates with Rust's System allocator, which is glibc's
// malloc (the library imports malloc, posix_memalign and free from glibc
// and links no other allocator), so glibc allocator settings apply to it.
//
// It uses the driver's connection directly, not database/sql: sql.Open is
// lazy and sql.DB pools connections. database/sql only serves to reach the
// registered driver. A store is a directory holding notes.db and, after
// the first write, notes.db-wal, with the same schema as the sqlite
// variant:
//
//	CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT NOT NULL, ts INTEGER NOT NULL)
//
// Open is the driver's Open(<dir>/notes.db) (db_open: turso_core's
// Connection::from_uri with indexes on and MVCC, views, strict mode and
// encryption off); Close is the connection's Close (db_close, which drops
// the connection and its database). No pragma is set; Turso's defaults
// are journal_mode=WAL (always: Turso has no rollback journal),
// synchronous=FULL, page_size 4096, cache_size -2000. Insert writes all
// notes with one prepared statement inside BEGIN … COMMIT.
//
// What to know about turso-go 0.2.2:
//   - A path whose directory does not exist makes db_open panic in Rust,
//     which aborts the whole process; a missing file is created. So Create
//     checks that the directory exists and Open that notes.db exists
//     (one stat each, inside the timed open) and return an error instead.
//   - Close does not checkpoint: all committed pages stay in notes.db-wal
//     (notes.db keeps only its first page), and every open reads the
//     whole WAL again to rebuild its frame index.
//   - Each open database maps its own memory arenas and advises them
//     MADV_HUGEPAGE, so where transparent huge pages are "madvise" (or
//     "always") an open store holds about 2 MB more resident memory than
//     with THP "never".
//   - The library's SQL function sqlite_version() returns turso_core's
//     version, which Versions reports as "turso_core".
package tursogo

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	// Registers the "turso" driver; its init loads the embedded library.
	_ "github.com/tursodatabase/turso-go"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlnotes"
)

// FileName is the database file inside a store's directory; Turso adds
// FileName+"-wal" beside it.
const FileName = sqlnotes.FileName

// Variant is the turso_go variant.
type Variant struct {
	drv      driver.Driver
	versions map[string]string
}

// ID is the variant id.
const ID = "turso_go"

// Factories lists the variant of this package for its worker.
func Factories() []engine.Factory { return []engine.Factory{{ID: ID, New: New}} }

// New returns the turso_go variant. It opens an in-memory database once to
// read turso_core's version.
func New() (engine.Variant, error) {
	db, err := sql.Open("turso", ":memory:") // lazy: only finds the driver
	if err != nil {
		return nil, fmt.Errorf("find turso-go's driver: %w", err)
	}
	v := &Variant{drv: db.Driver()}
	if err := db.Close(); err != nil {
		return nil, err
	}
	c, err := v.drv.Open(":memory:")
	if err != nil {
		return nil, fmt.Errorf("open an in-memory Turso database: %w", err)
	}
	defer c.Close()
	row, err := sqlnotes.QueryRow(c, "SELECT sqlite_version()", 1)
	if err != nil {
		return nil, fmt.Errorf("read turso_core's version: %w", err)
	}
	core, ok := row[0].(string)
	if !ok {
		return nil, fmt.Errorf("turso_core's version: sqlite_version() returned %T, want a string", row[0])
	}
	v.versions = map[string]string{"turso_core": core}
	return v, nil
}

// ID implements engine.Variant.
func (v *Variant) ID() string { return ID }

// Versions implements engine.Variant: turso_core's version, as its
// sqlite_version() returns it.
func (v *Variant) Versions() map[string]string { return v.versions }

// Create implements engine.Variant: open a new database and commit the
// schema (its own transaction, as an application creating it would).
func (v *Variant) Create(dir string) (engine.Store, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("store directory %s does not exist (turso-go would abort the process): %w", dir, errors.Join(err, errNotDir(fi)))
	}
	s, err := v.open(filepath.Join(dir, FileName))
	if err != nil {
		return nil, err
	}
	if err := sqlnotes.CreateTable(s.Conn); err != nil {
		s.Close()
		return nil, fmt.Errorf("create table: %w", err)
	}
	return s, nil
}

func errNotDir(fi os.FileInfo) error {
	if fi != nil && !fi.IsDir() {
		return errors.New("not a directory")
	}
	return nil
}

// Open implements engine.Variant. It checks first that the database file
// exists: turso-go would create an empty one, or abort the process when
// the directory is missing.
func (v *Variant) Open(dir string) (engine.Store, error) {
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no Turso store here (create the stores first): %w", err)
	}
	return v.open(path)
}

func (v *Variant) open(path string) (*sqlnotes.Store, error) {
	c, err := v.drv.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &sqlnotes.Store{Conn: c}, nil
}
