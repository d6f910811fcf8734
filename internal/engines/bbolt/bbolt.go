// Package bbolt is manydb's adapter for bbolt (go.etcd.io/bbolt, pure Go,
// a B+tree in one memory-mapped file). Variant id: bbolt.
//
// A store is a directory holding notes.db with one bucket "notes"; a
// note's key is its id as 8 bytes big-endian, its value ts as 8 bytes
// big-endian followed by the text. Every open sets a 1 s lock timeout and
// keeps bbolt's other defaults (synced commits). Insert fills leaves to
// FillPercent 1.0 because ids only grow; Count walks every key with a
// cursor, as SQLite's count(*) walks every leaf. docs/engines.md has the
// measured effect of these choices.
//
// A store made by CreateVectors has a second bucket, "embeddings"
// (kvnote.EmbBucket), of each note's embedding as a float32 blob under
// the note's key, filled at the same fill percent; its sequence is the
// embeddings' length. KNN walks it with a cursor and keeps the nearest in
// Go (kvnote.Search). The notes bucket is the same as without vectors.
package bbolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"manydb/internal/engine"
	"manydb/internal/engines/kvnote"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// The interfaces this package implements.
var (
	_ engine.Variant       = (*Variant)(nil)
	_ engine.VectorVariant = (*Variant)(nil)
	_ engine.Store         = (*store)(nil)
	_ engine.VectorStore   = (*store)(nil)
)

// FileName is the database file inside a store's directory.
const FileName = "notes.db"

// FillPercent is the bucket's fill percent for the inserts.
const FillPercent = 1.0

// LockTimeout is how long an open waits for the file lock.
const LockTimeout = time.Second

// bucketName is the one bucket of a store.
const bucketName = "notes"

// Variant is the bbolt variant.
type Variant struct {
	opts     bolt.Options // for Create: the file is created
	openOpts bolt.Options // for Open: the same, but a missing file is an error, not a new store
	fill     float64
}

// ID is the variant id.
const ID = "bbolt"

// Factories lists the variant of this package for its worker.
func Factories() []engine.Factory { return []engine.Factory{{ID: ID, New: New}} }

// New returns the bbolt variant.
func New() (engine.Variant, error) { return newVariant(FillPercent), nil }

func newVariant(fill float64) *Variant {
	v := &Variant{opts: bolt.Options{Timeout: LockTimeout}, fill: fill}
	v.openOpts = v.opts
	v.openOpts.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		return os.OpenFile(name, flag&^os.O_CREATE, perm)
	}
	return v
}

// ID implements engine.Variant.
func (v *Variant) ID() string { return ID }

// Versions implements engine.Variant: bbolt has no version string of its
// own, so "bbolt" is its module version from the build info (absent in a
// test binary, whose build info lists no modules).
func (v *Variant) Versions() map[string]string {
	if m := engine.ModuleVersion("go.etcd.io/bbolt"); m != "" {
		return map[string]string{"bbolt": m}
	}
	return nil
}

func open(dir string, opts *bolt.Options) (*bolt.DB, error) {
	db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, opts)
	switch {
	case errors.Is(err, bolt.ErrTimeout):
		return nil, fmt.Errorf("bbolt open %s: its file lock is held by another process for more than %v: %w", dir, LockTimeout, err)
	case err != nil:
		return nil, fmt.Errorf("bbolt open %s: %w", dir, err)
	}
	return db, nil
}

// Create implements engine.Variant: a new file with the bucket committed.
func (v *Variant) Create(dir string) (engine.Store, error) { return v.create(dir, 0) }

// CreateVectors implements engine.VectorVariant: Create, and the
// embeddings bucket with its sequence set to dims in the same commit.
func (v *Variant) CreateVectors(dir string, dims int) (engine.Store, error) {
	if dims < 1 {
		return nil, fmt.Errorf("bbolt create %s: %d dims, want at least 1", dir, dims)
	}
	return v.create(dir, dims)
}

// VectorSearch implements engine.VectorVariant.
func (v *Variant) VectorSearch() engine.VectorSearch {
	return kvnote.VectorSearch(`bbolt bucket "` + kvnote.EmbBucket + `" beside the notes' bucket: key the note's id as 8 bytes big-endian, value the embedding as little-endian float32 values; a cursor over that bucket`)
}

