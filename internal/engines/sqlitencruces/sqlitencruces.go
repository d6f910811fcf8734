// Package sqlitencruces is manydb's adapter for SQLite through
// github.com/ncruces/go-sqlite3 (SQLite's Wasm build translated to Go, no
// cgo), through the module's own API, not database/sql. Variant id:
// sqlite_ncruces. It runs the sqlite variant's statements and pragmas on
// one file, notes.db; docs/engines.md says how the module runs SQLite.
//
// Under the lean setting (NewLean) every open adds
// _pragma=cache_size(-64) and _pragma=mmap_size(67108864) to its URI.
// Lookaside cannot be turned off: the module has no sqlite3_config, and
// Conn.Config sets boolean DBCONFIGs only (SQLITE_DBCONFIG_LOOKASIDE is
// left out of its constants, const.go); SQLite is built into the module.
//
// With vectors (CreateVectors) the embeddings are blobs and the knn an
// exact scan in Go (sqlnotes.ScanInGo): the module's SQLite is Wasm
// translated to Go and cannot load sqlite-vec's C, and the sqlite-vec
// bindings' package for this module (its ncruces package, v0.1.6) sets
// sqlite3.Binary, which v0.37.0 of the module no longer has.
package sqlitencruces

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/ncruces/go-sqlite3"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// The interfaces this package implements.
var (
	_ engine.Variant       = (*Variant)(nil)
	_ engine.Optioner      = (*Variant)(nil)
	_ engine.VectorVariant = (*Variant)(nil)
	_ engine.Store         = (*store)(nil)
	_ engine.VectorStore   = (*store)(nil)
)

// FileName is the database file inside a store's directory.
const FileName = sqlnotes.FileName

const (
	schema = sqlnotes.Schema
	params = "?_pragma=busy_timeout(5000)&_pragma=synchronous(FULL)"
	flags  = sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE | sqlite3.OPEN_URI
)

// leanParams are lean's pragmas, added to params.
var leanParams = "&_pragma=cache_size(" + sqlnotes.LeanCacheSize + ")&_pragma=mmap_size(" + strconv.Itoa(sqlnotes.LeanMmapSize) + ")"

// Variant is the sqlite_ncruces variant.
type Variant struct {
	versions map[string]string
	params   string            // the URI's parameters
	options  map[string]string // what lean set
}

// ID is the variant id.
const ID = "sqlite_ncruces"

// Factories lists the variant of this package for its worker.
func Factories() []engine.Factory { return []engine.Factory{{ID: ID, New: New, Lean: NewLean}} }

// New returns the sqlite_ncruces variant, after reading the SQLite
// version from an in-memory database.
func New() (engine.Variant, error) { return newVariant(params, nil) }

// NewLean returns the variant under the lean setting: lean's page cache
// and mmap size through the URI's pragmas on every open.
func NewLean() (engine.Variant, error) {
	return newVariant(params+leanParams, map[string]string{
		"PRAGMA cache_size": sqlnotes.LeanCacheSize,
		"PRAGMA mmap_size":  strconv.Itoa(sqlnotes.LeanMmapSize),
	})
}

// Options implements engine.Optioner.
func (v *Variant) Options() map[string]string { return v.options }

func newVariant(params string, options map[string]string) (engine.Variant, error) {
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
	return &Variant{versions: map[string]string{"sqlite": st.ColumnText(0), "sqlite_source_id": st.ColumnText(1)},
		params: params, options: options}, nil
}

// ID implements engine.Variant.
func (v *Variant) ID() string { return ID }

// Versions implements engine.Variant.
func (v *Variant) Versions() map[string]string { return v.versions }

func (v *Variant) connect(dir string) (*sqlite3.Conn, error) {
	return sqlite3.OpenFlags("file:"+filepath.Join(dir, FileName)+v.params, flags)
}

// Create implements engine.Variant: open a new database and commit the
// schema (its own transaction, as an application creating it would).
func (v *Variant) Create(dir string) (engine.Store, error) {
	c, err := v.connect(dir)
	if err != nil {
		return nil, err
	}
	if err := c.Exec(schema); err != nil {
		c.Close()
		return nil, fmt.Errorf("create table: %w", err)
	}
	return newStore(c), nil
}

// Open implements engine.Variant.
func (v *Variant) Open(dir string) (engine.Store, error) {
	c, err := v.connect(dir)
	if err != nil {
		return nil, err
	}
	return newStore(c), nil
}

