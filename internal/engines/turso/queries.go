//go:build turso

package turso

/*
#include <stdlib.h>
#include "manydb_turso.h"
*/
import "C"

import (
	"unsafe"

	"manydb/internal/engines/sqlnotes"
	"manydb/internal/workload"
)

// stmt is a prepared statement whose rows are notes (mt_prepare).
type stmt struct{ p *C.MtStmt }

func (s *store) prepare(sql string) (*stmt, error) {
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	var st *C.MtStmt
	var msg *C.char
	if C.mt_prepare(s.s, csql, &st, &msg) != 0 {
		return nil, cError("prepare", msg)
	}
	return &stmt{st}, nil
}

// Rows implements sqlnotes.Stmt: one cgo call per row.
func (q *stmt) Rows(bind bool, arg int64, fn func(workload.Note)) (int, error) {
	var msg *C.char
	if bind && C.mt_rebind(q.p, C.int64_t(arg), &msg) != 0 {
		return 0, cError("bind", msg)
	}
	var row C.int
	var id, ts C.int64_t
	var text *C.uint8_t
	var n C.size_t
	rows := 0
	for {
		if C.mt_step_note(q.p, &row, &id, &text, &n, &ts, &msg) != 0 {
			return rows, cError("step", msg)
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
	if C.mt_finalize(q.p, &msg) != 0 {
		return cError("finalize", msg)
	}
	return nil
}

func (s *store) prep(sql string) (sqlnotes.Stmt, error) { return s.prepare(sql) }

// Append implements engine.Store: one note through Insert's call, its
// own transaction (BEGIN, INSERT, COMMIT), as durable as Insert's.
func (s *store) Append(n workload.Note) error { return s.Insert([]workload.Note{n}) }
