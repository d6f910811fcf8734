package sqlnotes

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"manydb/internal/engine"
	"manydb/internal/workload"
)

// The shared layout of the SQL engines: one database file holding every
// agent's notes, keyed by (agent, id) and clustered on that key (WITHOUT
// ROWID), so that an agent's notes lie together as in a store of its own.
// It runs in WAL mode, the journal mode an application with several
// writers to one file picks, with incremental auto-vacuum so that a
// deleted agent's pages can be given back. The statements are those of
// a store of one agent (queries.go) with the agent bound first.
const (
	SharedPragmas = "PRAGMA auto_vacuum=INCREMENTAL" // before the table: SQLite fixes it at the first table
	SharedWAL     = "PRAGMA journal_mode=WAL"
	// SharedSync keeps a commit in WAL mode as durable as in the
	// per-agent stores' rollback journal: synchronous=FULL syncs the WAL
	// at every commit. It is SQLite's default, but the SQLite that mattn
	// compiles (sqlite, sqlite_capi) sets SQLITE_DEFAULT_WAL_SYNCHRONOUS=1
	// (NORMAL: no sync at a commit) for WAL mode, so an adapter without
	// it in its DSN runs it at every open of a store in WAL mode.
	SharedSync   = "PRAGMA synchronous=FULL"
	SharedSchema = `CREATE TABLE notes(agent INTEGER NOT NULL, id INTEGER NOT NULL, text TEXT NOT NULL, ts INTEGER NOT NULL, PRIMARY KEY(agent, id)) WITHOUT ROWID`
	SharedInsert = "INSERT INTO notes(agent, id, text, ts) VALUES (?, ?, ?, ?)"
	SharedCount  = "SELECT count(*) FROM notes WHERE agent = ?"
	SharedDelete = "DELETE FROM notes WHERE agent = ?"
	// SharedReclaim gives a deleted agent's pages back to the file
	// system: incremental_vacuum moves the free pages to the end of the
	// database, and the checkpoint (TRUNCATE) copies the WAL into the
	// file, truncates it and empties the WAL.
	SharedReclaim    = "PRAGMA incremental_vacuum"
	SharedCheckpoint = "PRAGMA wal_checkpoint(TRUNCATE)"
)

// The shared layout's statements with numbered parameters, for an
// adapter whose helpers bind a store's statements by position (?1 the
// query's argument; ?1, ?2, ?3 an insert's id, text and ts): the agent is
// ?4, bound once when the statement is prepared (SharedAgentParam).
const (
	SharedAgentParam     = 4
	SharedInsertNumbered = "INSERT INTO notes(agent, id, text, ts) VALUES (?4, ?1, ?2, ?3)"
	SharedCountNumbered  = "SELECT count(*) FROM notes WHERE agent = ?4"
	SharedDeleteNumbered = "DELETE FROM notes WHERE agent = ?4"
)

// SQLiteVecShared is the shared layout's store with sqlite-vec
// (version names its release): the shared notes table, and one vec0 table
// of every agent's embeddings partitioned by agent (a partition key, which
// sqlite-vec searches one partition of), each row's rowid agent·2³² + the
// note's id. Its statements are numbered as SharedNumbered's, the agent
// ?4: the vector insert binds (id ?1, embedding ?2), the knn (query ?1,
// k ?2) and returns the note's id. The search is exact: it compares the
// query with every embedding of the agent's partition.
func SQLiteVecShared(dims int, version string) Vectors {
	table := func(dims string) string {
		return fmt.Sprintf("CREATE VIRTUAL TABLE %s USING vec0(agent integer partition key, emb float[%s] distance_metric=cosine)", VecTable, dims)
	}
	knn := "SELECT rowid - ?4 * 4294967296 FROM " + VecTable + " WHERE emb MATCH ?1 AND k = ?2 AND agent = ?4"
	return Vectors{
		Schema:       []string{SharedSchema, table(fmt.Sprint(dims))},
		InsertSQL:    SharedInsertNumbered,
		VecInsertSQL: "INSERT INTO " + VecTable + "(rowid, agent, emb) VALUES (?4 * 4294967296 + ?1, ?4, ?2)",
		KNNSQL:       knn,
		Search: engine.VectorSearch{Exact: true,
			Method: fmt.Sprintf("sqlite-vec %s vec0 table of every agent's embeddings, %s; knn: %s (a full scan of the agent's partition)", version, table("D"), knn)},
	}
}

