// Package pebble is manydb's adapter for Pebble
// (github.com/cockroachdb/pebble/v2, pure Go, an LSM tree). Variant id:
// pebble.
//
// A store is a directory Pebble fills with its own files; a note's key is
// its id as 8 bytes big-endian, its value ts as 8 bytes big-endian followed
// by the text. One block cache and one file cache are shared by every
// store of the process (made by New, released by CloseVariant); every open
// sets a small memtable and the plain OS file system. Insert commits one
// synced batch and flushes it to an sstable; Count iterates over every
// note's key. docs/engines.md says why each option has its value.
//
// Under the lean setting (NewLean) every open sets MemTableSize to
// LeanMemTableSize: Pebble allocates a store's first memtable at
// min(256 KiB, MemTableSize) when it opens (options.go, open.go), and each
// memtable reserves its size in the shared block cache.
//
// A store made by CreateVectors also keeps each note's embedding, as a
// float32 blob under the key 0xFF and the note's key, after the key 0xFF
// that holds dims (kvnote's layout); the notes' iterators stop before
// 0xFF (UpperBound), and KNN iterates from it (LowerBound) and keeps the
// nearest in Go (kvnote.Search).
//
// The shared layout (shared.go) keeps every agent's notes in one Pebble
// store, the keys of each agent those of a store after the agent's prefix
// (kvnote.AgentKeys).
package pebble

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"manydb/internal/engine"
	"manydb/internal/engines/kvnote"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// The interfaces this package implements.
var (
	_ engine.Variant       = (*Variant)(nil)
	_ engine.VectorVariant = (*Variant)(nil)
	_ engine.Closer        = (*Variant)(nil)
	_ engine.Optioner      = (*Variant)(nil)
	_ engine.Store         = (*store)(nil)
	_ engine.VectorStore   = (*store)(nil)
)

// Sizes of the process-wide caches and of each store's memtable.
const (
	CacheSize     = 32 << 20 // bytes, shared block cache
	FileCacheSize = 16384    // open sstables, shared file cache
	MemTableSize  = 1 << 20  // bytes, per store
	// LeanMemTableSize is the lean setting's memtable: the create's
	// batch of 1,000 notes (about 330 KB) is then larger than half of it,
	// and Pebble writes it as a flushable batch (open.go's
	// largeBatchThreshold).
	LeanMemTableSize = 64 << 10
)

// Variant is the pebble variant.
type Variant struct {
	cache     *pebble.Cache
	fileCache *pebble.FileCache
	opts      pebble.Options
	options   map[string]string // what lean set
}

// ID is the variant id.
const ID = "pebble"

// Factories lists the variant of this package for its worker.
func Factories() []engine.Factory { return []engine.Factory{{ID: ID, New: New, Lean: NewLean}} }

// New returns the pebble variant with its shared caches.
func New() (engine.Variant, error) { return newVariant(MemTableSize, nil), nil }

// NewLean returns the pebble variant under the lean setting: every store's
// memtable LeanMemTableSize.
func NewLean() (engine.Variant, error) {
	return newVariant(LeanMemTableSize, map[string]string{"Options.MemTableSize": fmt.Sprint(LeanMemTableSize)}), nil
}

// Options implements engine.Optioner.
func (v *Variant) Options() map[string]string { return v.options }

func newVariant(memTableSize uint64, options map[string]string) *Variant {
	v := &Variant{
		options:   options,
		cache:     pebble.NewCache(CacheSize),
		fileCache: pebble.NewFileCache(4, FileCacheSize),
	}
	v.opts = pebble.Options{
		Cache:              v.cache,
		FileCache:          v.fileCache,
		MemTableSize:       memTableSize,
		FormatMajorVersion: pebble.FormatNewest,
		Logger:             quietLogger{},
		FS:                 vfs.Default,
	}
	return v
}

// CloseVariant implements engine.Closer: it drops the variant's references
// to the shared caches (each open store holds its own until it closes).
func (v *Variant) CloseVariant() error {
	v.cache.Unref()
	v.fileCache.Unref()
	return nil
}

// ID implements engine.Variant.
func (v *Variant) ID() string { return ID }

// Versions implements engine.Variant: Pebble has no version string of its
// own, so "pebble" is its module version from the build info (absent in
// a test binary); pebble_format is the format major version of new stores.
func (v *Variant) Versions() map[string]string {
	out := map[string]string{"pebble_format": fmt.Sprint(v.opts.FormatMajorVersion)}
	if m := engine.ModuleVersion("github.com/cockroachdb/pebble/v2"); m != "" {
		out["pebble"] = m
	}
	return out
}

