//go:build libsql

package libsql

/*
#include <stdlib.h>
#include "manydb_libsql.h"
*/
import "C"

import (
	"unsafe"

	"manydb/internal/engines/sqlnotes"
	"manydb/internal/workload"
)

// stmt is a prepared statement whose rows are notes (manydb_libsql_prepare).
type stmt struct{ p *C.ManydbLibsqlStmt }

func (s *store) prep(sql string) (sqlnotes.Stmt, error) {
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	var st *C.ManydbLibsqlStmt
	var msg *C.char
	if C.manydb_libsql_prepare(s.s, csql, &st, &msg) != 0 {
		return nil, cError("prepare", msg)
	}
	return &stmt{st}, nil
}

// Rows implements sqlnotes.Stmt: one cgo call to start the query, one per row.
func (q *stmt) Rows(bind bool, arg int64, fn func(workload.Note)) (int, error) {
	var msg *C.char
	b := C.int(0)
	if bind {
		b = 1
	}
	if C.manydb_libsql_query(q.p, b, C.int64_t(arg), &msg) != 0 {
		return 0, cError("query", msg)
	}
	var row C.int
	var id, ts C.int64_t
	var text *C.uint8_t
	var n C.size_t
	rows := 0
	for {
		if C.manydb_libsql_next_note(q.p, &row, &id, &text, &n, &ts, &msg) != 0 {
			return rows, cError("next row", msg)
		}
		if row == 0 {
			return rows, nil
		}
		fn(workload.Note{ID: int64(id), Text: C.GoStringN((*C.char)(unsafe.Pointer(text)), C.int(n)), Ts: int64(ts)})
		rows++
	}
}

// Close implements sqlnotes.Stmt.
func (q *stmt) Close() error {
	var msg *C.char
	if C.manydb_libsql_finalize(q.p, &msg) != 0 {
		return cError("finalize", msg)
	}
	return nil
}

// Append implements engine.Store: one note through Insert's call, its
// own transaction (BEGIN, INSERT, COMMIT), as durable as Insert's.
func (s *store) Append(n workload.Note) error { return s.Insert([]workload.Note{n}) }