// create makes the store, with the embeddings bucket when dims > 0.
func (v *Variant) create(dir string, dims int) (engine.Store, error) {
	db, err := open(dir, &v.opts)
	if err != nil {
		return nil, err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucket([]byte(bucketName)); err != nil {
			return fmt.Errorf("create bucket %s: %w", bucketName, err)
		}
		if dims == 0 {
			return nil
		}
		e, err := tx.CreateBucket([]byte(kvnote.EmbBucket))
		if err != nil {
			return fmt.Errorf("create bucket %s: %w", kvnote.EmbBucket, err)
		}
		return e.SetSequence(uint64(dims))
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &store{db: db, fill: v.fill, name: []byte(bucketName), emb: []byte(kvnote.EmbBucket)}, nil
}

// Open implements engine.Variant.
func (v *Variant) Open(dir string) (engine.Store, error) {
	db, err := open(dir, &v.openOpts)
	if err != nil {
		return nil, err
	}
	return &store{db: db, fill: v.fill, name: []byte(bucketName), emb: []byte(kvnote.EmbBucket)}, nil
}

// store is an open store, or an agent's bucket of a shared store (shared:
// Close leaves the file open).
type store struct {
	db     *bolt.DB
	fill   float64
	buf    []byte
	search kvnote.Search
	name   []byte // the notes' bucket
	emb    []byte // the embeddings' bucket
	shared bool
	// dims, for an agent of a shared store with embeddings, is their
	// length: its first write makes its embeddings bucket with it.
	dims int
}

// Insert writes all notes in one read-write transaction, with the
// embedding of each note that has one when the store has the embeddings
// bucket.
func (s *store) Insert(notes []workload.Note) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		b, err := s.writeBucket(tx)
		if err != nil {
			return err
		}
		b.FillPercent = s.fill
		var e *bolt.Bucket // the embeddings, looked up at the first note with one
		lookedUp := false
		var key [8]byte
		for _, n := range notes {
			binary.BigEndian.PutUint64(key[:], uint64(n.ID))
			// Put copies neither key nor value until commit, so each
			// note needs its own bytes; one buffer holds them all.
			k, val := s.encode(key[:], n)
			if err := b.Put(k, val); err != nil {
				return fmt.Errorf("put note %d: %w", n.ID, err)
			}
			if n.Emb == nil {
				continue
			}
			if !lookedUp {
				lookedUp = true
				if e, err = s.embBucket(tx); err != nil {
					return err
				}
				if e != nil {
					e.FillPercent = s.fill
				}
			}
			if e == nil {
				continue // a store without vectors
			}
			if err := kvnote.CheckEmb(n, int(e.Sequence())); err != nil {
				return err
			}
			if err := e.Put(k, s.encodeEmb(n.Emb)); err != nil {
				return fmt.Errorf("put the embedding of note %d: %w", n.ID, err)
			}
		}
		return nil
	})
}

// embBucket returns the embeddings bucket in a read-write transaction,
// nil for a store without; an agent of a shared store with embeddings
// makes its bucket at its first write, its sequence set to dims.
func (s *store) embBucket(tx *bolt.Tx) (*bolt.Bucket, error) {
	e := tx.Bucket(s.emb)
	if e != nil || !s.shared || s.dims == 0 {
		return e, nil
	}
	e, err := tx.CreateBucket(s.emb)
	if err != nil {
		return nil, fmt.Errorf("create bucket %s: %w", s.emb, err)
	}
	return e, e.SetSequence(uint64(s.dims))
}

// grow makes room for need more bytes in the store's buffer, in a new
// buffer if it is full (the slices returned before stay valid).
func (s *store) grow(need int) {
	if cap(s.buf)-len(s.buf) < need {
		s.buf = make([]byte, 0, max(need, 64<<10))
	}
}

// encode appends key and the value of n to the store's buffer and returns
// the two slices of it.
func (s *store) encode(key []byte, n workload.Note) (k, val []byte) {
	s.grow(len(key) + 8 + len(n.Text))
	start := len(s.buf)
	s.buf = append(s.buf, key...)
	s.buf = binary.BigEndian.AppendUint64(s.buf, uint64(n.Ts))
	s.buf = append(s.buf, n.Text...)
	return s.buf[start : start+len(key)], s.buf[start+len(key):]
}