// LibSQLShared is the shared layout's store with libSQL's vector index
// (options as for LibSQL): the notes of every agent in one table with rowids
// (libSQL's index refers to rows by rowid, so the table cannot be WITHOUT
// ROWID; (agent, id) is a unique key), the embedding a column, and one
// DiskANN index over every agent's embeddings. An agent's knn asks the
// index for the k nearest notes of all agents and keeps the agent's: as an
// application filters a shared index, with no oversampling, so an answer
// may hold fewer than k notes. CROSS JOIN makes the index's answer the
// outer loop: it is searched once and its order (nearest first) kept.
// Numbered as SharedNumbered's; the insert binds the embedding as ?5.
func LibSQLShared(dims int, options []string) Vectors {
	index := libSQLIndex(options)
	knn := "SELECT n.id FROM vector_top_k('" + LibSQLIndex + "', ?1, ?2) AS v CROSS JOIN notes AS n ON n.rowid = v.id WHERE n.agent = ?4"
	table := func(dims string) string {
		return "CREATE TABLE notes(agent INTEGER NOT NULL, id INTEGER NOT NULL, text TEXT NOT NULL, ts INTEGER NOT NULL, emb F32_BLOB(" + dims + "), UNIQUE(agent, id))"
	}
	return Vectors{
		Schema:     []string{table(fmt.Sprint(dims)), index},
		InsertSQL:  "INSERT INTO notes(agent, id, text, ts, emb) VALUES (?4, ?1, ?2, ?3, ?5)",
		EmbInNotes: true,
		KNNSQL:     knn,
		Search: engine.VectorSearch{Method: "libSQL DiskANN index over every agent's notes, " + table("D") + "; " + index +
			"; knn: " + knn + " (the index's 10 nearest of all agents, the agent's kept: no oversampling)"},
	}
}

// SharedEmbParam is the parameter of the embedding in LibSQLShared's
// insert.
const SharedEmbParam = 5

// SharedVecDeleteNumbered deletes an agent's embeddings from
// SQLiteVecShared's table.
const SharedVecDeleteNumbered = "DELETE FROM " + VecTable + " WHERE agent = ?4"

// The queries of the shared layout: SharedStatements with the agent
// bound first, SharedNumbered with numbered parameters (see
// SharedAgentParam).
var (
	SharedStatements = NotesSQL("notes", "?", "?")
	SharedNumbered   = NotesSQL("notes", fmt.Sprintf("?%d", SharedAgentParam), "?1")
)

// WALOption is the option of the wal setting, as the record names it
// (engine.WALVariant).
func WALOption() map[string]string { return map[string]string{"PRAGMA journal_mode": "WAL"} }

// SharedLayout says what the shared store of the SQL engines is, for
// engine.SharedVariant.
const SharedLayout = "one SQLite database, notes.db: table notes keyed (agent, id) WITHOUT ROWID; journal_mode=WAL, auto_vacuum=INCREMENTAL, synchronous=FULL (a commit syncs the WAL); " +
	"an agent's open binds its id to the statements of the one connection (no SQL runs); deleting an agent is DELETE, then PRAGMA incremental_vacuum and wal_checkpoint(TRUNCATE)"

// CreateShared makes the shared store's schema on c, a new database's
// connection, and returns it; c is closed when that fails.
func CreateShared(c driver.Conn) (*Shared, error) {
	if err := execAll(c, SharedPragmas, SharedWAL, SharedSchema); err != nil {
		return nil, err
	}
	return NewShared(c), nil
}

// CreateServedShared is CreateShared on a server that sets a database's
// journal and vacuum itself and refuses those pragmas (sqld): the schema
// alone. Its store's DeleteAgent deletes the rows and gives no space
// back (NewServedShared).
func CreateServedShared(c driver.Conn) (*Shared, error) {
	if err := execAll(c, SharedSchema); err != nil {
		return nil, err
	}
	return NewServedShared(c), nil
}

