package sqld

import (
	"database/sql/driver"
	"strings"
)

// libsql-client-go's errors span lines ("failed to execute SQL:\n error
// code 404: Namespace … doesn't exist"), and a worker's error reaches
// the record and the console by its first line only. The adapter's
// connection (oneLineConn) gives every error of the driver on one line.

// oneLineError is err with its lines joined by spaces.
type oneLineError struct{ err error }

func (e oneLineError) Error() string { return strings.Join(strings.Fields(e.err.Error()), " ") }
func (e oneLineError) Unwrap() error { return e.err }

// oneLine returns err on one line (nil stays nil).
func oneLine(err error) error {
	if err == nil {
		return nil
	}
	return oneLineError{err}
}

// oneLineConn is a driver connection whose statements' and transactions'
// errors are on one line.
type oneLineConn struct{ driver.Conn }

func (c oneLineConn) Prepare(query string) (driver.Stmt, error) {
	st, err := c.Conn.Prepare(query)
	if err != nil {
		return nil, oneLine(err)
	}
	return oneLineStmt{st}, nil
}

func (c oneLineConn) Begin() (driver.Tx, error) { //lint:ignore SA1019 the driver's own Begin, as sqlnotes calls it
	tx, err := c.Conn.Begin() //lint:ignore SA1019 as above
	if err != nil {
		return nil, oneLine(err)
	}
	return oneLineTx{tx}, nil
}

type oneLineStmt struct{ driver.Stmt }

func (s oneLineStmt) Exec(args []driver.Value) (driver.Result, error) { //lint:ignore SA1019 the driver's own Exec
	r, err := s.Stmt.Exec(args) //lint:ignore SA1019 as above
	return r, oneLine(err)
}

func (s oneLineStmt) Query(args []driver.Value) (driver.Rows, error) { //lint:ignore SA1019 the driver's own Query
	r, err := s.Stmt.Query(args) //lint:ignore SA1019 as above
	return r, oneLine(err)
}

type oneLineTx struct{ driver.Tx }

func (t oneLineTx) Commit() error   { return oneLine(t.Tx.Commit()) }
func (t oneLineTx) Rollback() error { return oneLine(t.Tx.Rollback()) }
