// Package badger is manydb's adapter for Badger
// (github.com/dgraph-io/badger/v4, pure Go, an LSM tree with a value log).
// Variant id: badger.
//
// A store is a directory Badger fills with its own files; a note's key is
// its id as 8 bytes big-endian, its value ts as 8 bytes big-endian followed
// by the text. Badger's defaults are made for one large database per
// process, so every open sets small memtables, no caches, no compactors
// and synced writes (options, below). Close flushes the memtable to a
// table; Count iterates over every note's key without fetching values.
// docs/engines.md says why each option has its value.
//
// Under the lean setting (NewLean) every open also turns off what the
// adapter left at Badger's defaults and manydb's stores do not need:
// conflict detection (one writer per store) and bloom filters
// (LeanOptions). The memtable stays at MemTableSize: a transaction may use
// 15 % of it, and the create writes about 340 KB in one.
//
// A store made by CreateVectors also keeps each note's embedding, as a
// float32 blob under the key 0xFF and the note's key, after the key 0xFF
// that holds dims (kvnote's layout): the notes' iterators stop at the
// first key that is not a note's (a reverse one starts at the largest
// note key the store may have), and KNN iterates over the prefix 0xFF and
// keeps the nearest in Go (kvnote.Search). An embedding of 256 values or
// more (1 KiB) passes ValueThreshold and goes to the value log, where the
// transaction counts it as a 12-byte pointer; one of fewer values stays in
// the LSM tree and counts whole against the transaction's limit (15 % of
// MemTableSize): 1,000 notes of 300 characters with 128 dims exceed it.
//
// The shared layout (shared.go) keeps every agent's notes in one Badger
// database opened with Badger's defaults, the keys of each agent those of
// a store after the agent's prefix (kvnote.AgentKeys).
package badger

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"manydb/internal/engine"
	"manydb/internal/engines/kvnote"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// The interfaces this package implements.
var (
	_ engine.Variant       = (*Variant)(nil)
	_ engine.VectorVariant = (*Variant)(nil)
	_ engine.Optioner      = (*Variant)(nil)
	_ engine.Store         = (*store)(nil)
	_ engine.VectorStore   = (*store)(nil)
)

// Option values; see the package documentation.
const (
	MemTableSize     = 4 << 20
	ValueLogFileSize = 1 << 20
	ValueThreshold   = 1 << 10
)

// Variant is the badger variant.
type Variant struct {
	lean bool
}

// ID is the variant id.
const ID = "badger"

// Factories lists the variant of this package for its worker.
func Factories() []engine.Factory { return []engine.Factory{{ID: ID, New: New, Lean: NewLean}} }

// New returns the badger variant.
func New() (engine.Variant, error) { return &Variant{}, nil }

// NewLean returns the badger variant under the lean setting: every store
// opened with LeanOptions.
func NewLean() (engine.Variant, error) { return &Variant{lean: true}, nil }

// Options implements engine.Optioner.
func (v *Variant) Options() map[string]string {
	if !v.lean {
		return nil
	}
	return map[string]string{"WithDetectConflicts": "false", "WithBloomFalsePositive": "0"}
}

// ID implements engine.Variant.
func (v *Variant) ID() string { return ID }

// Versions implements engine.Variant: Badger has no version string of its
// own, so "badger" is its module version from the build info (absent in
// a test binary).
func (v *Variant) Versions() map[string]string {
	if m := engine.ModuleVersion("github.com/dgraph-io/badger/v4"); m != "" {
		return map[string]string{"badger": m}
	}
	return nil
}

// Options returns the options of a store in dir.
func Options(dir string) badger.Options {
	return badger.DefaultOptions(dir).
		WithMemTableSize(MemTableSize).
		WithNumMemtables(1).
		WithBlockCacheSize(0).
		WithIndexCacheSize(0).
		WithCompression(options.None).
		WithValueLogFileSize(ValueLogFileSize).
		WithValueThreshold(ValueThreshold).
		WithNumCompactors(0).
		WithNumGoroutines(1).
		WithMetricsEnabled(false).
		WithLoggingLevel(badger.ERROR).
		WithSyncWrites(true)
}

// LeanOptions returns the options of a store in dir under the lean
// setting: Options, and no conflict detection (WithDetectConflicts: the
// oracle's per-transaction key tracking, for concurrent writers) and no
// bloom filters (WithBloomFalsePositive 0: one per table, for point
// lookups); badger v4 options.go.
func LeanOptions(dir string) badger.Options {
	return Options(dir).WithDetectConflicts(false).WithBloomFalsePositive(0)
}