// CreateVectors implements engine.VectorVariant: Create with an emb
// column of type BLOB (sqlnotes.ScanInGo), committed in one transaction.
func (v *Variant) CreateVectors(dir string, dims int) (engine.Store, error) {
	c, err := v.connect(dir)
	if err != nil {
		return nil, err
	}
	s := newStore(c)
	if err := s.inTx(func() error {
		for _, q := range s.statements().Schema {
			if err := c.Exec(q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	}); err != nil {
		c.Close()
		return nil, fmt.Errorf("create the store with vectors: %w", err)
	}
	return s, nil
}

// VectorSearch implements engine.VectorVariant.
func (v *Variant) VectorSearch() engine.VectorSearch { return sqlnotes.ScanInGo().Search }

type store struct {
	sqlnotes.Queries
	c *sqlite3.Conn
	// For embeddings: the statements (made at their first use), the blob
	// being bound, an embedding read back and the nearest notes kept.
	vec  *sqlnotes.Vectors
	blob []byte
	emb  []float32
	top  *vector.TopK
	topK int
}

// newStore is the store of connection c.
func newStore(c *sqlite3.Conn) *store {
	s := &store{c: c}
	s.Queries = sqlnotes.On(s.prep, sqlnotes.StoreStatements)
	return s
}

// statements returns sqlnotes.ScanInGo, made once.
func (s *store) statements() *sqlnotes.Vectors {
	if s.vec == nil {
		vec := sqlnotes.ScanInGo()
		s.vec = &vec
	}
	return s.vec
}

// inTx runs fn between BEGIN and COMMIT, rolling back when it fails.
func (s *store) inTx(fn func() error) error {
	if err := s.c.Exec("BEGIN"); err != nil {
		return err
	}
	if err := fn(); err != nil {
		return errors.Join(err, s.c.Exec("ROLLBACK"))
	}
	return s.c.Exec("COMMIT")
}

// insertVectors writes notes with their embeddings in one transaction
// with one prepared statement (sqlnotes.ScanInGo's insert).
func (s *store) insertVectors(notes []workload.Note) error {
	return s.inTx(func() (err error) {
		st, _, err := s.c.Prepare(s.statements().InsertSQL)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, st.Close()) }()
		for _, n := range notes {
			s.blob = vector.AppendBlob(s.blob[:0], n.Emb)
			if err := st.BindBlob(4, s.blob); err != nil {
				return fmt.Errorf("insert note %d: %w", n.ID, err)
			}
			if err := bindExec(st, n); err != nil {
				return fmt.Errorf("insert note %d: %w", n.ID, err)
			}
		}
		return nil
	})
}

// KNN implements engine.VectorStore: every note's id and embedding read
// (sqlnotes.ScanInGo's query) and the k nearest kept in Go.
func (s *store) KNN(q []float32, k int, dst []int64) (_ []int64, err error) {
	st, _, err := s.c.Prepare(s.statements().KNNSQL)
	if err != nil {
		return dst, err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	if s.top == nil || s.topK != k {
		s.top, s.topK = vector.NewTopK(k), k
	}
	s.top.Reset()
	for st.Step() {
		id := st.ColumnInt64(0)
		// The raw blob is SQLite's, valid until the next step.
		if s.emb, err = vector.FromBlob(st.ColumnRawBlob(1), s.emb); err != nil {
			return dst, fmt.Errorf("note %d: %w", id, err)
		}
		if len(s.emb) != len(q) {
			return dst, fmt.Errorf("note %d: an embedding of %d values, the query has %d", id, len(s.emb), len(q))
		}
		s.top.Offer(id, vector.Distance(s.emb, q))
	}
	if err := st.Err(); err != nil {
		return dst, err
	}
	return s.top.AppendIDs(dst), nil
}

// Insert writes all notes in one transaction with one prepared statement;
// notes with embeddings through insertVectors.
func (s *store) Insert(notes []workload.Note) (err error) {
	if len(notes) > 0 && notes[0].Emb != nil {
		return s.insertVectors(notes)
	}
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

// stmt is a prepared statement whose rows are notes.
type stmt struct{ st *sqlite3.Stmt }

// Rows implements sqlnotes.Stmt; it leaves the statement reset.
func (q stmt) Rows(bind bool, arg int64, fn func(workload.Note)) (int, error) {
	if bind {
		if err := q.st.BindInt64(1, arg); err != nil {
			return 0, err
		}
	}
	n := 0
	for q.st.Step() {
		fn(workload.Note{ID: q.st.ColumnInt64(0), Text: q.st.ColumnText(1), Ts: q.st.ColumnInt64(2)})
		n++
	}
	return n, errors.Join(q.st.Err(), q.st.Reset())
}

// Close implements sqlnotes.Stmt.
func (q stmt) Close() error { return q.st.Close() }

func (s *store) prep(sql string) (sqlnotes.Stmt, error) {
	st, _, err := s.c.Prepare(sql)
	if err != nil {
		return nil, err
	}
	return stmt{st}, nil
}

// Append implements engine.Store: one autocommitted insert; a note with
// an embedding through insertVectors, in its own transaction.
func (s *store) Append(n workload.Note) (err error) {
	if n.Emb != nil {
		return s.insertVectors([]workload.Note{n})
	}
	st, _, err := s.c.Prepare(sqlnotes.InsertSQL)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	return bindExec(st, n)
}
