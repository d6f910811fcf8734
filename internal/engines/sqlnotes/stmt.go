package sqlnotes

import (
	"errors"
	"fmt"

	"manydb/internal/engine"
	"manydb/internal/workload"
)

// Stmt is a prepared statement whose rows are notes: what each SQL
// driver implements once (over database/sql/driver in this package, over
// its own API in sqlite_capi, libsql, turso, ncruces, libsql_go and
// postgres), so that Queries runs every query of every SQL variant.
type Stmt interface {
	// Rows binds arg to the statement's own parameter when bind is set,
	// runs the statement from its start and calls fn for every row, the
	// text copied into Go memory; it returns the number of rows.
	Rows(bind bool, arg int64, fn func(workload.Note)) (int, error)
	// Close finalizes the statement.
	Close() error
}

// Preparer prepares a statement on one open connection.
type Preparer func(sql string) (Stmt, error)

// Statements are the SQL of the queries of Queries: each with at most
// one parameter of its own.
type Statements struct{ Recent, Get, Scan string }

// NotesSQL is the one text of Statements: the notes of table, of one
// agent when agent is not empty (the agent's parameter, "?" or "?4", or
// its number as a literal), each query's own parameter written param
// ("?", "?1", "$2").
func NotesSQL(table, agent, param string) Statements {
	from := "SELECT id, text, ts FROM " + table
	where, and := "", " WHERE "
	if agent != "" {
		where = " WHERE agent = " + agent
		and = where + " AND "
	}
	return Statements{
		Recent: from + where + " ORDER BY id DESC LIMIT " + param,
		Get:    from + and + "id = " + param,
		Scan:   from + where + " ORDER BY id",
	}
}

// StoreStatements are the statements of a store of one agent: the
// newest notes through the primary key's index backwards, one note by id
// per execution of a prepared statement (an application fetching notes
// by id runs the same statement for each), and every note in id order.
var StoreStatements = NotesSQL("notes", "", "?")

// Queries answers the queries every SQL variant answers alike (Recent,
// Get, Scan) with its Statements, on a connection it takes for the
// length of each query. Every SQL adapter's store embeds it, so that a
// query written here is a query of every SQL store.
type Queries struct {
	take Taker
	sql  *Statements
}

// Taker gives Queries a connection for the length of one query: its
// Preparer and how to give the connection back.
type Taker interface {
	Take() (Preparer, func())
}

// one is the Taker of a store's one connection: its preparer, nothing to
// give back.
type one Preparer

// Take implements Taker.
func (p one) Take() (Preparer, func()) { return Preparer(p), noop }

// On is the queries of sql on the one connection p prepares on.
func On(p Preparer, sql Statements) Queries {
	return Queries{take: one(p), sql: &sql}
}

// Pooled is the queries of sql on a connection of a pool, which t takes
// for each query. A shared store's agent is its own Taker (it binds its
// id), so that making an agent's view allocates only the view.
func Pooled(t Taker, sql *Statements) Queries {
	return Queries{take: t, sql: sql}
}

// once prepares sql, runs it once and finalizes it.
func (q Queries) once(sql string, bind bool, arg int64, fn func(workload.Note)) (err error) {
	prepare, done := q.take.Take()
	defer done()
	st, err := prepare(sql)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	_, err = st.Rows(bind, arg, fn)
	return err
}

// Recent implements engine.Store: the n newest notes appended to dst.
func (q Queries) Recent(n int, dst []workload.Note) ([]workload.Note, error) {
	err := q.once(q.sql.Recent, true, int64(n), func(note workload.Note) { dst = append(dst, note) })
	return dst, err
}

// Get implements engine.Store: the notes of ids appended to dst, the
// statement prepared once and run per id.
func (q Queries) Get(ids []int64, dst []workload.Note) (_ []workload.Note, err error) {
	prepare, done := q.take.Take()
	defer done()
	st, err := prepare(q.sql.Get)
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

// Scan implements engine.Store: fn called for every note in id order.
func (q Queries) Scan(fn func(workload.Note)) error { return q.once(q.sql.Scan, false, 0, fn) }
