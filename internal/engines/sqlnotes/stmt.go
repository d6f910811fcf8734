package sqlnotes

import (
	"errors"
	"fmt"

	"manydb/internal/engine"
	"manydb/internal/workload"
)

// Stmt is a prepared statement of an adapter that calls its engine's own
// API (sqlite_capi, libsql, turso, ncruces) and whose rows are notes.
type Stmt interface {
	// Rows binds arg to the first parameter when bind is set, runs the
	// statement from its start and calls fn for every row, the text
	// copied into Go memory; it returns the number of rows.
	Rows(bind bool, arg int64, fn func(workload.Note)) (int, error)
	// Close finalizes the statement.
	Close() error
}

// Preparer prepares a statement on one open store.
type Preparer func(sql string) (Stmt, error)

// Statements are the SQL of the queries of Queries: each with at most
// one parameter of its own, the first (?1).
type Statements struct{ Recent, Get, Scan string }

// StoreStatements are the statements of a store of one agent.
var StoreStatements = Statements{Recent: RecentSQL, Get: GetSQL, Scan: ScanSQL}

// Queries runs the statements on the statements Prepare prepares.
type Queries struct {
	Prepare Preparer
	SQL     Statements
}

// Recent appends the n newest notes to dst (RecentSQL).
func (p Preparer) Recent(n int, dst []workload.Note) ([]workload.Note, error) {
	return Queries{p, StoreStatements}.Recent(n, dst)
}

// Get appends the notes of ids to dst: GetSQL prepared once, run per id.
func (p Preparer) Get(ids []int64, dst []workload.Note) ([]workload.Note, error) {
	return Queries{p, StoreStatements}.Get(ids, dst)
}

// Scan calls fn for every note in id order (ScanSQL).
func (p Preparer) Scan(fn func(workload.Note)) error { return Queries{p, StoreStatements}.Scan(fn) }

// once prepares sql, runs it once and finalizes it.
func (q Queries) once(sql string, bind bool, arg int64, fn func(workload.Note)) (err error) {
	st, err := q.Prepare(sql)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	_, err = st.Rows(bind, arg, fn)
	return err
}

// Recent appends the n newest notes to dst (SQL.Recent).
func (q Queries) Recent(n int, dst []workload.Note) ([]workload.Note, error) {
	err := q.once(q.SQL.Recent, true, int64(n), func(note workload.Note) { dst = append(dst, note) })
	return dst, err
}

// Get appends the notes of ids to dst: SQL.Get prepared once, run per id.
func (q Queries) Get(ids []int64, dst []workload.Note) (_ []workload.Note, err error) {
	st, err := q.Prepare(q.SQL.Get)
	if err != nil {
		return dst, err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	add := func(note workload.Note) { dst = append(dst, note) }
	for _, id := range ids {
		n, err := st.Rows(true, id, add)
		if err != nil {
			return dst, err
		}
		if n == 0 {
			return dst, fmt.Errorf("note %d: %w", id, engine.ErrNotFound)
		}
	}
	return dst, nil
}

// Scan calls fn for every note in id order (SQL.Scan).
func (q Queries) Scan(fn func(workload.Note)) error { return q.once(q.SQL.Scan, false, 0, fn) }
