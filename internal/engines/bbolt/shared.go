package bbolt

import (
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"manydb/internal/engine"
	"manydb/internal/engines/kvnote"
)

var (
	_ engine.SharedVariant       = (*Variant)(nil)
	_ engine.SharedVectorVariant = (*Variant)(nil)
	_ engine.SharedStore         = (*shared)(nil)
)

// sharedLayout is the shared store of bbolt, for engine.SharedVariant.
const sharedLayout = "one bbolt file, notes.db, with a bucket per agent (named by its number, 6 digits) keyed as a store's notes; " +
	"an agent's open names its bucket (no transaction); deleting an agent is DeleteBucket in one synced transaction: " +
	"its pages go to bbolt's freelist for later writes, and the file never shrinks"

// CreateShared implements engine.SharedVariant: a new file, each agent's
// bucket made by its first write.
func (v *Variant) CreateShared(dir string) (engine.SharedStore, error) { return v.createShared(dir, 0) }

// CreateSharedVectors implements engine.SharedVectorVariant: CreateShared,
// with the embeddings' length kept in the file (metaBucket's sequence);
// each agent's embeddings go to a bucket of its own beside its notes'.
func (v *Variant) CreateSharedVectors(dir string, dims int) (engine.SharedStore, error) {
	if dims < 1 {
		return nil, fmt.Errorf("bbolt create %s: %d dims, want at least 1", dir, dims)
	}
	return v.createShared(dir, dims)
}

// SharedVectorSearch implements engine.SharedVectorVariant.
func (v *Variant) SharedVectorSearch() engine.VectorSearch {
	return kvnote.VectorSearch(`bbolt bucket per agent ("NNNNNN.emb") beside its notes' bucket: key the note's id as 8 bytes big-endian, value the embedding as little-endian float32 values; a cursor over the agent's bucket`)
}

// metaBucket holds, in its sequence, the embeddings' length of a shared
// store with embeddings (0: none).
const metaBucket = "meta"

// createShared makes the shared store's file, with metaBucket when dims
// > 0.
func (v *Variant) createShared(dir string, dims int) (engine.SharedStore, error) {
	db, err := open(dir, &v.opts)
	if err != nil {
		return nil, err
	}
	if dims > 0 {
		err = db.Update(func(tx *bolt.Tx) error {
			m, err := tx.CreateBucket([]byte(metaBucket))
			if err != nil {
				return err
			}
			return m.SetSequence(uint64(dims))
		})
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("bbolt create %s: %w", dir, err)
		}
	}
	return &shared{db: db, fill: v.fill, dims: dims}, nil
}

// OpenShared implements engine.SharedVariant; the embeddings' length comes
// from the file.
func (v *Variant) OpenShared(dir string) (engine.SharedStore, error) {
	db, err := open(dir, &v.openOpts)
	if err != nil {
		return nil, err
	}
	var dims int
	db.View(func(tx *bolt.Tx) error {
		if m := tx.Bucket([]byte(metaBucket)); m != nil {
			dims = int(m.Sequence())
		}
		return nil
	})
	return &shared{db: db, fill: v.fill, dims: dims}, nil
}

// SharedLayout implements engine.SharedVariant.
func (v *Variant) SharedLayout() string { return sharedLayout }

// shared is an open shared store: one file, a bucket per agent.
type shared struct {
	db   *bolt.DB
	fill float64
	dims int // the embeddings' length; 0: none
}

// agentBucket names agent a's bucket, and agentEmbBucket that of its
// embeddings.
func agentBucket(a int) []byte    { return []byte(fmt.Sprintf("%06d", a)) }
func agentEmbBucket(a int) []byte { return []byte(fmt.Sprintf("%06d.emb", a)) }

// Agent implements engine.SharedStore.
func (s *shared) Agent(a int) (engine.Store, error) {
	return &store{db: s.db, fill: s.fill, name: agentBucket(a), emb: agentEmbBucket(a), shared: true, dims: s.dims}, nil
}

// DeleteAgent implements engine.SharedStore: the agent's buckets (its
// embeddings' too, when it has them) in one transaction.
func (s *shared) DeleteAgent(a int) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(agentBucket(a)); err != nil {
			return err
		}
		if err := tx.DeleteBucket(agentEmbBucket(a)); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return err
		}
		return nil
	})
}

// Close implements engine.SharedStore.
func (s *shared) Close() error { return s.db.Close() }
