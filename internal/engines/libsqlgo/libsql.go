// Package libsqlgo is manydb's adapter for libSQL through
// github.com/tursodatabase/go-libsql (cgo, with the static library that
// ships in the Go module), as Go users get it today. Variant id: libsql_go.
// libSQL defines SQLite's sqlite3_* symbols, so it has a worker of its own
// (cmd/worker-libsql-go).
//
// Open is the driver's OpenConnector("file:…") then Connect; Close closes
// the connection, then the connector. Neither database/sql (lazy, pooled)
// nor the driver's Open (it never closes its connector) is used. A store is
// a directory holding notes.db. The library closes every connection twice,
// on a thread of its own after Close returned; closeguard.go skips the
// repeat and counts the closes, so that a change of SQLite's
// configuration waits for them (configure; docs/engines.md says why and
// how).
//
// Under the lean setting (NewLean) the library's SQLite is configured for
// many open stores before the variant's first open (sqlitecapi.Configure:
// go-libsql's static library exports SQLite's C API, sqlite3_config
// included) and every open executes PRAGMA cache_size=-64.
//
// With vectors (CreateVectors) a store uses libSQL's own vector search,
// which the static library has although its SQLite base is older
// (3.45.1): an F32_BLOB column with a DiskANN index (sqlnotes.LibSQL),
// made with libSQL's default options (sqlnotes.LibSQLIndexDefault), or
// the lean ones under the lean setting (sqlnotes.LibSQLIndexLean,
// recorded in Options).
package libsqlgo

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
	"time"

	golibsql "github.com/tursodatabase/go-libsql"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlitecapi"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// The interfaces this package implements.
var (
	_ engine.Settler       = (*Variant)(nil)
	_ engine.Variant       = (*Variant)(nil)
	_ engine.Optioner      = (*Variant)(nil)
	_ engine.VectorVariant = (*Variant)(nil)
	_ engine.Store         = (*store)(nil)
	_ engine.VectorStore   = (*store)(nil)
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
	options  map[string]string // what lean set
	index    []string          // the options of libSQL's vector index
}

// ID is the variant id.
const ID = "libsql_go"

// Factories lists the variant of this package for its worker.
func Factories() []engine.Factory { return []engine.Factory{{ID: ID, New: New, Lean: NewLean}} }

// New returns the libsql variant. It opens an in-memory database once to
// read the library's SQLite version.
func New() (engine.Variant, error) {
	if err := configure(false); err != nil {
		return nil, err
	}
	return newVariant()
}

// closeWait is how long configure and Settle wait for go-libsql's closes.
const closeWait = 5 * time.Second

// configure sets SQLite's process-wide configuration for lean or back to
// its defaults (sqlitecapi.Configure), waiting first, when that changes
// it, until go-libsql's closes of the connections opened so far have
// returned (waitClosed): a worker configures before its first open, and
// only a process that makes the variant again (a test) has any.
func configure(lean bool) error {
	if !sqlitecapi.IsConfigured(lean, false) {
		if err := waitClosed(closeWait); err != nil {
			return err
		}
	}
	return sqlitecapi.Configure(lean, false)
}

// Settle implements engine.Settler: it waits until go-libsql's closes of
// the stores closed so far have returned (waitClosed).
func (v *Variant) Settle() error { return waitClosed(closeWait) }

// NewLean returns the variant under the lean setting: SQLite configured
// for many open stores (no lookaside, mmap; libSQL shares one page cache
// group between connections, so no bulk to turn off) before its first
// open, and PRAGMA cache_size=-64 after every open.
func NewLean() (engine.Variant, error) {
	if err := configure(true); err != nil {
		return nil, err
	}
	v, err := newVariant()
	if err != nil {
		return nil, err
	}
	v.options = sqlnotes.LeanConfig(false)
	v.index = sqlnotes.LibSQLIndexLean
	v.options[sqlnotes.LibSQLIndexOption] = sqlnotes.LibSQLOptionValue(v.index)
	return v, nil
}

