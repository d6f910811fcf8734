//go:build libsql

package libsql

/*
#include <stdlib.h>
#include "manydb_libsql.h"
*/
import "C"

import (
	"errors"
	"fmt"
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

// vectorsWith is libSQL's native vector search (sqlnotes.LibSQL): an
// F32_BLOB column with a DiskANN index made with the index options given,
// searched with vector_top_k.
func vectorsWith(index []string) sqlnotes.VectorsFunc {
	return func(dims int) sqlnotes.Vectors { return sqlnotes.LibSQL(dims, index) }
}

// CreateVectors implements engine.VectorVariant: a new database with
// sqlnotes.LibSQL's schema (the notes table with an F32_BLOB(dims) column
// and its vector index, with the variant's index options) committed in
// one transaction.
func (v *Variant) CreateVectors(dir string, dims int) (engine.Store, error) {
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

// VectorSearch implements engine.VectorVariant: libSQL's DiskANN index,
// approximate.
func (v *Variant) VectorSearch() engine.VectorSearch { return v.vectors.Search() }

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

// vecSQL is the vector search's statements a store runs, for the dims
// they were made for, with their SQL NUL-terminated for the library (Go
// memory without Go pointers).
type vecSQL struct {
	dims   int
	insert []byte
	knn    []byte
}

// statements returns the vector search's statements for dims, made once
// per dims.
func (s *store) statements(dims int) (*vecSQL, error) {
	if s.vec.insert == nil || s.vec.dims != dims {
		vec := s.vectors(dims)
		if !vec.EmbInNotes || vec.VecInsertSQL != "" || vec.ScanInGo {
			return nil, fmt.Errorf("libsql: the vector statements must keep the embedding in the notes table and search in SQL: %+v", vec)
		}
		s.vec = vecSQL{dims: dims, insert: append([]byte(vec.InsertSQL), 0), knn: append([]byte(vec.KNNSQL), 0)}
	}
	return &s.vec, nil
}

// insertVectors writes notes with their embeddings in one transaction
// with the vector search's insert prepared once, in one call to the
// library: the columns as Insert passes them, and the embeddings as
// blobs (vector.AppendBlob) one after another.
func (s *store) insertVectors(notes []workload.Note) error {
	dims := len(notes[0].Emb)
	vec, err := s.statements(dims)
	if err != nil {
		return err
	}
	s.blob = s.blob[:0]
	for _, n := range notes {
		if len(n.Emb) != dims {
			return fmt.Errorf("libsql: note %d: an embedding of %d values, want %d", n.ID, len(n.Emb), dims)
		}
		s.blob = vector.AppendBlob(s.blob, n.Emb)
	}
	ids, ts, lens, text := sqlnotes.Columns(notes)
	var msg *C.char
	if C.manydb_libsql_insert_notes_emb(s.s, (*C.char)(unsafe.Pointer(&vec.insert[0])), C.size_t(len(notes)),
		(*C.int64_t)(unsafe.Pointer(&ids[0])), (*C.int64_t)(unsafe.Pointer(&ts[0])),
		(*C.int64_t)(unsafe.Pointer(&lens[0])), (*C.uint8_t)(unsafe.Pointer(&text[0])),
		(*C.uint8_t)(unsafe.Pointer(&s.blob[0])), C.size_t(4*dims), &msg) != 0 {
		return cError("insert", msg)
	}
	return nil
}

// KNN implements engine.VectorStore: sqlnotes.LibSQL's knn query
// (vector_top_k over the store's index) in one call to the library,
// prepared, bound with the query's blob and k, and finalized. The ids
// come in vector_top_k's order, nearest first: libSQL keeps its best
// candidates sorted by their distance to the query, computed on the
// nodes' full float32 vectors (compressed neighbours only guide the
// search).
func (s *store) KNN(q []float32, k int, dst []int64) ([]int64, error) {
	if len(q) == 0 || k < 1 {
		return dst, fmt.Errorf("libsql: knn of %d values, k %d", len(q), k)
	}
	vec, err := s.statements(len(q))
	if err != nil {
		return dst, err
	}
	s.blob = vector.AppendBlob(s.blob[:0], q)
	dst = slices.Grow(dst, k)
	start := len(dst)
	var n C.size_t
	var msg *C.char
	if C.manydb_libsql_knn(s.s, (*C.char)(unsafe.Pointer(&vec.knn[0])),
		(*C.uint8_t)(unsafe.Pointer(&s.blob[0])), C.size_t(len(s.blob)), C.size_t(k),
		(*C.int64_t)(unsafe.Pointer(unsafe.SliceData(dst[start:start+k]))), &n, &msg) != 0 {
		return dst, cError("knn", msg)
	}
	return dst[:start+int(n)], nil
}
