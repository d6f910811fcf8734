// Package sqlitecapi is SQLite at its C API floor: SQLite's C functions
// called directly through cgo, without a Go driver. It defines none of
// them: the worker links the library that does. In worker-sqlite that is
// the SQLite mattn/go-sqlite3 compiles (variant sqlite_capi, so versions
// and compile options match the sqlite variant); in worker-libsql it is
// libSQL's C library inside rust/libsql-capi (variant libsql_capi, made by
// package libsql).
//
// It makes the calls bench/sqlite_bench.c makes: sqlite3_open_v2, one
// prepared SELECT count(*) (prepare, step, column, finalize) and
// sqlite3_close, each helper below in one cgo call. A store is a directory
// holding notes.db with the sqlite variant's schema; no pragma is set, so
// the journal mode (DELETE) and synchronous (FULL) are SQLite's defaults,
// the same durability as the sqlite variant. docs/engines.md compares the
// floor with the bindings per step.
//
// Under the lean setting (NewLean) SQLite is configured for many open
// stores before the first open (Configure: no lookaside, no bulk page
// allocation, reads through mmap) and every open sets PRAGMA
// cache_size=-64; the sqlite and libsql variants use the same Configure.
//
// With vectors (CreateVectors) the library linked decides the search:
// libSQL's C library has its own (an F32_BLOB column with a DiskANN index,
// sqlnotes.LibSQL: LibSQLIndexDefault under New, LibSQLIndexLean under
// NewLean), which this package finds by the function libsql_libversion,
// declared weak so that it is NULL in SQLite's build. SQLite has none;
// the package linking it names one with WithVectors (package sqlite:
// sqlite-vec, which it registers).
package sqlitecapi