// open opens the store in dir; dimsKnown says that the caller knows
// whether it has vectors (Create: it has none).
func (v *Variant) open(dir string, dimsKnown bool) (*store, error) {
	opts := Options(dir)
	if v.lean {
		opts = LeanOptions(dir)
	}
	db, err := badger.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("badger open %s (is another process holding it?): %w", dir, err)
	}
	return &store{db: db, keys: kvnote.StoreKeys(), dimsKnown: dimsKnown}, nil
}

// Create implements engine.Variant. Badger has no schema to commit.
func (v *Variant) Create(dir string) (engine.Store, error) {
	s, err := v.open(dir, true)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// CreateVectors implements engine.VectorVariant: Create, and the marker
// key holding dims, committed (synced).
func (v *Variant) CreateVectors(dir string, dims int) (engine.Store, error) {
	if dims < 1 {
		return nil, fmt.Errorf("badger create %s: %d dims, want at least 1", dir, dims)
	}
	s, err := v.open(dir, true)
	if err != nil {
		return nil, err
	}
	err = s.db.Update(func(txn *badger.Txn) error {
		return txn.Set(kvnote.MarkerKey(), kvnote.AppendDims(nil, dims))
	})
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("badger create %s: write the vector marker: %w", dir, err)
	}
	s.dims = dims
	return s, nil
}

// VectorSearch implements engine.VectorVariant.
func (v *Variant) VectorSearch() engine.VectorSearch {
	return kvnote.VectorSearch("Badger keys 0xFF + the note's id as 8 bytes big-endian, after the notes' keys, value the embedding as little-endian float32 values; an iterator with Prefix 0xFF")
}

