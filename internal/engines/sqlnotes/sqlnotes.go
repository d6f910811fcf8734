// Package sqlnotes is the notes table as every SQL engine adapter writes,
// counts and queries it: one schema, one insert, one count, and one
// implementation of the queries (Queries, over the Stmt that each driver
// implements once), so that the SQL engines run exactly the same
// statements the same way. Store is the whole store of the adapters that
// work through a database/sql/driver connection (SQLite through mattn and
// modernc, turso-go); the others embed Queries in stores of their own.
package sqlnotes

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"manydb/internal/engine"
	"manydb/internal/workload"
)

// The statements and the database file of a store.
const (
	FileName  = "notes.db"
	Schema    = `CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT NOT NULL, ts INTEGER NOT NULL)`
	InsertSQL = "INSERT INTO notes(id, text, ts) VALUES (?, ?, ?)"
	CountSQL  = "SELECT count(*) FROM notes"
)

// CreateTable commits the schema in its own transaction (autocommit), as
// an application creating the store would: through the connection's Exec
// when it has one, otherwise through a prepared statement.
func CreateTable(c driver.Conn) error {
	if x, ok := c.(driver.Execer); ok { //lint:ignore SA1019 the driver's own Exec, no context needed
		_, err := x.Exec(Schema, nil)
		return err
	}
	st, err := c.Prepare(Schema)
	if err != nil {
		return err
	}
	_, err = st.Exec(nil) //lint:ignore SA1019 as above
	return errors.Join(err, st.Close())
}

// Insert writes all notes in one transaction (the connection's Begin and
// Commit) with one prepared statement executed per note.
func Insert(c driver.Conn, notes []workload.Note) (err error) {
	tx, err := c.Begin() //lint:ignore SA1019 the driver's own Begin, no context needed
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	st, err := c.Prepare(InsertSQL)
	if err != nil {
		return err
	}
	args := make([]driver.Value, 3)
	for _, n := range notes {
		args[0], args[1], args[2] = n.ID, n.Text, n.Ts
		if _, err := st.Exec(args); err != nil { //lint:ignore SA1019 as above
			st.Close()
			return err
		}
	}
	if err := st.Close(); err != nil {
		return err
	}
	return tx.Commit()
}

// Create commits the schema on c, a new database's connection, and returns
// c as a Store; c is closed when that fails.
func Create(c driver.Conn) (engine.Store, error) {
	if err := CreateTable(c); err != nil {
		c.Close()
		return nil, fmt.Errorf("create table: %w", err)
	}
	s := NewStore(c)
	return &s, nil
}

// InsertColumns writes notes as the Rust C ABIs (rust/turso-capi,
// rust/libsql-capi) take them: nothing for none, notes with embeddings
// through vectors, the others laid out by Columns for insert, one call
// of the library.
func InsertColumns(notes []workload.Note, vectors func([]workload.Note) error, insert func(ids, ts, lens []int64, text []byte) error) error {
	if len(notes) == 0 {
		return nil
	}
	if notes[0].Emb != nil {
		return vectors(notes)
	}
	return insert(Columns(notes))
}

// Columns lays notes out as the Rust C ABIs (rust/turso-capi,
// rust/libsql-capi) take them in one call: ids, timestamps, text lengths,
// and the texts one after another. text is never empty, so &text[0] is
// valid even for empty texts. notes must not be empty.
func Columns(notes []workload.Note) (ids, ts, lens []int64, text []byte) {
	ids = make([]int64, len(notes))
	ts = make([]int64, len(notes))
	lens = make([]int64, len(notes))
	size := 0
	for _, n := range notes {
		size += len(n.Text)
	}
	text = make([]byte, 0, size+1)
	for i, n := range notes {
		ids[i], ts[i], lens[i] = n.ID, n.Ts, int64(len(n.Text))
		text = append(text, n.Text...)
	}
	return ids, ts, lens, text[:cap(text)]
}

// Store is a store that is one driver connection: Insert, Count and Close
// are the functions of this package and the connection's Close, its
// queries those of StoreStatements (NewStore).
type Store struct {
	Conn driver.Conn
	Queries
}

// NewStore is the store of connection c.
func NewStore(c driver.Conn) Store {
	return Store{Conn: c, Queries: On(Prepare(c), StoreStatements)}
}

var _ engine.Store = (*Store)(nil)

// Insert writes all notes in one transaction with one prepared statement.
func (s *Store) Insert(notes []workload.Note) error { return Insert(s.Conn, notes) }

// Count runs CountSQL.
func (s *Store) Count() (int64, error) { return Count(s.Conn) }

// Close closes the connection, releasing the database handle.
func (s *Store) Close() error { return s.Conn.Close() }

// QueryRow runs query and returns the n columns of its first row: through
// the connection's Query when it has one, otherwise through a prepared
// statement. Adapters use it outside timed spans (versions, pragmas).
func QueryRow(c driver.Conn, query string, n int) ([]driver.Value, error) {
	rows, err := query0(c, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	dest := make([]driver.Value, n)
	if err := rows.Next(dest); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s returned no row", query)
		}
		return nil, err
	}
	return dest, nil
}

// query0 runs a query without arguments.
func query0(c driver.Conn, query string) (driver.Rows, error) {
	if q, ok := c.(driver.Queryer); ok { //lint:ignore SA1019 the driver's own Query, no context needed
		return q.Query(query, nil)
	}
	st, err := c.Prepare(query)
	if err != nil {
		return nil, err
	}
	rows, err := st.Query(nil) //lint:ignore SA1019 as above
	if err != nil {
		st.Close()
		return nil, err
	}
	return stmtRows{rows, st}, nil
}

// stmtRows closes its statement with the rows.
type stmtRows struct {
	driver.Rows
	st driver.Stmt
}

func (r stmtRows) Close() error { return errors.Join(r.Rows.Close(), r.st.Close()) }

// Count runs CountSQL: through the connection's Query when it has one,
// otherwise through a prepared statement.
func Count(c driver.Conn) (int64, error) {
	var rows driver.Rows
	var err error
	if q, ok := c.(driver.Queryer); ok { //lint:ignore SA1019 as above
		rows, err = q.Query(CountSQL, nil)
	} else {
		var st driver.Stmt
		if st, err = c.Prepare(CountSQL); err != nil {
			return 0, err
		}
		defer st.Close()
		rows, err = st.Query(nil) //lint:ignore SA1019 as above
	}
	if err != nil {
		return 0, err
	}
	return ScanCount(rows)
}

// ScanCount reads the count from the first row of rows and closes them.
func ScanCount(rows driver.Rows) (int64, error) {
	defer rows.Close()
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil {
		if errors.Is(err, io.EOF) {
			return 0, errors.New("count returned no row")
		}
		return 0, err
	}
	n, ok := dest[0].(int64)
	if !ok {
		return 0, fmt.Errorf("count returned %T, want int64", dest[0])
	}
	return n, nil
}