// Create implements engine.Variant.
func (v *Variant) Create(dir string) (engine.Store, error) {
	opts := v.opts
	opts.ErrorIfExists = true
	db, err := pebble.Open(dir, &opts)
	if err != nil {
		return nil, fmt.Errorf("pebble create %s: %w", dir, err)
	}
	return &store{db: db, keys: kvnote.StoreKeys(), dimsKnown: true}, nil
}

// CreateVectors implements engine.VectorVariant: Create, and the marker
// key holding dims, committed with pebble.Sync.
func (v *Variant) CreateVectors(dir string, dims int) (engine.Store, error) {
	if dims < 1 {
		return nil, fmt.Errorf("pebble create %s: %d dims, want at least 1", dir, dims)
	}
	st, err := v.Create(dir)
	if err != nil {
		return nil, err
	}
	s := st.(*store)
	if err := s.db.Set(kvnote.MarkerKey(), kvnote.AppendDims(nil, dims), pebble.Sync); err != nil {
		s.Close()
		return nil, fmt.Errorf("pebble create %s: write the vector marker: %w", dir, err)
	}
	s.dims = dims
	return s, nil
}

// VectorSearch implements engine.VectorVariant.
func (v *Variant) VectorSearch() engine.VectorSearch {
	return kvnote.VectorSearch("Pebble keys 0xFF + the note's id as 8 bytes big-endian, after the notes' keys, value the embedding as little-endian float32 values; an iterator with LowerBound 0xFF")
}

// Open implements engine.Variant. It reads nothing: whether the store has
// vectors is read when a note with an embedding is written (dims).
func (v *Variant) Open(dir string) (engine.Store, error) {
	opts := v.opts
	opts.ErrorIfNotExists = true
	db, err := pebble.Open(dir, &opts)
	if err != nil {
		return nil, fmt.Errorf("pebble open %s (is another process holding it?): %w", dir, err)
	}
	return &store{db: db, keys: kvnote.StoreKeys()}, nil
}

// store is an open store, or an agent of a shared store (shared: its
// keys after the agent's prefix, and Close leaves the store open).
type store struct {
	db     *pebble.DB
	keys   kvnote.Keys
	shared bool
	kbuf   []byte // the last key made
	// dims is the embeddings' length, 0 in a store without vectors;
	// known once made or read from the marker.
	dims      int
	dimsKnown bool
	search    kvnote.Search
}

// vectorDims returns the embeddings' length, 0 when the store has no
// vectors, reading the marker the first time.
func (s *store) vectorDims() (int, error) {
	if s.dimsKnown {
		return s.dims, nil
	}
	v, closer, err := s.db.Get(kvnote.MarkerKey())
	if errors.Is(err, pebble.ErrNotFound) {
		s.dimsKnown = true
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read the vector marker: %w", err)
	}
	s.dims, err = kvnote.Dims(v)
	closer.Close()
	s.dimsKnown = err == nil
	return s.dims, err
}

// setEmb adds the embedding of n to b when n has one and the store has
// vectors.
func (s *store) setEmb(b *pebble.Batch, n workload.Note, blob []byte) ([]byte, error) {
	if n.Emb == nil {
		return blob, nil
	}
	dims, err := s.vectorDims()
	if err != nil || dims == 0 {
		return blob, err
	}
	if err := kvnote.CheckEmb(n, dims); err != nil {
		return blob, err
	}
	blob = vector.AppendBlob(blob[:0], n.Emb)
	s.kbuf = s.keys.AppendEmb(s.kbuf[:0], n.ID)
	if err := b.Set(s.kbuf, blob, nil); err != nil { // Set copies both
		return blob, fmt.Errorf("put the embedding of note %d: %w", n.ID, err)
	}
	return blob, nil
}