// Open implements engine.Variant. It reads nothing: whether the store has
// vectors is read when a note with an embedding is written (dims).
func (v *Variant) Open(dir string) (engine.Store, error) {
	s, err := v.open(dir, false)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// store is an open store, or an agent of a shared store (shared: its
// keys after the agent's prefix, and Close leaves the store open).
type store struct {
	db     *badger.DB
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
// vectors, reading the marker in txn the first time.
func (s *store) vectorDims(txn *badger.Txn) (int, error) {
	if s.dimsKnown {
		return s.dims, nil
	}
	item, err := txn.Get(kvnote.MarkerKey())
	if errors.Is(err, badger.ErrKeyNotFound) {
		s.dimsKnown = true
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read the vector marker: %w", err)
	}
	err = item.Value(func(v []byte) error {
		var err error
		s.dims, err = kvnote.Dims(v)
		return err
	})
	s.dimsKnown = err == nil
	return s.dims, err
}

// Insert writes all notes in one read-write transaction, with the
// embedding of each note that has one when the store has vectors.
func (s *store) Insert(notes []workload.Note) error {
	txn := s.db.NewTransaction(true)
	defer txn.Discard()
	if err := s.insert(txn, notes); err != nil {
		return err
	}
	if err := txn.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func (s *store) insert(txn *badger.Txn, notes []workload.Note) error {
	// Set keeps key and value until the commit: one buffer holds them all.
	pre := len(s.keys.Prefix())
	size := 0
	for _, n := range notes {
		size += pre + 16 + len(n.Text)
		if n.Emb != nil {
			size += pre + 9 + 4*len(n.Emb)
		}
	}
	buf := make([]byte, 0, size)
	for _, n := range notes {
		start := len(buf)
		buf = s.keys.AppendNote(buf, n.ID)
		end := len(buf)
		buf = binary.BigEndian.AppendUint64(buf, uint64(n.Ts))
		buf = append(buf, n.Text...)
		if err := txn.Set(buf[start:end], buf[end:]); err != nil {
			return putError("note", n.ID, err)
		}
		if n.Emb == nil {
			continue
		}
		dims, err := s.vectorDims(txn)
		if err != nil {
			return err
		}
		if dims == 0 {
			continue // a store without vectors
		}
		if err := kvnote.CheckEmb(n, dims); err != nil {
			return err
		}
		start = len(buf)
		buf = s.keys.AppendEmb(buf, n.ID)
		end = len(buf)
		buf = vector.AppendBlob(buf, n.Emb)
		if err := txn.Set(buf[start:end], buf[end:]); err != nil {
			return putError("the embedding of note", n.ID, err)
		}
	}
	return nil
}

// putError is the error of a failed Set of what (of note id).
func putError(what string, id int64, err error) error {
	if errors.Is(err, badger.ErrTxnTooBig) {
		return fmt.Errorf("put %s %d: %w: one transaction may hold 15%% of MemTableSize (%d bytes); raise badger.MemTableSize", what, id, err, MemTableSize)
	}
	return fmt.Errorf("put %s %d: %w", what, id, err)
}

// Count iterates over every note's key without fetching values.
func (s *store) Count() (int64, error) {
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = s.keys.Prefix()
	it := txn.NewIterator(opts)
	defer it.Close()
	var n int64
	for it.Rewind(); it.Valid() && s.keys.IsNote(it.Item().Key()); it.Next() {
		n++
	}
	return n, nil
}

// Close closes the DB, flushing its memtable to a table; an agent of a
// shared store releases nothing.
func (s *store) Close() error {
	if s.shared {
		return nil
	}
	return s.db.Close()
}

// iterate calls fn for up to n notes (all when n < 0) from an iterator,
// backwards from the last note's key when reverse is set.
func (s *store) iterate(reverse bool, n int, fn func(workload.Note)) error {
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	opts := badger.DefaultIteratorOptions
	opts.Reverse = reverse
	opts.Prefix = s.keys.Prefix()
	if n >= 0 {
		opts.PrefetchSize = max(n, 1)
	}
	it := txn.NewIterator(opts)
	defer it.Close()
	if reverse {
		s.kbuf = s.keys.AppendNote(s.kbuf[:0], math.MaxInt64)
		it.Seek(s.kbuf) // the largest key at or before the largest note's
	} else {
		it.Rewind()
	}
	for ; it.Valid() && n != 0 && s.keys.IsNote(it.Item().Key()); it.Next() {
		item := it.Item()
		err := item.Value(func(v []byte) error {
			note, err := s.keys.Decode(item.Key(), v)
			if err == nil {
				fn(note)
			}
			return err
		})
		if err != nil {
			return err
		}
		n--
	}
	return nil
}

// Recent implements engine.Store: a reverse iterator from the last key.
func (s *store) Recent(n int, dst []workload.Note) ([]workload.Note, error) {
	err := s.iterate(true, n, func(note workload.Note) { dst = append(dst, note) })
	return dst, err
}

// Get implements engine.Store: one Get per id in one read transaction.
func (s *store) Get(ids []int64, dst []workload.Note) ([]workload.Note, error) {
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	for _, id := range ids {
		k := s.keys.AppendNote(s.kbuf[:0], id)
		s.kbuf = k
		item, err := txn.Get(k)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return dst, fmt.Errorf("note %d: %w", id, engine.ErrNotFound)
		}
		if err != nil {
			return dst, err
		}
		err = item.Value(func(v []byte) error {
			note, err := s.keys.Decode(k, v)
			dst = append(dst, note)
			return err
		})
		if err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// Scan implements engine.Store: an iterator from the first key on.
func (s *store) Scan(fn func(workload.Note)) error { return s.iterate(false, -1, fn) }

// Append implements engine.Store: one Set (two with the note's
// embedding, in a store with vectors) in its own read-write transaction,
// synced at commit (SyncWrites) as Insert's is.
func (s *store) Append(n workload.Note) error {
	txn := s.db.NewTransaction(true)
	defer txn.Discard()
	if n.Emb != nil {
		if err := s.insert(txn, []workload.Note{n}); err != nil {
			return err
		}
		return txn.Commit()
	}
	s.kbuf = s.keys.AppendNote(s.kbuf[:0], n.ID)
	if err := txn.Set(s.kbuf, kvnote.AppendValue(nil, n)); err != nil {
		return err
	}
	return txn.Commit()
}

// KNN implements engine.VectorStore: one iterator over the keys with the
// store's marker as prefix (0xFF, or the agent's prefix and 0xFF), the
// marker first (in a store of its own; an agent of a shared store knows
// dims from the shared store's) and then every embedding, each value
// compared with q in Go as it is read (no prefetch).
func (s *store) KNN(q []float32, k int, dst []int64) ([]int64, error) {
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = s.keys.Marker()
	it := txn.NewIterator(opts)
	defer it.Close()
	it.Rewind()
	dims := s.dims
	if it.Valid() && bytes.Equal(it.Item().Key(), s.keys.Marker()) {
		err := it.Item().Value(func(v []byte) (err error) {
			dims, err = kvnote.Dims(v)
			return err
		})
		if err != nil {
			return dst, err
		}
		it.Next()
	}
	if dims == 0 {
		return dst, kvnote.NoVectors("badger")
	}
	if err := s.search.Start(q, k, dims); err != nil {
		return dst, err
	}
	for ; it.Valid(); it.Next() {
		item := it.Item()
		id, err := s.keys.EmbID(item.Key())
		if err != nil {
			return dst, err
		}
		if err := item.Value(func(v []byte) error { return s.search.Offer(id, v) }); err != nil {
			return dst, err
		}
	}
	return s.search.AppendIDs(dst), nil
}
