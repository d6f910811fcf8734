package postgres

import (
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"manydb/internal/engine"
)

// sharedStore is the shared layout's store: one schema, one notes table,
// with a partition per agent when partitioned.
type sharedStore struct {
	pool        *pgxpool.Pool
	schema      string
	table       *store // the whole table (its own agent: none)
	partitioned bool
}

// sharedStore returns the shared store of dir, not yet made or checked.
func (v *Variant) sharedStore(dir string) *sharedStore {
	return &sharedStore{pool: v.pool, schema: schemaOf(dir), table: newStore(v.pool, schemaOf(dir), -1), partitioned: v.partitioned()}
}

// sharedDefinition is the shared table's definition (its columns in
// table, a format of its name), partitioned by agent when the variant
// has a partition per agent.
func (v *Variant) sharedDefinition(table string) string {
	if v.partitioned() {
		return table + " PARTITION BY LIST (agent)"
	}
	return table
}

// CreateShared implements engine.SharedVariant.
func (v *Variant) CreateShared(dir string) (engine.SharedStore, error) {
	if v.pool == nil {
		return nil, errNoServer
	}
	s := v.sharedStore(dir)
	if err := s.table.create(v.sharedDefinition(sharedTable)); err != nil {
		return nil, err
	}
	return s, nil
}

// OpenShared implements engine.SharedVariant.
func (v *Variant) OpenShared(dir string) (engine.SharedStore, error) {
	if v.pool == nil {
		return nil, errNoServer
	}
	s := v.sharedStore(dir)
	if err := s.table.exists(); err != nil {
		return nil, err
	}
	return s, nil
}

// SharedLayout implements engine.SharedVariant.
func (v *Variant) SharedLayout() string {
	if v.partitioned() {
		return "one schema, one table partitioned by agent: " + v.sharedDefinition(fmt.Sprintf(sharedTable, "notes")) +
			", and a partition per agent (CREATE TABLE notes_AGENT PARTITION OF notes FOR VALUES IN (AGENT), made in the transaction of the agent's first write) with its own indexes; an agent's open runs no SQL (its statements name the agent, and the planner keeps the agent's partition only: every connection has plan_cache_mode = " + partitionPlans + "); deleting an agent is DROP TABLE of its partition: its files go back to the file system"
	}
	return "one schema, one table: " + fmt.Sprintf(sharedTable, "notes") +
		"; an agent's open runs no SQL (its statements name the agent); deleting an agent is DELETE … WHERE agent = $1, then VACUUM of the table: the space goes to the table's free space map for later writes, not back to the file system"
}

// Agent implements engine.SharedStore.
func (s *sharedStore) Agent(a int) (engine.Store, error) {
	if a < 0 {
		return nil, fmt.Errorf("agent %d: agents are numbered from 0", a)
	}
	st := newStore(s.pool, s.schema, a)
	if s.partitioned {
		st.partition = s.partitionOf(a)
	}
	return st, nil
}

// partitionOf names agent a's partition, quoted.
func (s *sharedStore) partitionOf(a int) string {
	return pgx.Identifier{s.schema, fmt.Sprintf("notes_%d", a)}.Sanitize()
}

// DeleteAgent implements engine.SharedStore.
func (s *sharedStore) DeleteAgent(a int) error {
	if s.partitioned {
		if _, err := s.pool.Exec(ctx, "DROP TABLE "+s.partitionOf(a)); err != nil {
			return fmt.Errorf("delete agent %d: %w", a, err)
		}
		return nil
	}
	if _, err := s.pool.Exec(ctx, "DELETE FROM "+s.table.table+" WHERE agent = $1", a); err != nil {
		return fmt.Errorf("delete agent %d: %w", a, err)
	}
	if _, err := s.pool.Exec(ctx, "VACUUM "+s.table.table); err != nil {
		return fmt.Errorf("vacuum after deleting agent %d: %w", a, err)
	}
	return nil
}

// Close implements engine.SharedStore: the pool is the variant's.
func (s *sharedStore) Close() error { return nil }