// Insert commits all notes in one synced batch, with the embedding of
// each note that has one when the store has vectors, then flushes the
// memtable of a store of its own (a shared store's memtable is the
// agents' together: Pebble flushes it when it is full).
func (s *store) Insert(notes []workload.Note) error {
	b := s.db.NewBatch()
	defer b.Close()
	var key []byte
	val := make([]byte, 0, 512)
	var blob []byte
	for _, n := range notes {
		key = s.keys.AppendNote(key[:0], n.ID)
		val = binary.BigEndian.AppendUint64(val[:0], uint64(n.Ts))
		val = append(val, n.Text...)
		if err := b.Set(key, val, nil); err != nil { // Set copies both
			return fmt.Errorf("put note %d: %w", n.ID, err)
		}
		var err error
		if blob, err = s.setEmb(b, n, blob); err != nil {
			return err
		}
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if s.shared {
		return nil
	}
	if err := s.db.Flush(); err != nil {
		return fmt.Errorf("flush the memtable: %w", err)
	}
	return nil
}

// notes are the iterator options of the store's notes: from its prefix
// to its marker.
func (s *store) notes() *pebble.IterOptions {
	return &pebble.IterOptions{LowerBound: s.keys.Prefix(), UpperBound: s.keys.Marker()}
}

// Count iterates over every note's key.
func (s *store) Count() (int64, error) {
	it, err := s.db.NewIter(s.notes())
	if err != nil {
		return 0, err
	}
	var n int64
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	return n, nil
}

// Close closes the DB; an agent of a shared store releases nothing.
func (s *store) Close() error {
	if s.shared {
		return nil
	}
	return s.db.Close()
}

// quietLogger drops Pebble's informational messages; errors go to
// Pebble's default logger (stderr), and Fatalf stops the process as
// Pebble's default does.
type quietLogger struct{}

func (quietLogger) Infof(format string, args ...any)  {}
func (quietLogger) Errorf(format string, args ...any) { pebble.DefaultLogger.Errorf(format, args...) }
func (quietLogger) Fatalf(format string, args ...any) { pebble.DefaultLogger.Fatalf(format, args...) }

// Recent implements engine.Store: an iterator from the last key backwards.
func (s *store) Recent(n int, dst []workload.Note) (_ []workload.Note, err error) {
	it, err := s.db.NewIter(s.notes())
	if err != nil {
		return dst, err
	}
	defer func() { err = errors.Join(err, it.Close()) }()
	for ok := it.Last(); ok && n > 0; ok = it.Prev() {
		note, err := s.keys.Decode(it.Key(), it.Value())
		if err != nil {
			return dst, err
		}
		dst = append(dst, note)
		n--
	}
	return dst, nil
}

// Get implements engine.Store: one Get per id.
func (s *store) Get(ids []int64, dst []workload.Note) ([]workload.Note, error) {
	for _, id := range ids {
		s.kbuf = s.keys.AppendNote(s.kbuf[:0], id)
		v, closer, err := s.db.Get(s.kbuf)
		if errors.Is(err, pebble.ErrNotFound) {
			return dst, fmt.Errorf("note %d: %w", id, engine.ErrNotFound)
		}
		if err != nil {
			return dst, err
		}
		note, err := s.keys.Decode(s.kbuf, v)
		closer.Close()
		if err != nil {
			return dst, err
		}
		dst = append(dst, note)
	}
	return dst, nil
}

// Scan implements engine.Store: an iterator from the first key on.
func (s *store) Scan(fn func(workload.Note)) (err error) {
	it, err := s.db.NewIter(s.notes())
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, it.Close()) }()
	for ok := it.First(); ok; ok = it.Next() {
		note, err := s.keys.Decode(it.Key(), it.Value())
		if err != nil {
			return err
		}
		fn(note)
	}
	return nil
}

// Append implements engine.Store: one Set committed with pebble.Sync
// (the write-ahead log synced, as Insert's batch is; no memtable flush,
// which an application appending a note would not force). A note with an
// embedding, in a store with vectors, is a batch of two Sets instead.
func (s *store) Append(n workload.Note) error {
	s.kbuf = s.keys.AppendNote(s.kbuf[:0], n.ID)
	if n.Emb != nil {
		dims, err := s.vectorDims()
		if err != nil {
			return err
		}
		if dims > 0 {
			b := s.db.NewBatch()
			defer b.Close()
			if err := b.Set(s.kbuf, kvnote.AppendValue(nil, n), nil); err != nil {
				return fmt.Errorf("put note %d: %w", n.ID, err)
			}
			if _, err := s.setEmb(b, n, nil); err != nil {
				return err
			}
			return b.Commit(pebble.Sync)
		}
	}
	return s.db.Set(s.kbuf, kvnote.AppendValue(nil, n), pebble.Sync)
}

// KNN implements engine.VectorStore: one iterator from the marker's key
// on (LowerBound), the marker first (in a store of its own; an agent of a
// shared store knows dims from the shared store's) and then every
// embedding, each compared with q in Go.
func (s *store) KNN(q []float32, k int, dst []int64) (_ []int64, err error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: s.keys.Marker(), UpperBound: s.keys.End()})
	if err != nil {
		return dst, err
	}
	defer func() { err = errors.Join(err, it.Close()) }()
	ok := it.First()
	dims := s.dims
	if ok && bytes.Equal(it.Key(), s.keys.Marker()) {
		if dims, err = kvnote.Dims(it.Value()); err != nil {
			return dst, err
		}
		ok = it.Next()
	}
	if dims == 0 {
		return dst, kvnote.NoVectors("pebble")
	}
	if err := s.search.Start(q, k, dims); err != nil {
		return dst, err
	}
	for ; ok; ok = it.Next() {
		id, err := s.keys.EmbID(it.Key())
		if err != nil {
			return dst, err
		}
		if err := s.search.Offer(id, it.Value()); err != nil {
			return dst, err
		}
	}
	return s.search.AppendIDs(dst), nil
}