/*
#include "capi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"unsafe"

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

// Variant is SQLite's C API called directly, under the variant id of the
// package that links the library.
type Variant struct {
	id    string
	extra map[string]string
	// pragmas, NUL-terminated, run after every open; nil for none.
	pragmas []byte
	options map[string]string // what lean set (engine.Optioner)
	// vectors is the vector search's statements; nil for none.
	vectors sqlnotes.VectorsFunc
	// sharedVectors is the shared store's (shared.go); nil for none.
	sharedVectors sqlnotes.VectorsFunc
	// prepare, when set, readies the process for stores with embeddings
	// (engine.VectorPreparer): the extension's registration.
	prepare func() error
}

// New returns the variant id; extra versions (the linking library's own)
// are added to SQLite's in Versions. SQLite's process-wide configuration
// is its default (Configure). When the library linked is libSQL's, its
// vector index has libSQL's default options (sqlnotes.LibSQLIndexDefault).
func New(id string, extra map[string]string) (*Variant, error) {
	if err := Configure(false, false); err != nil {
		return nil, err
	}
	v := &Variant{id: id, extra: extra}
	if C.manydb_is_libsql() != 0 {
		v.vectors, v.sharedVectors = libSQLVectors(sqlnotes.LibSQLIndexDefault), libSQLShared(sqlnotes.LibSQLIndexDefault)
	}
	return v, nil
}

// libSQLVectors is libSQL's vector search with the index options given.
func libSQLVectors(options []string) sqlnotes.VectorsFunc {
	return func(dims int) sqlnotes.Vectors { return sqlnotes.LibSQL(dims, options) }
}

// libSQLShared is libSQL's shared store with embeddings, its index made
// with the options given.
func libSQLShared(options []string) sqlnotes.VectorsFunc {
	return func(dims int) sqlnotes.Vectors { return sqlnotes.LibSQLShared(dims, options) }
}

// WithVectors sets v's vector search to the statements of vectors (for
// SQLite, whose vector search is an extension the linking package
// registers), adds extra to its versions (the extension's), sets what
// PrepareVectors calls (the extension's registration), and returns v.
func (v *Variant) WithVectors(vectors sqlnotes.VectorsFunc, extra map[string]string, prepare func() error) *Variant {
	v.vectors, v.prepare = vectors, prepare
	versions := make(map[string]string, len(v.extra)+len(extra))
	maps.Copy(versions, v.extra)
	maps.Copy(versions, extra)
	v.extra = versions
	return v
}

// NewLean returns the variant id under the lean setting: SQLite configured
// for many open stores (Configure, with bulk for a library whose
// connections have their own page caches) and sqlnotes.LeanPragma run
// after every open. When the library linked is libSQL's, its vector index
// has the lean options (sqlnotes.LibSQLIndexLean), recorded in Options.
func NewLean(id string, extra map[string]string, bulk bool) (*Variant, error) {
	if err := Configure(true, bulk); err != nil {
		return nil, err
	}
	v := &Variant{id: id, extra: extra, pragmas: append([]byte(sqlnotes.LeanPragma), 0), options: sqlnotes.LeanConfig(bulk)}
	if C.manydb_is_libsql() != 0 {
		v.vectors, v.sharedVectors = libSQLVectors(sqlnotes.LibSQLIndexLean), libSQLShared(sqlnotes.LibSQLIndexLean)
		v.options[sqlnotes.LibSQLIndexOption] = sqlnotes.LibSQLOptionValue(sqlnotes.LibSQLIndexLean)
	}
	return v, nil
}

// Options implements engine.Optioner.
func (v *Variant) Options() map[string]string { return v.options }

// PrepareVectors implements engine.VectorPreparer: it calls what
// WithVectors gave (nothing for libSQL, whose vector search is built in).
func (v *Variant) PrepareVectors() error {
	if v.prepare == nil {
		return nil
	}
	return v.prepare()
}

// VectorOptions implements engine.VectorOptioner: the vector index's
// options among Options (lean's), recorded only with embeddings.
func (v *Variant) VectorOptions() map[string]string { return sqlnotes.LibSQLVectorOptions(v.options) }

// SQLite's compile-time defaults that Configure(false) restores:
// SQLITE_DEFAULT_LOOKASIDE 1200,40 and SQLITE_DEFAULT_PCACHE_INITSZ 20
// (mattn/go-sqlite3 v1.14.53 sqlite3-binding.c, and the same in
// libsql-ffi 0.10.0's sqlite3.c); a negative mmap size is the
// compile-time default (0).
const (
	defaultLookasideSize  = 1200
	defaultLookasideCount = 40
	defaultPcacheInit     = 20
)

// configured is SQLite's process-wide configuration as Configure last
// set it; SQLite starts with its defaults (lean false).
var configured struct {
	sync.Mutex
	lean, bulk bool
}

// Configure sets the process-wide configuration of the SQLite linked into
// the worker, for lean or back to SQLite's defaults, unless it already is:
// sqlite3_shutdown, then sqlite3_config with SQLITE_CONFIG_LOOKASIDE 0,0
// (no lookaside: 48 KB less per connection,
// https://sqlite.org/malloc.html#lookaside), SQLITE_CONFIG_PAGECACHE
// NULL,0,0 when bulk (no bulk allocation of 20 pages at a connection's
// first page; only where each connection has its own page cache, as in
// mattn's build but not libSQL's, which is built with
// SQLITE_ENABLE_MEMORY_MANAGEMENT) and SQLITE_CONFIG_MMAP_SIZE
// sqlnotes.LeanMmapSize, as sqlnotes.LeanConfig names them.
// These can only be set while SQLite is not initialised, and no
// connection of this SQLite may be open: a worker makes its variant
// before it opens any store. The next open initialises SQLite again.
func Configure(lean, bulk bool) error {
	configured.Lock()
	defer configured.Unlock()
	if configuredAs(lean, bulk) {
		return nil
	}
	la, ln, pc, mmap := C.int(defaultLookasideSize), C.int(defaultLookasideCount), C.int(defaultPcacheInit), C.int64_t(-1)
	if lean {
		la, ln, mmap = 0, 0, sqlnotes.LeanMmapSize
		if bulk {
			pc = 0
		}
	}
	if rc := C.manydb_configure(la, ln, pc, mmap); rc != C.MANYDB_SQLITE_OK {
		return fmt.Errorf("configure SQLite for lean=%t (sqlite3_shutdown, sqlite3_config): error %d", lean, rc)
	}
	configured.lean, configured.bulk = lean, bulk
	return nil
}

// IsConfigured says whether SQLite's process-wide configuration is
// already what Configure(lean, bulk) sets, so that it would change nothing.
func IsConfigured(lean, bulk bool) bool {
	configured.Lock()
	defer configured.Unlock()
	return configuredAs(lean, bulk)
}

// configuredAs is IsConfigured with configured locked.
func configuredAs(lean, bulk bool) bool {
	return lean == configured.lean && (!lean || bulk == configured.bulk)
}

// ID implements engine.Variant.
func (v *Variant) ID() string { return v.id }

// Versions implements engine.Variant: the linked library's SQLite version
// and source id, and the extra versions.
func (v *Variant) Versions() map[string]string {
	out := map[string]string{"sqlite": C.GoString(C.sqlite3_libversion()), "sqlite_source_id": C.GoString(C.sqlite3_sourceid())}
	for k, val := range v.extra {
		out[k] = val
	}
	return out
}

// cPath is dir's notes.db as a NUL-terminated string in Go memory (which
// holds no Go pointers, so C may read it during the call).
func cPath(dir string) []byte {
	return append([]byte(filepath.Join(dir, sqlnotes.FileName)), 0)
}

func (v *Variant) open(dir string, create bool) (*store, error) {
	path := cPath(dir)
	var db *C.sqlite3
	cr := C.int(0)
	if create {
		cr = 1
	}
	var pragmas *C.char
	if v.pragmas != nil {
		pragmas = (*C.char)(unsafe.Pointer(&v.pragmas[0]))
	}
	if rc := C.manydb_open((*C.char)(unsafe.Pointer(&path[0])), cr, pragmas, &db); rc != C.MANYDB_SQLITE_OK {
		err := fmt.Errorf("sqlite3_open_v2 %s: %s (%d)", path[:len(path)-1], errmsg(db), rc)
		if db != nil {
			C.sqlite3_close(db)
		}
		return nil, err
	}
	s := &store{db: db, vectors: v.vectors}
	s.Queries = sqlnotes.On(s.prep, sqlnotes.StoreStatements)
	return s, nil
}

func errmsg(db *C.sqlite3) string {
	if db == nil {
		return "out of memory"
	}
	return C.GoString(C.sqlite3_errmsg(db))
}

// Create implements engine.Variant: a new database with the schema
// committed in its own transaction.
func (v *Variant) Create(dir string) (engine.Store, error) {
	s, err := v.open(dir, true)
	if err != nil {
		return nil, err
	}
	if err := s.exec(sqlnotes.Schema); err != nil {
		s.Close()
		return nil, fmt.Errorf("create table: %w", err)
	}
	return s, nil
}

// CreateVectors implements engine.VectorVariant: a new database with the
// vector search's schema (sqlnotes.Vectors) committed in one
// transaction.
func (v *Variant) CreateVectors(dir string, dims int) (engine.Store, error) {
	if v.vectors == nil {
		return nil, fmt.Errorf("%s has no vector search: the library linked is not libSQL's, and no extension was given (WithVectors)", v.id)
	}
	s, err := v.open(dir, true)
	if err != nil {
		return nil, err
	}
	vec := v.vectors(dims)
	if err := s.inTx(func() error {
		for _, q := range vec.Schema {
			if err := s.exec(q); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		s.Close()
		return nil, fmt.Errorf("create the store with vectors: %w", err)
	}
	return s, nil
}

// VectorSearch implements engine.VectorVariant; its Method is empty when
// the variant has no vector search.
func (v *Variant) VectorSearch() engine.VectorSearch {
	if v.vectors == nil {
		return engine.VectorSearch{}
	}
	return v.vectors.Search()
}

// Open implements engine.Variant. A missing file is an error, not a new
// database.
func (v *Variant) Open(dir string) (engine.Store, error) {
	s, err := v.open(dir, false)
	if err != nil {
		return nil, err
	}
	return s, nil
}

type store struct {
	sqlnotes.Queries
	db      *C.sqlite3
	vectors sqlnotes.VectorsFunc // nil for none
	vec     sqlnotes.Vectors     // vectors(dims) for the dims last seen
	dims    int
	blob    []byte  // the embedding being bound
	ids     []int64 // a knn answer
}

func (s *store) exec(sql string) error {
	q := C.CString(sql)
	defer C.free(unsafe.Pointer(q))
	if rc := C.sqlite3_exec(s.db, q, nil, nil, nil); rc != C.MANYDB_SQLITE_OK {
		return fmt.Errorf("%s: %s (%d)", sql, errmsg(s.db), rc)
	}
	return nil
}

// queryInt runs sql and returns the first column of its first row (for
// tests: the pragmas in effect).
func (s *store) queryInt(sql string) (int64, error) {
	q := C.CString(sql)
	defer C.free(unsafe.Pointer(q))
	var n C.int64_t
	if rc := C.manydb_int(s.db, q, &n); rc != C.MANYDB_SQLITE_OK {
		return 0, fmt.Errorf("%s: %s (%d)", sql, errmsg(s.db), rc)
	}
	return int64(n), nil
}

// lookasideHits is how many allocations the connection's lookaside
// served (sqlite3_db_status SQLITE_DBSTATUS_LOOKASIDE_HIT, its highwater):
// 0 without lookaside.
func (s *store) lookasideHits() int { return int(C.manydb_lookaside_hits(s.db)) }

// Insert writes all notes between BEGIN and COMMIT with one prepared
// statement; notes with embeddings through insertVectors.
func (s *store) Insert(notes []workload.Note) (err error) {
	if len(notes) > 0 && notes[0].Emb != nil {
		return s.insertVectors(notes)
	}
	if err := s.exec("BEGIN"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			s.exec("ROLLBACK")
		}
	}()
	q := C.CString(sqlnotes.InsertSQL)
	defer C.free(unsafe.Pointer(q))
	var st *C.sqlite3_stmt
	if rc := C.sqlite3_prepare_v2(s.db, q, -1, &st, nil); rc != C.MANYDB_SQLITE_OK {
		return fmt.Errorf("prepare insert: %s (%d)", errmsg(s.db), rc)
	}
	for _, n := range notes {
		text := unsafe.StringData(n.Text)
		if rc := C.manydb_insert_one(st, C.int64_t(n.ID), (*C.char)(unsafe.Pointer(text)), C.int(len(n.Text)), C.int64_t(n.Ts)); rc != C.MANYDB_SQLITE_OK {
			err := fmt.Errorf("insert note %d: %s (%d)", n.ID, errmsg(s.db), rc)
			C.sqlite3_finalize(st)
			return err
		}
	}
	if rc := C.sqlite3_finalize(st); rc != C.MANYDB_SQLITE_OK {
		return fmt.Errorf("finalize insert: %s (%d)", errmsg(s.db), rc)
	}
	return s.exec("COMMIT")
}

// Count runs SELECT count(*) FROM notes: prepare, step, column, finalize.
func (s *store) Count() (int64, error) {
	var n C.int64_t
	if rc := C.manydb_count(s.db, &n); rc != C.MANYDB_SQLITE_OK {
		return 0, fmt.Errorf("count: %s (%d)", errmsg(s.db), rc)
	}
	return int64(n), nil
}

// Close closes the database handle (sqlite3_close).
func (s *store) Close() error {
	if s.db == nil {
		return errors.New("store closed twice")
	}
	rc := C.sqlite3_close(s.db)
	s.db = nil
	if rc != C.MANYDB_SQLITE_OK {
		return fmt.Errorf("sqlite3_close: %d", rc)
	}
	return nil
}

// stmt is a prepared statement returning rows of id, text, ts.
type stmt struct {
	s  *store
	st *C.sqlite3_stmt
}

func (s *store) prepare(sql string) (*stmt, error) {
	q := C.CString(sql)
	defer C.free(unsafe.Pointer(q))
	var st *C.sqlite3_stmt
	if rc := C.manydb_prepare(s.db, q, &st); rc != C.MANYDB_SQLITE_OK {
		return nil, fmt.Errorf("prepare %s: %s (%d)", sql, errmsg(s.db), rc)
	}
	return &stmt{s, st}, nil
}

// Rows implements sqlnotes.Stmt.
func (q *stmt) Rows(bind bool, arg int64, fn func(workload.Note)) (int, error) {
	if bind {
		if rc := C.manydb_rebind(q.st, C.int64_t(arg)); rc != C.MANYDB_SQLITE_OK {
			return 0, fmt.Errorf("bind: %s (%d)", errmsg(q.s.db), rc)
		}
	}
	var id, ts C.int64_t
	var text *C.char
	var n C.int
	rows := 0
	for {
		switch rc := C.manydb_step_note(q.st, &id, &text, &n, &ts); rc {
		case C.MANYDB_SQLITE_ROW:
			fn(workload.Note{ID: int64(id), Text: C.GoStringN(text, n), Ts: int64(ts)})
			rows++
		case C.MANYDB_SQLITE_DONE:
			return rows, nil
		default:
			return rows, fmt.Errorf("step: %s (%d)", errmsg(q.s.db), rc)
		}
	}
}

// Close implements sqlnotes.Stmt.
func (q *stmt) Close() error {
	if rc := C.sqlite3_finalize(q.st); rc != C.MANYDB_SQLITE_OK {
		return fmt.Errorf("finalize: %s (%d)", errmsg(q.s.db), rc)
	}
	return nil
}

func (s *store) prep(sql string) (sqlnotes.Stmt, error) { return s.prepare(sql) }

// Append implements engine.Store: one autocommitted insert, prepared,
// bound, stepped and finalized; a note with an embedding through
// insertVectors, in its own transaction.
func (s *store) Append(n workload.Note) error {
	if n.Emb != nil {
		return s.insertVectors([]workload.Note{n})
	}
	q, err := s.prepare(sqlnotes.InsertSQL)
	if err != nil {
		return err
	}
	text := unsafe.StringData(n.Text)
	if rc := C.manydb_insert_one(q.st, C.int64_t(n.ID), (*C.char)(unsafe.Pointer(text)), C.int(len(n.Text)), C.int64_t(n.Ts)); rc != C.MANYDB_SQLITE_OK {
		err = fmt.Errorf("insert note %d: %s (%d)", n.ID, errmsg(s.db), rc)
	}
	return errors.Join(err, q.Close())
}

// statements returns the vector search's statements for dims, made once
// per dims.
func (s *store) statements(dims int) (*sqlnotes.Vectors, error) {
	if s.vectors == nil {
		return nil, errors.New("this variant has no vector search")
	}
	if s.vec.KNNSQL == "" || s.dims != dims {
		s.vec, s.dims = s.vectors(dims), dims
	}
	return &s.vec, nil
}

// inTx runs fn between BEGIN and COMMIT, rolling back when it fails.
func (s *store) inTx(fn func() error) error {
	if err := s.exec("BEGIN"); err != nil {
		return err
	}
	if err := fn(); err != nil {
		return errors.Join(err, s.exec("ROLLBACK"))
	}
	return s.exec("COMMIT")
}

// insertVectors writes notes with their embeddings in one transaction,
// with the vector search's insert (and its vector table's, if it has
// one) prepared once.
func (s *store) insertVectors(notes []workload.Note) error {
	vec, err := s.statements(len(notes[0].Emb))
	if err != nil {
		return err
	}
	return s.inTx(func() (err error) {
		ins, err := s.prepare(vec.InsertSQL)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, ins.Close()) }()
		var vins *stmt
		if vec.VecInsertSQL != "" {
			if vins, err = s.prepare(vec.VecInsertSQL); err != nil {
				return err
			}
			defer func() { err = errors.Join(err, vins.Close()) }()
		}
		for _, n := range notes {
			if len(n.Emb) != s.dims {
				return fmt.Errorf("note %d: an embedding of %d values, want %d", n.ID, len(n.Emb), s.dims)
			}
			s.blob = vector.AppendBlob(s.blob[:0], n.Emb)
			blob, size := unsafe.Pointer(&s.blob[0]), C.int(len(s.blob))
			text := (*C.char)(unsafe.Pointer(unsafe.StringData(n.Text)))
			emb := blob
			if !vec.EmbInNotes {
				emb = nil
			}
			if rc := C.manydb_insert_emb(ins.st, C.int64_t(n.ID), text, C.int(len(n.Text)), C.int64_t(n.Ts), emb, size, 4); rc != C.MANYDB_SQLITE_OK {
				return fmt.Errorf("insert note %d: %s (%d)", n.ID, errmsg(s.db), rc)
			}
			if vins != nil {
				if rc := C.manydb_insert_vec(vins.st, C.int64_t(n.ID), blob, size); rc != C.MANYDB_SQLITE_OK {
					return fmt.Errorf("insert note %d's embedding: %s (%d)", n.ID, errmsg(s.db), rc)
				}
			}
		}
		return nil
	})
}

// KNN implements engine.VectorStore: the vector search's knn query,
// prepared, bound with the query's blob and k, stepped to the end and
// finalized.
func (s *store) KNN(q []float32, k int, dst []int64) ([]int64, error) {
	vec, err := s.statements(len(q))
	if err != nil {
		return dst, err
	}
	if vec.ScanInGo || len(q) == 0 || k < 1 {
		return dst, fmt.Errorf("knn of %d values, k %d: not a query of this package's searches", len(q), k)
	}
	st, err := s.prepare(vec.KNNSQL)
	if err != nil {
		return dst, err
	}
	s.blob = vector.AppendBlob(s.blob[:0], q)
	s.ids = slices.Grow(s.ids[:0], k)[:k]
	var n C.int
	if rc := C.manydb_knn(st.st, unsafe.Pointer(&s.blob[0]), C.int(len(s.blob)), C.int(k), (*C.int64_t)(unsafe.Pointer(&s.ids[0])), &n); rc != C.MANYDB_SQLITE_OK {
		err = fmt.Errorf("knn: %s (%d)", errmsg(s.db), rc)
	}
	return append(dst, s.ids[:n]...), errors.Join(err, st.Close())
}
