package postgres

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"

	"manydb/internal/engine"
	"manydb/internal/workload"
)

// TestStatementCache shows where a schema per agent's statements go:
// each agent's read and append name its own table, so pgx prepares them
// on the connection that runs them (a named prepared statement in its
// server backend) and keeps them in its statement cache, 512 a
// connection by default (statement_cache_capacity). The backend holds 2
// per agent that turned on the connection until the cache evicts them;
// with a cache of 4 it holds the last 3 beside the open's check, and
// each agent's next turn prepares its statements again: 7 round trips,
// the 5 of a first turn and, before two of its queries, one that
// deallocates the statement the cache evicted.
func TestStatementCache(t *testing.T) {
	if srv.s == nil {
		t.Skip(srv.skip)
	}
	const agents = 5
	spec := workload.Spec{Name: "custom", Objects: 20, TextLen: 20}
	dirs := make([]string, agents)
	maker := &Variant{} // as manydb's create phase: a worker of its own
	if err := maker.UseServer(srv.s.DSN("statement_cache")); err != nil {
		t.Fatal(err)
	}
	for i := range dirs {
		dirs[i] = filepath.Join(t.TempDir(), strconv.Itoa(i))
		makeStore(t, maker, dirs[i], spec, i)
	}
	maker.CloseVariant()
	for k, c := range []struct {
		capacity    string
		held, again int64
	}{
		{"", 2 * agents, 3},
		{" statement_cache_capacity=4", 3, 7}, // the open's to_regclass is the 4th
	} {
		v, w := countedVariant(t, "statement_cache", c.capacity)
		for i, dir := range dirs {
			turnTrips(t, w, func() (engine.Store, error) { return v.Open(dir) }, spec.TurnNote(i, 2*k+1)) // each case's turns after the one's before
		}
		for i, dir := range dirs {
			if got := turnTrips(t, w, func() (engine.Store, error) { return v.Open(dir) }, spec.TurnNote(i, 2*k+2)); got != c.again {
				t.Errorf("cache%s: agent %d's second turn took %d round trips, want %d", c.capacity, i, got, c.again)
			}
		}
		if held := agentStatements(t, v); held != c.held {
			t.Errorf("cache%s: the backend holds %d prepared statements of the agents' tables after the turns of %d agents, want %d", c.capacity, held, agents, c.held)
		}
	}
}

// agentStatements is how many prepared statements that name a store's
// table the backend of v's one connection holds, asked unprepared.
func agentStatements(t *testing.T, v *Variant) int64 {
	t.Helper()
	var n int64
	q := `SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%"store\_%'`
	if err := v.pool.QueryRow(ctx, q, pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
