// Package postgres is manydb's adapter for PostgreSQL, the server a team
// would run instead of a store per agent, through jackc/pgx (v5, the Go
// driver PostgreSQL's users pick most, pure Go, with its own pool
// pgxpool and a per-connection cache of prepared statements).
//
// A store per agent is a schema of its own (named for the store's
// directory, which holds no file: the data is the server's) with a table
// notes(id, text, ts); the shared layout is one schema whose notes table
// has an agent column and the primary key (agent, id). Every store of a
// worker runs its statements on one pgxpool.Pool (pgx's defaults: at most
// max(4, CPUs) connections), so an agent's open is a check that its table
// exists, not a connection: a connection per agent would be a backend
// process per agent. The server is manydb's own (internal/pgserver) or
// the user's (--postgres); the worker is given its address (engine.ServerVariant).
package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"manydb/internal/engine"
	"manydb/internal/pgserver"
)

// The variant ids: postgres with pgvector's defaults; postgres_iter with
// its iterative index scans on (hnsw.iterative_scan = strict_order,
// pgvector 0.8's remedy for a filtered search that returns fewer than k
// rows), which changes nothing but a knn; and postgres_part, whose shared
// table has a partition per agent (pgvector's advice for many tenants:
// each partition has its own indexes, so an agent's knn searches its own
// notes only). postgres_part has the shared layout only: its stores per
// agent would be postgres's.
const (
	ID          = "postgres"
	IDIterative = "postgres_iter"
	IDPartition = "postgres_part"
)

// iterativeScan is the setting postgres_iter gives every connection.
const iterativeScan = "strict_order"

// partitionPlans is the plan_cache_mode postgres_part gives every
// connection. A statement pgx has prepared gets a generic plan after five
// runs, and a generic plan of a statement on the partitioned table locks
// every partition when it runs: at 10,000 agents more locks than the
// server's lock table holds by default (max_locks_per_transaction 64 ×
// max_connections 100), so the statement fails "out of shared memory". A
// custom plan keeps the agent's partition alone before it locks.
const partitionPlans = "force_custom_plan"

// Factories lists the variants of this package.
func Factories() []engine.Factory {
	return []engine.Factory{
		{ID: ID, New: func() (engine.Variant, error) { return newVariant(ID) }},
		{ID: IDIterative, New: func() (engine.Variant, error) { return newVariant(IDIterative) }},
		{ID: IDPartition, New: func() (engine.Variant, error) { return newVariant(IDPartition) }},
	}
}

// newVariant makes the variant when the server's programs are installed
// in the repository of the worker's binary (the server the study starts);
// otherwise it says how to install them (engine.ErrDisabled).
func newVariant(id string) (engine.Variant, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if _, ok := pgserver.Find(filepath.Dir(exe)); !ok {
		return nil, fmt.Errorf("%w: %w", engine.ErrDisabled, pgserver.ErrNotInstalled)
	}
	return &Variant{id: id}, nil
}

// Variant is PostgreSQL through a pool of connections; UseServer gives it
// its server.
type Variant struct {
	id        string // ID, IDIterative or IDPartition
	pool      *pgxpool.Pool
	dsn       string
	version   map[string]string
	hasVector bool   // the database has pgvector (CREATE EXTENSION vector)
	noVector  string // why the database has no pgvector though the server does
	dataDir   string // the server's data directory, once asked
	// configure, when set, changes the pool's configuration last: the
	// tests count a turn's round trips on the connections it dials.
	configure func(*pgxpool.Config)
}

var ctx = context.Background()

// ID implements engine.Variant.
func (v *Variant) ID() string { return cmp.Or(v.id, ID) }

// iterative tells whether the variant's knn uses iterative index scans.
func (v *Variant) iterative() bool { return v.id == IDIterative }

// partitioned tells whether the variant's shared table has a partition
// per agent.
func (v *Variant) partitioned() bool { return v.id == IDPartition }

// Versions implements engine.Variant: the server's and pgvector's.
func (v *Variant) Versions() map[string]string { return v.version }

// UseServer implements engine.ServerVariant: it connects to the database
// dsn names, made first (CREATE DATABASE, from the server's postgres
// database) when the server does not have it.
func (v *Variant) UseServer(dsn string) error {
	if v.pool != nil && dsn == v.dsn {
		return nil
	}
	if v.pool != nil {
		return fmt.Errorf("the variant uses the server %q already, not %q", v.dsn, dsn)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("the server's address: %w", err)
	}
	if err := ensureDatabase(cfg.ConnConfig); err != nil {
		return err
	}
	v.version, err = prepareDatabase(cfg.ConnConfig)
	switch {
	case errors.Is(err, errNoExtension):
		v.noVector = err.Error()
	case err != nil:
		return err
	}
	v.hasVector = v.version["pgvector"] != "" && v.noVector == ""
	cfg.AfterConnect = registerVector
	if v.configure != nil {
		v.configure(cfg)
	}
	if v.iterative() {
		cfg.ConnConfig.RuntimeParams["hnsw.iterative_scan"] = iterativeScan
	}
	if v.partitioned() {
		cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = partitionPlans
	}
	if v.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	v.dsn = dsn
	return v.analyzeNew()
}

