package postgres

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"manydb/internal/engine"
	"manydb/internal/workload"
)

// wire counts the round trips of the connections it dials: each time a
// connection reads after it wrote, its client waited for the answer to
// what it sent.
type wire struct{ trips atomic.Int64 }

// counted makes a pool's connections counted, and keeps the pool from
// pinging a connection idle for more than a second before it lends it
// (pgxpool's default), a round trip a turn of the test makes or not as
// the machine's load decides.
func (w *wire) counted(cfg *pgxpool.Config) {
	cfg.ConnConfig.DialFunc = w.dial
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
}

// dial is a pgconn.DialFunc: pgx's own dial, its connection counted.
func (w *wire) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &countedConn{Conn: c, w: w}, nil
}

// countedConn is a connection whose round trips its wire counts.
type countedConn struct {
	net.Conn
	w     *wire
	wrote atomic.Bool
}

func (c *countedConn) Write(b []byte) (int, error) {
	c.wrote.Store(true)
	return c.Conn.Write(b)
}

func (c *countedConn) Read(b []byte) (int, error) {
	if c.wrote.Swap(false) {
		c.w.trips.Add(1)
	}
	return c.Conn.Read(b)
}

// turnTrips is the round trips of one agent's turn as manydb's turn
// makes it (internal/worker/turn.go, without embeddings): open, the
// newest notes, an append in its own transaction, close.
func turnTrips(t *testing.T, w *wire, open func() (engine.Store, error), note workload.Note) int64 {
	t.Helper()
	before := w.trips.Load()
	s, err := open()
	if err == nil {
		_, err = s.Recent(10, nil)
	}
	if err == nil {
		err = s.Append(note)
	}
	if err == nil {
		err = s.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return w.trips.Load() - before
}

// TestTurnRoundTrips counts what a turn of a schema per agent sends to
// the server and waits for, on a pool of one connection: the open's
// to_regclass check, and each statement of the agent's own table
// prepared (pgx's statement cache, its default mode) before it runs, the
// first time the connection runs it. An application that knows its
// agent's table exists and runs its statements unprepared
// (QueryExecModeExec) needs 2: the read and the append.
func TestTurnRoundTrips(t *testing.T) {
	v, w := countedVariant(t, "round_trips", "")
	spec := workload.Spec{Name: "custom", Objects: 20, TextLen: 20}
	dirs := make([]string, 3)
	for i := range dirs {
		dirs[i] = filepath.Join(t.TempDir(), strconv.Itoa(i))
		makeStore(t, v, dirs[i], spec, i)
	}
	openDir := func(dir string) func() (engine.Store, error) {
		return func() (engine.Store, error) { return v.Open(dir) }
	}
	turnTrips(t, w, openDir(dirs[0]), spec.TurnNote(0, 1)) // the connection's first to_regclass prepared
	for _, c := range []struct {
		agent, turn int
		want        int64
		what        string
	}{
		{1, 1, 5, "an agent's first turn on the connection: to_regclass; prepare and run the read; prepare and run the append"},
		{2, 1, 5, "another agent's first turn"},
		{1, 2, 3, "the agent's next turn, its statements still in the connection's cache"},
	} {
		if got := turnTrips(t, w, openDir(dirs[c.agent]), spec.TurnNote(c.agent, c.turn)); got != c.want {
			t.Errorf("agent %d, turn %d: %d round trips, want %d (%s)", c.agent, c.turn, got, c.want, c.what)
		}
	}
	app := appPool(t, w, srv.s.DSN("round_trips"))
	open := func() (engine.Store, error) { return newStore(app, schemaOf(dirs[2]), -1), nil }
	if got := turnTrips(t, w, open, spec.TurnNote(2, 2)); got != 2 {
		t.Errorf("an application's turn, unprepared and without the open's check: %d round trips, want 2", got)
	}
}

// countedVariant is a variant on the tests' server's database db, its
// pool one connection whose round trips the wire counts, with more
// connection settings (" key=value"); it skips t without a server.
func countedVariant(t *testing.T, db, settings string) (*Variant, *wire) {
	t.Helper()
	if srv.s == nil {
		t.Skip(srv.skip)
	}
	w := &wire{}
	v := &Variant{configure: w.counted}
	if err := v.UseServer(srv.s.DSN(db) + " pool_max_conns=1" + settings); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.CloseVariant() })
	return v, w
}

// makeStore creates the store of agent i in dir with spec's notes.
func makeStore(t *testing.T, v *Variant, dir string, spec workload.Spec, i int) {
	t.Helper()
	s, err := v.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	notes := make([]workload.Note, spec.Objects)
	spec.Fill(i, notes)
	if err := s.Insert(notes); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// appPool is a pool of one connection dialled through w that runs every
// statement unprepared (pgx.QueryExecModeExec), as an application may.
func appPool(t *testing.T, w *wire, dsn string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn + " pool_max_conns=1")
	if err != nil {
		t.Fatal(err)
	}
	w.counted(cfg)
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.Ping(ctx); err != nil { // the connection made before the count
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// TestSharedTurnRoundTrips: in the shared table an agent's open sends
// nothing and its statements are the same text for every agent, prepared
// once on the connection, so a turn is 2 round trips.
func TestSharedTurnRoundTrips(t *testing.T) {
	v, w := countedVariant(t, "shared_round_trips", "")
	spec := workload.Spec{Name: "custom", Objects: 20, TextLen: 20}
	s, err := sharedWithAgents(v, t.TempDir(), true, spec, 2)
	if err != nil {
		t.Fatal(err)
	}
	agent := func(a int) func() (engine.Store, error) { return func() (engine.Store, error) { return s.Agent(a) } }
	turnTrips(t, w, agent(0), spec.TurnNote(0, 1)) // the statements prepared on the connection
	if got := turnTrips(t, w, agent(1), spec.TurnNote(1, 1)); got != 2 {
		t.Errorf("another agent's turn in the shared table: %d round trips, want 2", got)
	}
}