// encodeEmb appends the blob of emb to the store's buffer and returns it.
func (s *store) encodeEmb(emb []float32) []byte {
	s.grow(4 * len(emb))
	start := len(s.buf)
	s.buf = vector.AppendBlob(s.buf, emb)
	return s.buf[start:]
}

// Count walks every key of the bucket with a cursor.
func (s *store) Count() (int64, error) {
	var n int64
	err := s.view(func(b *bolt.Bucket) error {
		c := b.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			n++
		}
		return nil
	})
	return n, err
}

// Close closes the file and unmaps it; an agent of a shared store
// releases nothing.
func (s *store) Close() error {
	if s.shared {
		return nil
	}
	return s.db.Close()
}

// view runs fn on the notes bucket in a read-only transaction.
func (s *store) view(fn func(b *bolt.Bucket) error) error {
	return s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(s.name)
		switch {
		case b == nil && s.shared:
			return fmt.Errorf("agent bucket %s: %w", s.name, engine.ErrNotFound)
		case b == nil:
			return fmt.Errorf("no bucket %s: the store was not made by manydb's bbolt variant", s.name)
		}
		return fn(b)
	})
}

// writeBucket returns the notes bucket in a read-write transaction; an
// agent of a shared store makes its bucket at its first write.
func (s *store) writeBucket(tx *bolt.Tx) (*bolt.Bucket, error) {
	if s.shared {
		return tx.CreateBucketIfNotExists(s.name)
	}
	b := tx.Bucket(s.name)
	if b == nil {
		return nil, fmt.Errorf("no bucket %s: the store was not made by manydb's bbolt variant", s.name)
	}
	return b, nil
}

// Recent implements engine.Store: a cursor from the last key backwards.
func (s *store) Recent(n int, dst []workload.Note) ([]workload.Note, error) {
	err := s.view(func(b *bolt.Bucket) error {
		c := b.Cursor()
		for k, v := c.Last(); k != nil && n > 0; k, v = c.Prev() {
			note, err := kvnote.Decode(k, v)
			if err != nil {
				return err
			}
			dst = append(dst, note)
			n--
		}
		return nil
	})
	return dst, err
}

// Get implements engine.Store: one Get per id in one transaction.
func (s *store) Get(ids []int64, dst []workload.Note) ([]workload.Note, error) {
	err := s.view(func(b *bolt.Bucket) error {
		var key [8]byte
		for _, id := range ids {
			k := kvnote.Key(&key, id)
			v := b.Get(k)
			if v == nil {
				return fmt.Errorf("note %d: %w", id, engine.ErrNotFound)
			}
			note, err := kvnote.Decode(k, v)
			if err != nil {
				return err
			}
			dst = append(dst, note)
		}
		return nil
	})
	return dst, err
}

// Scan implements engine.Store: a cursor from the first key on.
func (s *store) Scan(fn func(workload.Note)) error {
	return s.view(func(b *bolt.Bucket) error {
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			note, err := kvnote.Decode(k, v)
			if err != nil {
				return err
			}
			fn(note)
		}
		return nil
	})
}

// Append implements engine.Store: Insert of one note, one Put (two with
// its embedding) in its own read-write transaction, synced at commit.
func (s *store) Append(n workload.Note) error { return s.Insert([]workload.Note{n}) }

// KNN implements engine.VectorStore: a cursor over the embeddings bucket
// in one read-only transaction, each blob compared with q in Go.
func (s *store) KNN(q []float32, k int, dst []int64) ([]int64, error) {
	err := s.db.View(func(tx *bolt.Tx) error {
		e := tx.Bucket(s.emb)
		if e == nil {
			return kvnote.NoVectors("bbolt")
		}
		if err := s.search.Start(q, k, int(e.Sequence())); err != nil {
			return err
		}
		c := e.Cursor()
		for key, blob := c.First(); key != nil; key, blob = c.Next() {
			id, err := kvnote.EmbID(key)
			if err != nil {
				return err
			}
			if err := s.search.Offer(id, blob); err != nil {
				return err
			}
		}
		dst = s.search.AppendIDs(dst)
		return nil
	})
	return dst, err
}