// Options implements engine.Optioner.
func (v *Variant) Options() map[string]string { return v.options }

// VectorOptions implements engine.VectorOptioner: the vector index's
// options among Options (lean's), recorded only with embeddings.
func (v *Variant) VectorOptions() map[string]string { return sqlnotes.LibSQLVectorOptions(v.options) }

func newVariant() (*Variant, error) {
	// The zero Connector only serves to reach the driver without
	// database/sql; go-libsql does not export the driver type.
	var c golibsql.Connector
	drv, ok := c.Driver().(driver.DriverContext)
	if !ok {
		return nil, errors.New("go-libsql's driver has no OpenConnector: this go-libsql version is not supported, use the one in go.mod")
	}
	v := &Variant{drv: drv, index: sqlnotes.LibSQLIndexDefault}
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

// vectors is libSQL's vector search with the variant's index options.
func (v *Variant) vectors(dims int) sqlnotes.Vectors { return sqlnotes.LibSQL(dims, v.index) }

// CreateVectors implements engine.VectorVariant: a new database with the
// notes table, its F32_BLOB(dims) column and libSQL's vector index
// (sqlnotes.LibSQL), committed in one transaction.
func (v *Variant) CreateVectors(dir string, dims int) (engine.Store, error) {
	s, err := v.open(filepath.Join(dir, FileName))
	if err != nil {
		return nil, err
	}
	if err := s.inTx(func() error {
		for _, q := range s.statements(dims).Schema {
			if _, err := s.x.ExecContext(context.Background(), q, nil); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	}); err != nil {
		s.Close()
		return nil, fmt.Errorf("create the store with vectors: %w", err)
	}
	return s, nil
}

// VectorSearch implements engine.VectorVariant.
func (v *Variant) VectorSearch() engine.VectorSearch { return sqlnotes.VectorsFunc(v.vectors).Search() }

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
	s := &store{ctr: ctr, c: c, vectors: v.vectors}
	s.Queries = sqlnotes.On(s.prep, sqlnotes.StoreStatements)
	var ok1, ok2 bool
	s.x, ok1 = c.(driver.ExecerContext)
	s.q, ok2 = c.(driver.QueryerContext)
	if !ok1 || !ok2 {
		s.Close()
		return nil, errors.New("go-libsql's connection has no ExecContext or QueryContext: this go-libsql version is not supported, use the one in go.mod")
	}
	if v.options != nil && path != "" {
		if _, err := s.x.ExecContext(context.Background(), sqlnotes.LeanPragma, nil); err != nil {
			s.Close()
			return nil, fmt.Errorf("%s: %w", sqlnotes.LeanPragma, err)
		}
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
	sqlnotes.Queries
	ctr driver.Connector // the database (libsql_database_t)
	c   driver.Conn      // its one connection (libsql_connection_t)
	x   driver.ExecerContext
	q   driver.QueryerContext

	vectors sqlnotes.VectorsFunc // the variant's
	vec     sqlnotes.Vectors     // vectors(dims) for the dims last seen
	dims    int
	blob    []byte // the embedding being bound
}

// statements returns the vector search's statements for dims, made once
// per dims.
func (s *store) statements(dims int) *sqlnotes.Vectors {
	if s.vec.KNNSQL == "" || s.dims != dims {
		s.vec, s.dims = s.vectors(dims), dims
	}
	return &s.vec
}

// inTx runs fn between BEGIN and COMMIT, rolling back when it fails.
func (s *store) inTx(fn func() error) error {
	ctx := context.Background()
	if _, err := s.x.ExecContext(ctx, "BEGIN", nil); err != nil {
		return err
	}
	if err := fn(); err != nil {
		_, rerr := s.x.ExecContext(ctx, "ROLLBACK", nil)
		return errors.Join(err, rerr)
	}
	_, err := s.x.ExecContext(ctx, "COMMIT", nil)
	return err
}

// insertVectors writes notes with their embeddings (little-endian float32
// blobs) in one transaction, through the vector search's insert.
func (s *store) insertVectors(notes []workload.Note) error {
	vec := s.statements(len(notes[0].Emb))
	if !vec.EmbInNotes || vec.VecInsertSQL != "" {
		return errors.New("libSQL's statements keep the embedding in the notes table")
	}
	return s.inTx(func() error {
		ctx := context.Background()
		args := []driver.NamedValue{{Ordinal: 1}, {Ordinal: 2}, {Ordinal: 3}, {Ordinal: 4}}
		for _, n := range notes {
			if len(n.Emb) != s.dims {
				return fmt.Errorf("note %d: an embedding of %d values, want %d", n.ID, len(n.Emb), s.dims)
			}
			s.blob = vector.AppendBlob(s.blob[:0], n.Emb)
			args[0].Value, args[1].Value, args[2].Value, args[3].Value = n.ID, n.Text, n.Ts, s.blob
			if _, err := s.x.ExecContext(ctx, vec.InsertSQL, args); err != nil {
				return fmt.Errorf("insert note %d: %w", n.ID, err)
			}
		}
		return nil
	})
}

// KNN implements engine.VectorStore: libSQL's knn query (vector_top_k)
// with the query's blob and k.
func (s *store) KNN(q []float32, k int, dst []int64) ([]int64, error) {
	vec := s.statements(len(q))
	s.blob = vector.AppendBlob(s.blob[:0], q)
	args := []driver.NamedValue{{Ordinal: 1, Value: s.blob}, {Ordinal: 2, Value: int64(k)}}
	rows, err := s.q.QueryContext(context.Background(), vec.KNNSQL, args)
	if err != nil {
		return dst, fmt.Errorf("%s: %w", vec.KNNSQL, err)
	}
	dst, err = sqlnotes.IDs(rows, dst)
	return dst, errors.Join(err, rows.Close())
}

// Insert writes all notes in one transaction; notes with embeddings
// through insertVectors. The arguments are passed with 1-based ordinals,
// as database/sql does: go-libsql binds Ordinal as the SQLite parameter
// index (its Stmt.Exec passes 0-based ones).
func (s *store) Insert(notes []workload.Note) (err error) {
	if len(notes) > 0 && notes[0].Emb != nil {
		return s.insertVectors(notes)
	}
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

// query is a statement of go-libsql, whose API has no statement to
// keep: each run of it prepares it again (the connection's
// QueryContext).
type query struct {
	s   *store
	sql string
}

// prep implements sqlnotes.Preparer: nothing to prepare ahead.
func (s *store) prep(sql string) (sqlnotes.Stmt, error) { return query{s, sql}, nil }

// Rows implements sqlnotes.Stmt: the connection's QueryContext with arg
// (when bound) as its one argument.
func (q query) Rows(bind bool, arg int64, fn func(workload.Note)) (int, error) {
	var args []driver.NamedValue
	if bind {
		args = []driver.NamedValue{{Ordinal: 1, Value: arg}}
	}
	rows, err := q.s.q.QueryContext(context.Background(), q.sql, args)
	if err != nil {
		return 0, err
	}
	return sqlnotes.Rows(rows, fn)
}

// Close implements sqlnotes.Stmt: nothing to finalize.
func (q query) Close() error { return nil }

// Append implements engine.Store: one autocommitted insert; a note with
// an embedding through insertVectors, in its own transaction.
func (s *store) Append(n workload.Note) error {
	if n.Emb != nil {
		return s.insertVectors([]workload.Note{n})
	}
	args := []driver.NamedValue{{Ordinal: 1, Value: n.ID}, {Ordinal: 2, Value: n.Text}, {Ordinal: 3, Value: n.Ts}}
	_, err := s.x.ExecContext(context.Background(), insertSQL, args)
	return err
}
