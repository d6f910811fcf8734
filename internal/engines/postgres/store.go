package postgres

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/workload"
)

// The tables: a store per agent's, and the shared layout's.
const (
	perAgentTable = "CREATE TABLE %s (id bigint PRIMARY KEY, text text NOT NULL, ts bigint NOT NULL)"
	sharedTable   = "CREATE TABLE %s (agent integer NOT NULL, id bigint NOT NULL, text text NOT NULL, ts bigint NOT NULL, PRIMARY KEY (agent, id))"
)

// store is an agent's notes: a schema's table of its own (agent < 0), or
// agent's rows of the shared table. Its statements name the table with
// its schema, so any connection of the pool runs them.
type store struct {
	// Queries are Recent and Scan; Get is the store's own.
	sqlnotes.Queries
	pool   *pgxpool.Pool
	schema string
	agent  int
	table  string // "schema"."notes", quoted
	where  string // the rows of the agent: "" or "agent = $1 AND "
	args   []any  // the agent's argument, first of every statement
	// partition, in a shared table with a partition per agent, is the
	// agent's partition (quoted), made by the agent's first Insert.
	partition string
}

func newStore(pool *pgxpool.Pool, schema string, agent int) *store {
	s := &store{pool: pool, schema: schema, agent: agent, table: pgx.Identifier{schema, "notes"}.Sanitize()}
	agentParam := ""
	if agent >= 0 {
		s.where, s.args, agentParam = "agent = $1 AND ", []any{agent}, "$1"
	}
	s.Queries = sqlnotes.On(s.prep, sqlnotes.NotesSQL(s.table, agentParam, s.arg(1)))
	return s
}

// arg returns the placeholder of the statement's n-th own argument (1 is
// the first after the agent's).
func (s *store) arg(n int) string { return fmt.Sprintf("$%d", n+len(s.args)) }

// with returns the agent's argument (if any) followed by args.
func (s *store) with(args ...any) []any { return append(slices.Clip(s.args), args...) }

// create makes the schema, its table (table is perAgentTable or
// sharedTable, with or without embeddings) and the table's indexes (each
// a format of the quoted table's name), committed.
func (s *store) create(table string, indexes ...string) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{s.schema}.Sanitize()); err != nil {
		return fmt.Errorf("create schema %s: %w", s.schema, err)
	}
	if _, err := tx.Exec(ctx, fmt.Sprintf(table, s.table)); err != nil {
		return fmt.Errorf("create table %s: %w", s.table, err)
	}
	for _, index := range indexes {
		if _, err := tx.Exec(ctx, fmt.Sprintf(index, s.table)); err != nil {
			return fmt.Errorf("create an index of %s: %w", s.table, err)
		}
	}
	return tx.Commit(ctx)
}

// exists checks that the store's table exists.
func (s *store) exists() error {
	var ok bool
	if err := s.pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", s.table).Scan(&ok); err != nil {
		return fmt.Errorf("open %s: %w", s.table, err)
	}
	if !ok {
		return fmt.Errorf("open: no table %s on the server", s.table)
	}
	return nil
}

// Insert implements engine.Store: COPY in one transaction (which first
// makes the agent's partition when the shared table has one per agent).
func (s *store) Insert(notes []workload.Note) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(ctx)
	if s.partition != "" {
		q := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s PARTITION OF %s FOR VALUES IN (%d)", s.partition, s.table, s.agent)
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("make agent %d's partition: %w", s.agent, err)
		}
	}
	emb := len(notes) > 0 && notes[0].Emb != nil
	cols := s.columns(emb)
	rows := pgx.CopyFromSlice(len(notes), func(i int) ([]any, error) {
		n := &notes[i]
		if emb {
			return s.with(n.ID, n.Text, n.Ts, vec(n.Emb)), nil
		}
		return s.with(n.ID, n.Text, n.Ts), nil
	})
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{s.schema, "notes"}, cols, rows); err != nil {
		return fmt.Errorf("copy the notes: %w", err)
	}
	return tx.Commit(ctx)
}

// columns are the columns a write names: the agent's (shared), the
// note's, and emb when the notes have embeddings.
func (s *store) columns(emb bool) []string {
	cols := []string{"id", "text", "ts"}
	if s.agent >= 0 {
		cols = append([]string{"agent"}, cols...)
	}
	if emb {
		cols = append(cols, "emb")
	}
	return cols
}

// Count implements engine.Store.
func (s *store) Count() (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, "SELECT count(*) FROM "+s.table+s.whereAll(), s.args...).Scan(&n)
	return n, err
}

// whereAll is the WHERE clause of all the store's rows.
func (s *store) whereAll() string {
	if s.agent < 0 {
		return ""
	}
	return " WHERE agent = $1"
}

// prep implements sqlnotes.Preparer: nothing to prepare ahead (pgx
// prepares and caches a query on each connection of the pool).
func (s *store) prep(sql string) (sqlnotes.Stmt, error) { return pgStmt{s, sql}, nil }

// pgStmt is a query of the store's (sqlnotes.Stmt).
type pgStmt struct {
	s   *store
	sql string
}

// Rows implements sqlnotes.Stmt: the query on a connection of the pool,
// with the agent's argument (if any) and arg.
func (q pgStmt) Rows(bind bool, arg int64, fn func(workload.Note)) (int, error) {
	args := q.s.args
	if bind {
		args = q.s.with(arg)
	}
	rows, err := q.s.pool.Query(ctx, q.sql, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var note workload.Note
	n := 0
	for rows.Next() {
		if err := rows.Scan(&note.ID, &note.Text, &note.Ts); err != nil {
			return n, err
		}
		fn(note)
		n++
	}
	return n, rows.Err()
}

// Close implements sqlnotes.Stmt: nothing to finalize.
func (q pgStmt) Close() error { return nil }

// Get implements engine.Store: one query for every id, answered in the
// order asked.
func (s *store) Get(ids []int64, dst []workload.Note) ([]workload.Note, error) {
	q := fmt.Sprintf("SELECT id, text, ts FROM %s WHERE %sid = ANY(%s)", s.table, s.where, s.arg(1))
	got, err := s.collect(nil, q, s.with(ids)...)
	if err != nil {
		return dst, err
	}
	for _, id := range ids {
		i := slices.IndexFunc(got, func(n workload.Note) bool { return n.ID == id })
		if i < 0 {
			return dst, fmt.Errorf("id %d: %w", id, engine.ErrNotFound)
		}
		dst = append(dst, got[i])
	}
	return dst, nil
}

// collect appends the notes query q returns to dst.
func (s *store) collect(dst []workload.Note, q string, args ...any) ([]workload.Note, error) {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return dst, err
	}
	defer rows.Close()
	for rows.Next() {
		var n workload.Note
		if err := rows.Scan(&n.ID, &n.Text, &n.Ts); err != nil {
			return dst, err
		}
		dst = append(dst, n)
	}
	return dst, rows.Err()
}

// Append implements engine.Store: one INSERT, its own transaction.
func (s *store) Append(n workload.Note) error {
	cols := s.columns(n.Emb != nil)
	vals := make([]string, len(cols))
	for i := range vals {
		vals[i] = fmt.Sprintf("$%d", i+1)
	}
	args := s.with(n.ID, n.Text, n.Ts)
	if n.Emb != nil {
		args = append(args, vec(n.Emb))
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", s.table, strings.Join(cols, ", "), strings.Join(vals, ", "))
	_, err := s.pool.Exec(ctx, q, args...)
	return err
}

// Close implements engine.Store: the pool is the variant's, so nothing.
func (s *store) Close() error { return nil }
