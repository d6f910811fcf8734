package postgres

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"manydb/internal/engine"
)

// sharedStore is the shared layout's store: one schema, one notes table.
type sharedStore struct {
	pool   *pgxpool.Pool
	schema string
	table  *store // the whole table (its own agent: none)
}

// CreateShared implements engine.SharedVariant.
func (v *Variant) CreateShared(dir string) (engine.SharedStore, error) {
	if v.pool == nil {
		return nil, errNoServer
	}
	s := &sharedStore{pool: v.pool, schema: schemaOf(dir), table: newStore(v.pool, schemaOf(dir), -1)}
	if err := s.table.create(sharedTable); err != nil {
		return nil, err
	}
	return s, nil
}

// OpenShared implements engine.SharedVariant.
func (v *Variant) OpenShared(dir string) (engine.SharedStore, error) {
	if v.pool == nil {
		return nil, errNoServer
	}
	s := &sharedStore{pool: v.pool, schema: schemaOf(dir), table: newStore(v.pool, schemaOf(dir), -1)}
	if err := s.table.exists(); err != nil {
		return nil, err
	}
	return s, nil
}

// SharedLayout implements engine.SharedVariant.
func (v *Variant) SharedLayout() string {
	return "one schema, one table: " + fmt.Sprintf(sharedTable, "notes") +
		"; an agent's open runs no SQL (its statements name the agent); deleting an agent is DELETE … WHERE agent = $1, then VACUUM of the table: the space goes to the table's free space map for later writes, not back to the file system"
}

// Agent implements engine.SharedStore.
func (s *sharedStore) Agent(a int) (engine.Store, error) {
	if a < 0 {
		return nil, fmt.Errorf("agent %d: agents are numbered from 0", a)
	}
	return newStore(s.pool, s.schema, a), nil
}

// DeleteAgent implements engine.SharedStore.
func (s *sharedStore) DeleteAgent(a int) error {
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
