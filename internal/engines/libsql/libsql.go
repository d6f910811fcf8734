//go:build libsql

package libsql

/*
#cgo CFLAGS: -I${SRCDIR}/../../../rust/libsql-capi/include
#cgo LDFLAGS: -L${SRCDIR}/../../../third_party/libsql-capi/target/release -lmanydb_libsql_capi -ldl -lgcc_s -lutil -lrt -lpthread -lm
#include <stdlib.h>
#include "manydb_libsql.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unsafe"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlitecapi"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/workload"
)

// The interfaces this package implements.
var (
	_ engine.Variant  = (*Variant)(nil)
	_ engine.Optioner = (*Variant)(nil)
	_ engine.Store    = (*store)(nil)
)

// Factories lists the libsql variants for worker-libsql: the SDK and, on
// the same library, the C API floor (with the crates' versions too).
func Factories() []engine.Factory {
	// libSQL is built with SQLITE_ENABLE_MEMORY_MANAGEMENT (libsql-ffi
	// 0.10.0 build.rs): one page cache group for all connections, no bulk
	// page allocation per connection to turn off.
	return []engine.Factory{{ID: ID, New: New, Lean: NewLean},
		{ID: IDCapi, New: func() (engine.Variant, error) { return sqlitecapi.New(IDCapi, sdkVersions()) },
			Lean: func() (engine.Variant, error) { return sqlitecapi.NewLean(IDCapi, sdkVersions(), false) }}}
}

// Variant is the libsql variant.
type Variant struct {
	options map[string]string // what lean set
	// vectors is the vector search (CreateVectors): libSQL's index with
	// its default options, or under lean the lean ones.
	vectors sqlnotes.VectorsFunc
}

// New returns the libsql variant, SQLite's process-wide configuration its
// default, and with vectors libSQL's vector index with its default
// options (sqlnotes.LibSQLIndexDefault).
func New() (engine.Variant, error) {
	if err := sqlitecapi.Configure(false, false); err != nil {
		return nil, err
	}
	return &Variant{vectors: vectorsWith(sqlnotes.LibSQLIndexDefault)}, nil
}

// NewLean returns the libsql variant under the lean setting: libSQL's
// SQLite configured for many open stores before the crate's first open
// (sqlitecapi.Configure: no lookaside, mmap; the crate then configures
// SQLITE_CONFIG_SERIALIZED and initialises it, local/database.rs) and
// PRAGMA cache_size=-64 executed after every open. With vectors, the
// vector index has the lean options (sqlnotes.LibSQLIndexLean), recorded
// in Options.
func NewLean() (engine.Variant, error) {
	if err := sqlitecapi.Configure(true, false); err != nil {
		return nil, err
	}
	options := sqlnotes.LeanConfig(false)
	options[sqlnotes.LibSQLIndexOption] = sqlnotes.LibSQLOptionValue(sqlnotes.LibSQLIndexLean)
	return &Variant{options: options, vectors: vectorsWith(sqlnotes.LibSQLIndexLean)}, nil
}

// Options implements engine.Optioner.
func (v *Variant) Options() map[string]string { return v.options }

// VectorOptions implements engine.VectorOptioner: the vector index's
// options among Options (lean's), recorded only with embeddings.
func (v *Variant) VectorOptions() map[string]string { return sqlnotes.LibSQLVectorOptions(v.options) }

// ID implements engine.Variant.
func (v *Variant) ID() string { return ID }

// Versions implements engine.Variant: the crates' versions, SQLite's and
// libSQL's C library versions and rustc's, as the library reports them.
func (v *Variant) Versions() map[string]string { return sdkVersions() }

func sdkVersions() map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(C.GoString(C.manydb_libsql_versions()), "\n") {
		if k, val, ok := strings.Cut(line, "="); ok {
			out[k] = val
		}
	}
	return out
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

// Open implements engine.Variant. A missing notes.db is an error (the
// library opens without SQLite's create flag).
func (v *Variant) Open(dir string) (engine.Store, error) { return v.open(dir, false) }

// store is one open store. Open cannot tell a store with embeddings from
// one without: a note with an embedding is written with it by the vector
// search's statements, which must then be those the store was made with
// (CreateVectors); a note without one is written as without vectors, so
// a store made by Create runs the same calls as before.
type store struct {
	sqlnotes.Queries
	s       *C.ManydbLibsqlStore
	vectors sqlnotes.VectorsFunc
	vec     vecSQL // vectors' statements for the dims last seen
	blob    []byte // embeddings being bound
}

// cError turns an error string from the library into a Go error and
// frees it.
func cError(op string, msg *C.char) error {
	if msg == nil {
		return fmt.Errorf("libsql: %s failed without a message", op)
	}
	defer C.manydb_libsql_free_error(msg)
	return fmt.Errorf("libsql: %s: %s", op, C.GoString(msg))
}

// open opens the store in dir and, under lean, sets its page cache.
func (v *Variant) open(dir string, create bool) (*store, error) {
	s, err := open(dir, create)
	if err != nil {
		return nil, err
	}
	s.vectors = v.vectors
	if v.options == nil {
		return s, nil
	}
	if err := s.exec(sqlnotes.LeanPragma); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func open(dir string, create bool) (*store, error) {
	path := append([]byte(filepath.Join(dir, sqlnotes.FileName)), 0) // Go memory without Go pointers
	cr := C.int(0)
	if create {
		cr = 1
	}
	var s *C.ManydbLibsqlStore
	var msg *C.char
	if C.manydb_libsql_open((*C.char)(unsafe.Pointer(&path[0])), cr, &s, &msg) != 0 {
		return nil, cError("open", msg)
	}
	st := &store{s: s}
	st.Queries = sqlnotes.On(st.prep, sqlnotes.StoreStatements)
	return st, nil
}

func (s *store) exec(sql string) error {
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	var msg *C.char
	if C.manydb_libsql_exec(s.s, csql, &msg) != 0 {
		return cError("exec", msg)
	}
	return nil
}

// Insert writes all notes in one transaction with one prepared statement,
// in one call to the library: ids, timestamps, text lengths and the texts
// one after another; notes with embeddings through insertVectors.
func (s *store) Insert(notes []workload.Note) error {
	return sqlnotes.InsertColumns(notes, s.insertVectors, s.insertColumns)
}

// insertColumns is manydb_libsql_insert_notes: the notes as sqlnotes.Columns lays
// them out, written in one call.
func (s *store) insertColumns(ids, ts, lens []int64, text []byte) error {
	var msg *C.char
	if C.manydb_libsql_insert_notes(s.s, C.size_t(len(ids)),
		(*C.int64_t)(unsafe.Pointer(&ids[0])), (*C.int64_t)(unsafe.Pointer(&ts[0])),
		(*C.int64_t)(unsafe.Pointer(&lens[0])), (*C.uint8_t)(unsafe.Pointer(&text[0])), &msg) != 0 {
		return cError("insert", msg)
	}
	return nil
}

// Count runs SELECT count(*) FROM notes.
func (s *store) Count() (int64, error) {
	var n C.int64_t
	var msg *C.char
	if C.manydb_libsql_count(s.s, &n, &msg) != 0 {
		return 0, cError("count", msg)
	}
	return int64(n), nil
}

// Close closes the connection on the calling thread.
func (s *store) Close() error {
	if s.s == nil {
		return errors.New("libsql: store closed twice")
	}
	var msg *C.char
	rc := C.manydb_libsql_close(s.s, &msg)
	s.s = nil
	if rc != 0 {
		return cError("close", msg)
	}
	return nil
}
