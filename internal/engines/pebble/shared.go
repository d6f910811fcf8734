package pebble

import (
	"context"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"manydb/internal/engine"
	"manydb/internal/engines/kvnote"
)

var (
	_ engine.SharedVariant       = (*Variant)(nil)
	_ engine.SharedVectorVariant = (*Variant)(nil)
)

// SharedMemTableSize is the shared store's memtable: Pebble's default
// (options.go), since one store holds every agent's notes.
const SharedMemTableSize = 4 << 20

// sharedLayout is the shared store of Pebble, for engine.SharedVariant.
const sharedLayout = "one Pebble store (its own directory of sstables, WAL and manifest), the variant's block and file caches, Pebble's default 4 MiB memtable; " +
	"an agent's keys are its number as 4 bytes big-endian followed by a store's keys (the note's id, 8 bytes), so an agent's notes lie together; " +
	"an agent's open makes its keys' prefix (no call); each agent's notes are one synced batch, left in the memtable for Pebble to flush; " +
	"deleting an agent is DeleteRange over its prefix (synced), then Compact of that range, which writes the sstables without the agent's keys and gives the space back"

// SharedLayout implements engine.SharedVariant.
func (v *Variant) SharedLayout() string { return sharedLayout }

// CreateShared implements engine.SharedVariant: a new store in dir.
func (v *Variant) CreateShared(dir string) (engine.SharedStore, error) {
	return v.createShared(dir, 0)
}

// CreateSharedVectors implements engine.SharedVectorVariant: CreateShared,
// with dims kept under kvnote.MarkerKey (after every agent's keys); each
// agent's embeddings follow its notes, under its prefix.
func (v *Variant) CreateSharedVectors(dir string, dims int) (engine.SharedStore, error) {
	if dims < 1 {
		return nil, fmt.Errorf("pebble create %s: %d dims, want at least 1", dir, dims)
	}
	return v.createShared(dir, dims)
}

// SharedVectorSearch implements engine.SharedVectorVariant.
func (v *Variant) SharedVectorSearch() engine.VectorSearch {
	return kvnote.VectorSearch("Pebble keys: the agent's 4-byte prefix, 0xFF and the note's id as 8 bytes big-endian, after the agent's notes, value the embedding as little-endian float32 values; an iterator over the agent's embeddings only")
}

// sharedOptions are the options of the shared store in dir.
func (v *Variant) sharedOptions() pebble.Options {
	opts := v.opts
	opts.MemTableSize = SharedMemTableSize
	return opts
}

// createShared makes the shared store, with the marker of dims when dims
// > 0.
func (v *Variant) createShared(dir string, dims int) (engine.SharedStore, error) {
	opts := v.sharedOptions()
	opts.ErrorIfExists = true
	db, err := pebble.Open(dir, &opts)
	if err != nil {
		return nil, fmt.Errorf("pebble create shared %s: %w", dir, err)
	}
	if dims > 0 {
		if err := db.Set(kvnote.MarkerKey(), kvnote.AppendDims(nil, dims), pebble.Sync); err != nil {
			db.Close()
			return nil, fmt.Errorf("pebble create shared %s: write the vector marker: %w", dir, err)
		}
	}
	return newShared(db, dims), nil
}

// OpenShared implements engine.SharedVariant; dims comes from the marker.
func (v *Variant) OpenShared(dir string) (engine.SharedStore, error) {
	opts := v.sharedOptions()
	opts.ErrorIfNotExists = true
	db, err := pebble.Open(dir, &opts)
	if err != nil {
		return nil, fmt.Errorf("pebble open shared %s: %w", dir, err)
	}
	s := newShared(db, 0)
	val, closer, err := db.Get(kvnote.MarkerKey())
	switch {
	case errors.Is(err, pebble.ErrNotFound):
		return s, nil
	case err != nil:
		db.Close()
		return nil, fmt.Errorf("pebble open shared %s: read the vector marker: %w", dir, err)
	}
	s.Dims, err = kvnote.Dims(val)
	closer.Close()
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("pebble open shared %s: %w", dir, err)
	}
	return s, nil
}

// newShared is the open shared store of db, with embeddings of dims
// values (0: none).
func newShared(db *pebble.DB, dims int) *kvnote.Shared[*pebble.DB] {
	return &kvnote.Shared[*pebble.DB]{DB: db, Dims: dims, View: agentStore, Delete: deleteKeys}
}

// agentStore is the store of an agent's keys in the shared store s.
func agentStore(s *kvnote.Shared[*pebble.DB], keys kvnote.Keys) engine.Store {
	return &store{db: s.DB, keys: keys, shared: true, dims: s.Dims, dimsKnown: true}
}

// deleteKeys deletes an agent's keys: a synced range deletion, then a
// compaction of that range.
func deleteKeys(db *pebble.DB, keys kvnote.Keys) error {
	if err := db.DeleteRange(keys.Prefix(), keys.End(), pebble.Sync); err != nil {
		return err
	}
	if err := db.Compact(context.Background(), keys.Prefix(), keys.End(), false); err != nil {
		return fmt.Errorf("compact its range: %w", err)
	}
	return nil
}
