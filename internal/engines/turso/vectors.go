//go:build turso

package turso

/*
#include <stdlib.h>
#include "manydb_turso.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"unsafe"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// The vector interfaces this package implements.
var (
	_ engine.VectorVariant = (*Variant)(nil)
	_ engine.VectorStore   = (*store)(nil)
)

// vectors is Turso's vector search (sqlnotes.Turso): the embedding as a
// blob and an exact scan ordered by vector_distance_cos, since Turso 0.8
// has no dense vector index. It names no dims.
func vectors(int) sqlnotes.Vectors { return sqlnotes.Turso() }

// CreateVectors implements engine.VectorVariant: a new database with
// sqlnotes.Turso's schema (the notes table with an emb column) committed
// in one transaction.
func (v *Variant) CreateVectors(dir string, dims int) (engine.Store, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("turso: store directory: %w (the harness creates it before Create)", err)
	}
	s, err := open(filepath.Join(dir, FileName), v.checkpoint)
	if err != nil {
		return nil, err
	}
	if err := s.inTx(func() error {
		for _, q := range vectors(dims).Schema {
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

// VectorSearch implements engine.VectorVariant: exact.
func (v *Variant) VectorSearch() engine.VectorSearch { return sqlnotes.VectorsFunc(vectors).Search() }

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

// vecSQL is the vector search's statements a store runs, with their SQL
// NUL-terminated for the library (Go memory without Go pointers).
type vecSQL struct {
	insert []byte
	knn    []byte
}

// statements returns the vector search's statements, made once.
func (s *store) statements(dims int) (*vecSQL, error) {
	if s.vec.insert == nil {
		vec := vectors(dims)
		if !vec.EmbInNotes || vec.VecInsertSQL != "" || vec.ScanInGo {
			return nil, fmt.Errorf("turso: the vector statements must keep the embedding in the notes table and search in SQL: %+v", vec)
		}
		s.vec = vecSQL{insert: append([]byte(vec.InsertSQL), 0), knn: append([]byte(vec.KNNSQL), 0)}
	}
	return &s.vec, nil
}

// insertVectors writes notes with their embeddings in one transaction
// with the vector search's insert (insertSQL).
func (s *store) insertVectors(notes []workload.Note) error {
	dims := len(notes[0].Emb)
	vec, err := s.statements(dims)
	if err != nil {
		return err
	}
	s.blob = s.blob[:0]
	for _, n := range notes {
		if len(n.Emb) != dims {
			return fmt.Errorf("turso: note %d: an embedding of %d values, want %d", n.ID, len(n.Emb), dims)
		}
		s.blob = vector.AppendBlob(s.blob, n.Emb)
	}
	return s.insertSQL(string(vec.insert[:len(vec.insert)-1]), notes, s.blob)
}

// insertSQL writes notes in one transaction with sql prepared once, in
// one call to the library: the columns as Insert passes them and, when
// blob is not nil, the embeddings as blobs (vector.AppendBlob) one after
// another, each 4 × dims bytes.
func (s *store) insertSQL(sql string, notes []workload.Note, blob []byte) error {
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	ids, ts, lens, text := sqlnotes.Columns(notes)
	var emb *C.uint8_t
	var size int
	if blob != nil {
		if size = len(blob) / len(notes); size == 0 || size*len(notes) != len(blob) {
			return fmt.Errorf("turso: %d bytes of embeddings for %d notes", len(blob), len(notes))
		}
		emb = (*C.uint8_t)(unsafe.Pointer(&blob[0]))
	}
	var msg *C.char
	if C.mt_insert_notes_emb(s.s, csql, C.size_t(len(notes)),
		(*C.int64_t)(unsafe.Pointer(&ids[0])), (*C.int64_t)(unsafe.Pointer(&ts[0])),
		(*C.int64_t)(unsafe.Pointer(&lens[0])), (*C.uint8_t)(unsafe.Pointer(&text[0])),
		emb, C.size_t(size), &msg) != 0 {
		return cError("insert", msg)
	}
	return nil
}

// KNN implements engine.VectorStore: sqlnotes.Turso's knn query (every
// note's vector_distance_cos to the query, ordered, LIMIT k), knnSQL.
func (s *store) KNN(q []float32, k int, dst []int64) ([]int64, error) {
	if len(q) == 0 {
		return dst, fmt.Errorf("turso: knn of %d values", len(q))
	}
	vec, err := s.statements(len(q))
	if err != nil {
		return dst, err
	}
	return s.knnSQL(vec.knn, q, k, dst)
}

// knnSQL runs knn (NUL-terminated) in one call to the library, prepared,
// bound with the query's blob and k, and finalized; the ids nearest
// first.
func (s *store) knnSQL(knn []byte, q []float32, k int, dst []int64) ([]int64, error) {
	if len(q) == 0 || k < 1 {
		return dst, fmt.Errorf("turso: knn of %d values, k %d", len(q), k)
	}
	s.blob = vector.AppendBlob(s.blob[:0], q)
	dst = slices.Grow(dst, k)
	start := len(dst)
	var n C.size_t
	var msg *C.char
	if C.mt_knn(s.s, (*C.char)(unsafe.Pointer(&knn[0])),
		(*C.uint8_t)(unsafe.Pointer(&s.blob[0])), C.size_t(len(s.blob)), C.size_t(k),
		(*C.int64_t)(unsafe.Pointer(unsafe.SliceData(dst[start:start+k]))), &n, &msg) != 0 {
		return dst, cError("knn", msg)
	}
	return dst[:start+int(n)], nil
}
