// Package tursogo is manydb's adapter for Turso Database through
// github.com/tursodatabase/turso-go, which loads a Rust library embedded in
// the Go module with purego (no cgo). Variant id: turso_go. It uses the
// driver's connection directly (sqlnotes.Store and VectorStore), not
// database/sql. A store is a directory holding notes.db and notes.db-wal.
// turso-go aborts the process on a missing directory and creates a
// missing file, so Create and Open check the path first. docs/engines.md
// has the details.
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

// Variant is an engine.Variant; Create returns a sqlnotes.Store, Open and
// CreateVectors a sqlnotes.VectorStore.
var (
	_ engine.Variant       = (*Variant)(nil)
	_ engine.VectorVariant = (*Variant)(nil)
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
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	s, err := v.open(filepath.Join(dir, FileName))
	if err != nil {
		return nil, err
	}
	return sqlnotes.Create(s.Conn)
}

// checkDir fails unless dir is a directory: turso-go would abort the
// process.
func checkDir(dir string) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("store directory %s does not exist (turso-go would abort the process): %w", dir, errors.Join(err, errNotDir(fi)))
	}
	return nil
}

func errNotDir(fi os.FileInfo) error {
	if fi != nil && !fi.IsDir() {
		return errors.New("not a directory")
	}
	return nil
}

// vectors is turso_core's vector functions: the embedding as a blob, an
// exact scan ordered by vector_distance_cos (sqlnotes.Turso).
func vectors(int) sqlnotes.Vectors { return sqlnotes.Turso() }

// CreateVectors implements engine.VectorVariant: Create with an emb
// column of type BLOB (sqlnotes.Turso).
func (v *Variant) CreateVectors(dir string, dims int) (engine.Store, error) {
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	s, err := v.open(filepath.Join(dir, FileName))
	if err != nil {
		return nil, err
	}
	return sqlnotes.CreateVectors(s.Conn, dims, vectors)
}

// VectorSearch implements engine.VectorVariant.
func (v *Variant) VectorSearch() engine.VectorSearch { return sqlnotes.VectorsFunc(vectors).Search() }

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

// open returns a sqlnotes.VectorStore: it writes and searches embeddings
// when its notes have them, and otherwise runs sqlnotes.Store's
// statements.
func (v *Variant) open(path string) (*sqlnotes.VectorStore, error) {
	c, err := v.drv.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &sqlnotes.VectorStore{Store: sqlnotes.NewStore(c), Vectors: vectors}, nil
}
