// Package badger is manydb's adapter for Badger
// (github.com/dgraph-io/badger/v4, pure Go, an LSM tree with a value log).
// Variant id: badger.
//
// A store is a directory Badger fills with its own files; a note's key is
// its id as 8 bytes big-endian, its value ts as 8 bytes big-endian followed
// by the text. Badger's defaults are made for one large database per
// process, so every open sets small memtables, no caches, no compactors
// and synced writes (options, below). Close flushes the memtable to a
// table; Count iterates over every key without fetching values.
// docs/engines.md says why each option has its value.
//
// Under the lean setting (NewLean) every open also turns off what the
// adapter left at Badger's defaults and manydb's stores do not need:
// conflict detection (one writer per store) and bloom filters
// (LeanOptions). The memtable stays at MemTableSize: a transaction may use
// 15 % of it, and the create writes about 340 KB in one.
package badger

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"manydb/internal/engine"
	"manydb/internal/engines/kvnote"
	"manydb/internal/workload"
)

// The interfaces this package implements.
var (
	_ engine.Variant  = (*Variant)(nil)
	_ engine.Optioner = (*Variant)(nil)
	_ engine.Store    = (*store)(nil)
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

func (v *Variant) open(dir string) (engine.Store, error) {
	opts := Options(dir)
	if v.lean {
		opts = LeanOptions(dir)
	}
	db, err := badger.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("badger open %s (is another process holding it?): %w", dir, err)
	}
	return &store{db: db}, nil
}

// Create implements engine.Variant. Badger has no schema to commit.
func (v *Variant) Create(dir string) (engine.Store, error) { return v.open(dir) }

// Open implements engine.Variant.
func (v *Variant) Open(dir string) (engine.Store, error) { return v.open(dir) }

type store struct {
	db *badger.DB
}

// Insert writes all notes in one read-write transaction.
func (s *store) Insert(notes []workload.Note) error {
	txn := s.db.NewTransaction(true)
	defer txn.Discard()
	// Set keeps key and value until the commit: one buffer holds them all.
	size := 0
	for _, n := range notes {
		size += 16 + len(n.Text)
	}
	buf := make([]byte, 0, size)
	for _, n := range notes {
		start := len(buf)
		buf = binary.BigEndian.AppendUint64(buf, uint64(n.ID))
		buf = binary.BigEndian.AppendUint64(buf, uint64(n.Ts))
		buf = append(buf, n.Text...)
		if err := txn.Set(buf[start:start+8], buf[start+8:]); err != nil {
			if errors.Is(err, badger.ErrTxnTooBig) {
				return fmt.Errorf("put note %d: %w: one transaction may hold 15%% of MemTableSize (%d bytes); raise badger.MemTableSize", n.ID, err, MemTableSize)
			}
			return fmt.Errorf("put note %d: %w", n.ID, err)
		}
	}
	if err := txn.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Count iterates over every key without fetching values.
func (s *store) Count() (int64, error) {
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	it := txn.NewIterator(opts)
	defer it.Close()
	var n int64
	for it.Rewind(); it.Valid(); it.Next() {
		n++
	}
	return n, nil
}

// Close closes the DB, flushing its memtable to a table.
func (s *store) Close() error { return s.db.Close() }

// iterate calls fn for up to n notes (all when n < 0) from an iterator,
// backwards from the last key when reverse is set.
func (s *store) iterate(reverse bool, n int, fn func(workload.Note)) error {
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	opts := badger.DefaultIteratorOptions
	opts.Reverse = reverse
	if n >= 0 {
		opts.PrefetchSize = max(n, 1)
	}
	it := txn.NewIterator(opts)
	defer it.Close()
	for it.Rewind(); it.Valid() && n != 0; it.Next() {
		item := it.Item()
		err := item.Value(func(v []byte) error {
			note, err := kvnote.Decode(item.Key(), v)
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
	var key [8]byte
	for _, id := range ids {
		k := kvnote.Key(&key, id)
		item, err := txn.Get(k)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return dst, fmt.Errorf("note %d: %w", id, engine.ErrNotFound)
		}
		if err != nil {
			return dst, err
		}
		err = item.Value(func(v []byte) error {
			note, err := kvnote.Decode(k, v)
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

// Append implements engine.Store: one Set in its own read-write
// transaction, synced at commit (SyncWrites) as Insert's is.
func (s *store) Append(n workload.Note) error {
	txn := s.db.NewTransaction(true)
	defer txn.Discard()
	var key [8]byte
	if err := txn.Set(kvnote.Key(&key, n.ID), kvnote.AppendValue(nil, n)); err != nil {
		return err
	}
	return txn.Commit()
}