// analyzeNew runs ANALYZE on every table that neither ANALYZE nor
// autovacuum has analyzed yet: a phase starts with the planner's
// statistics of every store, as a live server has them once autovacuum
// has passed (within a minute of the writes, by default). Without them
// the planner takes a table for a small one it knows nothing of, and an
// agent's knn may use the HNSW index where, with them, it scans the
// agent's rows (or the reverse): the plan would depend on autovacuum's
// timing. It runs when the worker starts, before the phase's first span.
func (v *Variant) analyzeNew() error {
	// reltuples is -1 until a table is first analyzed or vacuumed (read
	// from the catalog, not from the statistics a backend reports late).
	const q = `SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind = 'r' AND c.reltuples < 0 AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'`
	rows, err := v.pool.Query(ctx, q)
	if err != nil {
		return fmt.Errorf("find the tables to analyze: %w", err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("find the tables to analyze: %w", err)
	}
	for len(tables) > 0 {
		n := min(len(tables), 500)
		if _, err := v.pool.Exec(ctx, "ANALYZE "+strings.Join(tables[:n], ", ")); err != nil {
			return fmt.Errorf("analyze: %w", err)
		}
		tables = tables[n:]
	}
	return nil
}

// ensureDatabase makes the database cfg names unless the server has it
// (a connection to it succeeds: on a user's server manydb made it
// before, pgserver.UserServer.Make).
func ensureDatabase(cfg *pgx.ConnConfig) error {
	if c, err := pgx.ConnectConfig(ctx, cfg); err == nil {
		return c.Close(ctx)
	}
	admin := cfg.Copy()
	admin.Database = "postgres"
	c, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer c.Close(ctx)
	var has bool
	if err := c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", cfg.Database).Scan(&has); err != nil {
		return fmt.Errorf("look for database %s: %w", cfg.Database, err)
	}
	if has {
		return nil
	}
	if _, err := c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{cfg.Database}.Sanitize()); err != nil {
		return fmt.Errorf("create database %s: %w", cfg.Database, err)
	}
	return nil
}

// prepareDatabase asks the server for its versions and, when it has
// pgvector, makes the extension in the database cfg names, before the
// pool's first connection (each registers its type); one connection.
func prepareDatabase(cfg *pgx.ConnConfig) (map[string]string, error) {
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer c.Close(ctx)
	vs, err := pgserver.QueryVersions(ctx, c)
	if err != nil || vs["pgvector"] == "" {
		return vs, err
	}
	if _, err := c.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
		// Only a superuser may create it (not a trusted extension): the
		// database then keeps no embeddings (checkVectors says why).
		return vs, fmt.Errorf("%w: %w", errNoExtension, err)
	}
	return vs, nil
}

// errNoExtension is wrapped by prepareDatabase's error when pgvector is
// installed but its extension could not be made in the database.
var errNoExtension = errors.New("create extension vector")

// CloseVariant implements engine.Closer: it closes the pool.
func (v *Variant) CloseVariant() error {
	if v.pool != nil {
		v.pool.Close()
	}
	return nil
}

// errNoServer is returned by a store operation before UseServer.
var errNoServer = errors.New("no PostgreSQL server given (engine.ServerVariant.UseServer)")

// Create implements engine.Variant: the schema of dir with its notes table.
func (v *Variant) Create(dir string) (engine.Store, error) {
	if v.pool == nil {
		return nil, errNoServer
	}
	s := newStore(v.pool, schemaOf(dir), -1)
	if err := s.create(perAgentTable); err != nil {
		return nil, err
	}
	return s, nil
}

// Open implements engine.Variant: it checks that dir's table exists.
func (v *Variant) Open(dir string) (engine.Store, error) {
	if v.pool == nil {
		return nil, errNoServer
	}
	s := newStore(v.pool, schemaOf(dir), -1)
	if err := s.exists(); err != nil {
		return nil, err
	}
	return s, nil
}

// schemaOf names the schema of the store in dir: the directory's name
// and a hash of its path (two stores of one database never share one).
func schemaOf(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	h := fnv.New64a()
	h.Write([]byte(abs))
	base := nameChars.ReplaceAllString(filepath.Base(abs), "_")
	if len(base) > 30 {
		base = base[:30]
	}
	return fmt.Sprintf("store_%s_%016x", base, h.Sum64())
}

var nameChars = regexp.MustCompile(`[^a-zA-Z0-9_]`)
