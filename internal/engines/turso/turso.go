//go:build turso

package turso

/*
#cgo CFLAGS: -I${SRCDIR}/../../../rust/turso-capi/include
#cgo LDFLAGS: -L${SRCDIR}/../../../third_party/turso-capi/target/release -lmanydb_turso_capi -ldl -lgcc_s -lutil -lrt -lpthread -lm
#include <stdlib.h>
#include "manydb_turso.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/workload"
)

// The interfaces this package implements.
var (
	_ engine.Variant = (*Variant)(nil)
	_ engine.Store   = (*store)(nil)
)

// FileName is the database file inside a store's directory; Turso keeps
// its write-ahead log next to it in FileName + "-wal".
const FileName = sqlnotes.FileName

const schema = sqlnotes.Schema

// Factories lists the two Turso variants for worker-turso.
func Factories() []engine.Factory {
	return []engine.Factory{{ID: IDTurso, New: New}, {ID: IDCheckpoint, New: NewCheckpoint}}
}

// Variant is the turso or turso_ckpt variant.
type Variant struct {
	checkpoint bool // checkpoint the WAL before closing
}

// New returns the turso variant.
func New() (engine.Variant, error) { return &Variant{}, nil }

// NewCheckpoint returns the turso_ckpt variant.
func NewCheckpoint() (engine.Variant, error) { return &Variant{checkpoint: true}, nil }

// ID implements engine.Variant.
func (v *Variant) ID() string {
	if v.checkpoint {
		return IDCheckpoint
	}
	return IDTurso
}

// Versions implements engine.Variant: the Turso crates and the Rust
// toolchain the library was built with.
func (v *Variant) Versions() map[string]string {
	return map[string]string{
		"turso_core":    C.GoString(C.mt_core_version()),
		"turso_sdk_kit": C.GoString(C.mt_version()),
		"rustc":         strings.TrimPrefix(C.GoString(C.mt_rustc_version()), "rustc "), // "1.95.0 (59807616e 2026-04-14)"
	}
}

// Create implements engine.Variant: open a new database in dir and
// commit the schema (its own transaction).
func (v *Variant) Create(dir string) (engine.Store, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("turso: store directory: %w (the harness creates it before Create)", err)
	}
	s, err := open(filepath.Join(dir, FileName), v.checkpoint)
	if err != nil {
		return nil, err
	}
	if err := s.exec(schema); err != nil {
		s.Close()
		return nil, fmt.Errorf("create table: %w", err)
	}
	return s, nil
}

// Open implements engine.Variant. Turso would create a missing database,
// so a store without notes.db is an error here.
func (v *Variant) Open(dir string) (engine.Store, error) {
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("turso: %w (create the stores first)", err)
	}
	return open(path, v.checkpoint)
}

// store is one open store. Open cannot tell a store with embeddings from
// one without: a note with an embedding is written with it by the vector
// search's statements (vectors.go), which need a store made by
// CreateVectors; a note without one is written as without vectors, so a
// store made by Create runs the same calls as before.
type store struct {
	sqlnotes.Queries
	s          *C.MtStore
	checkpoint bool
	vec        vecSQL // the vector search's statements, made at first use
	blob       []byte // embeddings being bound
}

// cError turns an error string from the library into a Go error and
// frees it.
func cError(op string, msg *C.char) error {
	if msg == nil {
		return fmt.Errorf("turso: %s failed without a message", op)
	}
	defer C.mt_free_error(msg)
	return fmt.Errorf("turso: %s: %s", op, C.GoString(msg))
}

func open(path string, checkpoint bool) (*store, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var s *C.MtStore
	var msg *C.char
	if C.mt_open(cpath, &s, &msg) != 0 {
		return nil, cError("open", msg)
	}
	st := &store{s: s, checkpoint: checkpoint}
	st.Queries = sqlnotes.On(st.prep, sqlnotes.StoreStatements)
	return st, nil
}

func (s *store) exec(sql string) error {
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	var msg *C.char
	if C.mt_exec(s.s, csql, &msg) != 0 {
		return cError("exec", msg)
	}
	return nil
}

// Insert writes all notes in one transaction with one prepared statement
// (in one call to the library: ids, timestamps, text lengths and the
// texts one after another); notes with embeddings through insertVectors.
func (s *store) Insert(notes []workload.Note) error {
	return sqlnotes.InsertColumns(notes, s.insertVectors, s.insertColumns)
}

// insertColumns is mt_insert_notes: the notes as sqlnotes.Columns lays
// them out, written in one call.
func (s *store) insertColumns(ids, ts, lens []int64, text []byte) error {
	var msg *C.char
	if C.mt_insert_notes(s.s, C.size_t(len(ids)),
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
	if C.mt_count(s.s, &n, &msg) != 0 {
		return 0, cError("count", msg)
	}
	return int64(n), nil
}

// Close closes the connection and the database, for turso_ckpt after
// checkpointing the WAL.
func (s *store) Close() error {
	if s.s == nil {
		return errors.New("turso: store closed twice")
	}
	var ckErr error
	var msg *C.char
	if s.checkpoint && C.mt_checkpoint(s.s, &msg) != 0 {
		ckErr = cError("checkpoint", msg)
		msg = nil
	}
	rc := C.mt_close(s.s, &msg)
	s.s = nil
	if rc != 0 {
		return errors.Join(ckErr, cError("close", msg))
	}
	return ckErr
}
