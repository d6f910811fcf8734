package sqlnotes

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"manydb/internal/engine"
	"manydb/internal/workload"
)

// The statements of engine.Store's queries, the same for every SQL engine:
// the newest notes through the primary key's index backwards, one note by
// id per execution of a prepared statement (an application fetching notes
// by id runs the same statement for each), every note in id order, and an
// append as an autocommitted insert (its own transaction, synced as
// Insert's commit is).
const (
	RecentSQL = "SELECT id, text, ts FROM notes ORDER BY id DESC LIMIT ?"
	GetSQL    = "SELECT id, text, ts FROM notes WHERE id = ?"
	ScanSQL   = "SELECT id, text, ts FROM notes ORDER BY id"
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

// each runs query with args through a prepared statement and calls fn for
// every row.
func each(c driver.Conn, query string, args []driver.Value, fn func(workload.Note)) (rows int, err error) {
	st, err := c.Prepare(query)
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	return eachRow(st, args, fn)
}

// eachRow runs the prepared statement st with args and calls fn for every row.
func eachRow(st driver.Stmt, args []driver.Value, fn func(workload.Note)) (n int, err error) {
	rs, err := st.Query(args) //lint:ignore SA1019 the driver's own Query, no context needed
	if err != nil {
		return 0, err
	}
	return Rows(rs, fn)
}

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

// Recent appends the n newest notes to dst.
func Recent(c driver.Conn, n int, dst []workload.Note) ([]workload.Note, error) {
	_, err := each(c, RecentSQL, []driver.Value{int64(n)}, func(note workload.Note) { dst = append(dst, note) })
	return dst, err
}

// Get appends the notes with the given ids to dst, one execution of GetSQL
// per id.
func Get(c driver.Conn, ids []int64, dst []workload.Note) (_ []workload.Note, err error) {
	st, err := c.Prepare(GetSQL)
	if err != nil {
		return dst, err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	args := make([]driver.Value, 1)
	add := func(note workload.Note) { dst = append(dst, note) }
	for _, id := range ids {
		args[0] = id
		n, err := eachRow(st, args, add)
		if err != nil {
			return dst, err
		}
		if n == 0 {
			return dst, fmt.Errorf("note %d: %w", id, engine.ErrNotFound)
		}
	}
	return dst, nil
}

// Scan calls fn for every note in id order.
func Scan(c driver.Conn, fn func(workload.Note)) error {
	_, err := each(c, ScanSQL, nil, fn)
	return err
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

// Recent implements engine.Store.
func (s *Store) Recent(n int, dst []workload.Note) ([]workload.Note, error) {
	return Recent(s.Conn, n, dst)
}

// Get implements engine.Store.
func (s *Store) Get(ids []int64, dst []workload.Note) ([]workload.Note, error) {
	return Get(s.Conn, ids, dst)
}

// Scan implements engine.Store.
func (s *Store) Scan(fn func(workload.Note)) error { return Scan(s.Conn, fn) }

// Append implements engine.Store.
func (s *Store) Append(n workload.Note) error { return Append(s.Conn, n) }
