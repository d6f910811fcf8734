package sqlnotes

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"manydb/internal/workload"
)

// Note decodes one row of id, text and ts; text may come as a string or
// as bytes, which are copied into a Go string.
func Note(dest []driver.Value) (workload.Note, error) {
	id, ok1 := dest[0].(int64)
	ts, ok2 := dest[2].(int64)
	var text string
	ok3 := true
	switch t := dest[1].(type) {
	case string:
		text = t
	case []byte:
		text = string(t)
	default:
		ok3 = false
	}
	if !ok1 || !ok2 || !ok3 {
		return workload.Note{}, fmt.Errorf("row of %T, %T, %T: want int64, text, int64", dest[0], dest[1], dest[2])
	}
	return workload.Note{ID: id, Text: text, Ts: ts}, nil
}

// Prepare is the Preparer of a driver connection: its statements run
// with before bound ahead of a query's own argument (a shared store's
// agent), and none for a store of its own.
func Prepare(c driver.Conn, before ...driver.Value) Preparer {
	return func(sql string) (Stmt, error) {
		st, err := c.Prepare(sql)
		if err != nil {
			return nil, err
		}
		return &connStmt{st: st, before: before}, nil
	}
}

// connStmt is a prepared statement of a driver connection (Stmt).
type connStmt struct {
	st     driver.Stmt
	before []driver.Value
	args   []driver.Value
}

// Rows implements Stmt: the statement's Query with before and arg.
func (q *connStmt) Rows(bind bool, arg int64, fn func(workload.Note)) (int, error) {
	q.args = append(q.args[:0], q.before...)
	if bind {
		q.args = append(q.args, arg)
	}
	rs, err := q.st.Query(q.args) //lint:ignore SA1019 the driver's own Query, no context needed
	if err != nil {
		return 0, err
	}
	return Rows(rs, fn)
}

// Close implements Stmt.
func (q *connStmt) Close() error { return q.st.Close() }

// Rows calls fn for every row of id, text, ts in rs, closes rs and
// returns the number of rows.
func Rows(rs driver.Rows, fn func(workload.Note)) (n int, err error) {
	defer func() { err = errors.Join(err, rs.Close()) }()
	dest := make([]driver.Value, 3)
	for {
		if err := rs.Next(dest); errors.Is(err, io.EOF) {
			return n, nil
		} else if err != nil {
			return n, err
		}
		note, err := Note(dest)
		if err != nil {
			return n, err
		}
		fn(note)
		n++
	}
}

// Append inserts one note in its own transaction (autocommit).
func Append(c driver.Conn, n workload.Note) (err error) {
	st, err := c.Prepare(InsertSQL)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	_, err = st.Exec([]driver.Value{n.ID, n.Text, n.Ts}) //lint:ignore SA1019 as above
	return err
}

// Append implements engine.Store.
func (s *Store) Append(n workload.Note) error { return Append(s.Conn, n) }
