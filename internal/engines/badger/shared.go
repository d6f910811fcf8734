package badger

import (
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"manydb/internal/engine"
	"manydb/internal/engines/kvnote"
)

var (
	_ engine.SharedVariant       = (*Variant)(nil)
	_ engine.SharedVectorVariant = (*Variant)(nil)
)

// sharedLayout is the shared store of Badger, for engine.SharedVariant.
const sharedLayout = "one Badger database (its own directory of tables and value log) opened with Badger's defaults, made for one large database per process " +
	"(64 MiB memtables, 256 MiB block cache, 4 compactors), and synced writes; " +
	"an agent's keys are its number as 4 bytes big-endian followed by a store's keys (the note's id, 8 bytes), so an agent's notes lie together; " +
	"an agent's open makes its keys' prefix (no call); each agent's notes are one transaction; " +
	"deleting an agent is DropPrefix of its prefix, which flushes the memtables and rewrites the tables that hold its keys without them"

// SharedLayout implements engine.SharedVariant.
func (v *Variant) SharedLayout() string { return sharedLayout }

// sharedOptions returns the options of the shared store in dir: Badger's
// defaults with synced writes (as a store's), quiet, without metrics,
// and under the lean setting without what lean turns off.
func (v *Variant) sharedOptions(dir string) badger.Options {
	opts := badger.DefaultOptions(dir).
		WithSyncWrites(true).
		WithLoggingLevel(badger.ERROR).
		WithMetricsEnabled(false)
	if v.lean {
		opts = opts.WithDetectConflicts(false).WithBloomFalsePositive(0)
	}
	return opts
}

// CreateShared implements engine.SharedVariant: a new database in dir.
func (v *Variant) CreateShared(dir string) (engine.SharedStore, error) {
	return v.createShared(dir, 0)
}

// CreateSharedVectors implements engine.SharedVectorVariant: CreateShared,
// with dims kept under kvnote.MarkerKey (after every agent's keys); each
// agent's embeddings follow its notes, under its prefix.
func (v *Variant) CreateSharedVectors(dir string, dims int) (engine.SharedStore, error) {
	if dims < 1 {
		return nil, fmt.Errorf("badger create %s: %d dims, want at least 1", dir, dims)
	}
	return v.createShared(dir, dims)
}

// SharedVectorSearch implements engine.SharedVectorVariant.
func (v *Variant) SharedVectorSearch() engine.VectorSearch {
	return kvnote.VectorSearch("Badger keys: the agent's 4-byte prefix, 0xFF and the note's id as 8 bytes big-endian, after the agent's notes, value the embedding as little-endian float32 values; an iterator with that agent's prefix and 0xFF as Prefix")
}

// createShared makes the shared database, with the marker of dims when
// dims > 0.
func (v *Variant) createShared(dir string, dims int) (engine.SharedStore, error) {
	db, err := badger.Open(v.sharedOptions(dir))
	if err != nil {
		return nil, fmt.Errorf("badger create shared %s: %w", dir, err)
	}
	if dims > 0 {
		err := db.Update(func(txn *badger.Txn) error {
			return txn.Set(kvnote.MarkerKey(), kvnote.AppendDims(nil, dims))
		})
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("badger create shared %s: write the vector marker: %w", dir, err)
		}
	}
	return newShared(db, dims), nil
}

// OpenShared implements engine.SharedVariant; dims comes from the marker.
func (v *Variant) OpenShared(dir string) (engine.SharedStore, error) {
	db, err := badger.Open(v.sharedOptions(dir))
	if err != nil {
		return nil, fmt.Errorf("badger open shared %s (is another process holding it?): %w", dir, err)
	}
	s := newShared(db, 0)
	err = db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(kvnote.MarkerKey())
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) (err error) {
			s.Dims, err = kvnote.Dims(v)
			return err
		})
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("badger open shared %s: read the vector marker: %w", dir, err)
	}
	return s, nil
}

// newShared is the open shared store of db, with embeddings of dims
// values (0: none).
func newShared(db *badger.DB, dims int) *kvnote.Shared[*badger.DB] {
	return &kvnote.Shared[*badger.DB]{DB: db, Dims: dims, View: agentStore, Delete: deleteKeys}
}

// agentStore is the store of an agent's keys in the shared store s.
func agentStore(s *kvnote.Shared[*badger.DB], keys kvnote.Keys) engine.Store {
	return &store{db: s.DB, keys: keys, shared: true, dims: s.Dims, dimsKnown: true}
}

// deleteKeys deletes an agent's keys: DropPrefix of their prefix.
func deleteKeys(db *badger.DB, keys kvnote.Keys) error { return db.DropPrefix(keys.Prefix()) }