// execAll runs the statements on c in order; c is closed when one fails.
func execAll(c driver.Conn, statements ...string) error {
	for _, q := range statements {
		if err := exec(c, q, nil); err != nil {
			c.Close()
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// Shared is an open shared store: its connections (Pool), one that every
// agent's statements run on or, made by SharedConns, several; reclaim are
// the statements that give a deleted agent's pages back.
type Shared struct {
	conns   Pool[driver.Conn]
	reclaim []string
}

var _ engine.SharedStore = (*Shared)(nil)

// NewShared is the shared store of one connection.
func NewShared(c driver.Conn) *Shared {
	return &Shared{conns: OnePool(c), reclaim: []string{SharedReclaim, SharedCheckpoint}}
}

// NewServedShared is the shared store of one connection to a server that
// refuses the pragmas which give space back (CreateServedShared).
func NewServedShared(c driver.Conn) *Shared { return &Shared{conns: OnePool(c)} }

// SharedConns opens the shared store with n connections made by connect
// (each to the one database), for as many concurrent callers
// (engine.SharedConnsVariant).
func SharedConns(n int, connect func() (driver.Conn, error)) (*Shared, error) {
	p, err := OpenPool(n, connect)
	if err != nil {
		return nil, err
	}
	return &Shared{conns: p, reclaim: []string{SharedReclaim, SharedCheckpoint}}, nil
}

// Agent implements engine.SharedStore: a view of agent a's notes.
func (s *Shared) Agent(a int) (engine.Store, error) {
	return &agentNotes{s: s, agent: int64(a)}, nil
}

// DeleteAgent implements engine.SharedStore: the agent's rows deleted in
// one autocommitted statement, then the free pages given back (unless the
// server refuses: NewServedShared).
func (s *Shared) DeleteAgent(a int) error {
	c, done := s.conns.Take()
	defer done()
	for _, q := range append([]string{SharedDelete}, s.reclaim...) {
		var args []driver.Value
		if q == SharedDelete {
			args = []driver.Value{int64(a)}
		}
		if _, err := each0(c, q, args); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// Close implements engine.SharedStore: it closes every connection.
func (s *Shared) Close() error { return s.conns.Close() }

// each0 runs a statement that may return rows (a pragma) and reads them
// all, so that it runs to its end.
func each0(c driver.Conn, query string, args []driver.Value) (int, error) {
	st, err := c.Prepare(query)
	if err != nil {
		return 0, err
	}
	rs, err := st.Query(args) //lint:ignore SA1019 the driver's own Query, no context needed
	if err != nil {
		return 0, errors.Join(err, st.Close())
	}
	n, err := drain(rs)
	return n, errors.Join(err, st.Close())
}

// drain reads every row of rs and closes it.
func drain(rs driver.Rows) (n int, err error) {
	defer func() { err = errors.Join(err, rs.Close()) }()
	dest := make([]driver.Value, len(rs.Columns()))
	for {
		switch err := rs.Next(dest); {
		case err == nil:
			n++
		case errors.Is(err, io.EOF):
			return n, nil
		default:
			return n, err
		}
	}
}

// agentNotes is one agent's view of a shared store: an engine.Store. Each
// call runs on a connection of the store's (Shared.take). It holds its
// store and its agent only, so that making it, the shared layout's open,
// allocates 16 bytes (enginetest.CheckAgentViewAllocs).
type agentNotes struct {
	s     *Shared
	agent int64
}

// queries are the agent's Queries: the store's connections, the agent
// bound (Take).
func (a *agentNotes) queries() Queries { return Pooled(a, &SharedStatements) }

// Recent implements engine.Store (Queries.Recent).
func (a *agentNotes) Recent(n int, dst []workload.Note) ([]workload.Note, error) {
	return a.queries().Recent(n, dst)
}

// Get implements engine.Store (Queries.Get).
func (a *agentNotes) Get(ids []int64, dst []workload.Note) ([]workload.Note, error) {
	return a.queries().Get(ids, dst)
}

// Scan implements engine.Store (Queries.Scan).
func (a *agentNotes) Scan(fn func(workload.Note)) error { return a.queries().Scan(fn) }

// Take implements Taker: a connection of the store's, the agent bound
// before every statement's own parameter.
func (a *agentNotes) Take() (Preparer, func()) {
	c, done := a.s.conns.Take()
	return Prepare(c, a.agent), done
}

func (a *agentNotes) Insert(notes []workload.Note) error {
	c, done := a.s.conns.Take()
	defer done()
	return inTx(c, func() error {
		st, err := c.Prepare(SharedInsert)
		if err != nil {
			return err
		}
		args := make([]driver.Value, 4)
		args[0] = a.agent
		for _, n := range notes {
			args[1], args[2], args[3] = n.ID, n.Text, n.Ts
			if _, err := st.Exec(args); err != nil { //lint:ignore SA1019 as above
				return errors.Join(err, st.Close())
			}
		}
		return st.Close()
	})
}

func (a *agentNotes) Count() (int64, error) {
	c, done := a.s.conns.Take()
	defer done()
	st, err := c.Prepare(SharedCount)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	rows, err := st.Query([]driver.Value{a.agent}) //lint:ignore SA1019 as above
	if err != nil {
		return 0, err
	}
	return ScanCount(rows)
}

func (a *agentNotes) Append(n workload.Note) error {
	c, done := a.s.conns.Take()
	defer done()
	return exec(c, SharedInsert, []driver.Value{a.agent, n.ID, n.Text, n.Ts})
}

// Close releases nothing: the agent's statements are closed after each
// call, and the connections are the shared store's.
func (a *agentNotes) Close() error { return nil }
