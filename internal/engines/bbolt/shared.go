package bbolt

import (
	"fmt"

	bolt "go.etcd.io/bbolt"

	"manydb/internal/engine"
)

var (
	_ engine.SharedVariant = (*Variant)(nil)
	_ engine.SharedStore   = (*shared)(nil)
)

// sharedLayout is the shared store of bbolt, for engine.SharedVariant.
const sharedLayout = "one bbolt file, notes.db, with a bucket per agent (named by its number, 6 digits) keyed as a store's notes; " +
	"an agent's open names its bucket (no transaction); deleting an agent is DeleteBucket in one synced transaction: " +
	"its pages go to bbolt's freelist for later writes, and the file never shrinks"

// CreateShared implements engine.SharedVariant: a new file, each agent's
// bucket made by its first write.
func (v *Variant) CreateShared(dir string) (engine.SharedStore, error) {
	db, err := open(dir, &v.opts)
	if err != nil {
		return nil, err
	}
	return &shared{db: db, fill: v.fill}, nil
}

// OpenShared implements engine.SharedVariant.
func (v *Variant) OpenShared(dir string) (engine.SharedStore, error) {
	db, err := open(dir, &v.openOpts)
	if err != nil {
		return nil, err
	}
	return &shared{db: db, fill: v.fill}, nil
}

// SharedLayout implements engine.SharedVariant.
func (v *Variant) SharedLayout() string { return sharedLayout }

// shared is an open shared store: one file, a bucket per agent.
type shared struct {
	db   *bolt.DB
	fill float64
}

// agentBucket names agent a's bucket.
func agentBucket(a int) []byte { return []byte(fmt.Sprintf("%06d", a)) }

// Agent implements engine.SharedStore.
func (s *shared) Agent(a int) (engine.Store, error) {
	return &store{db: s.db, fill: s.fill, name: agentBucket(a), shared: true}, nil
}

// DeleteAgent implements engine.SharedStore.
func (s *shared) DeleteAgent(a int) error {
	return s.db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(agentBucket(a)) })
}

// Close implements engine.SharedStore.
func (s *shared) Close() error { return s.db.Close() }
