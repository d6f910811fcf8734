// Package kvnote is a note as the key-value engines (bbolt, Pebble,
// Badger) store it: the key is the id as 8 big-endian bytes, so keys sort
// by id, and the value is the timestamp as 8 big-endian bytes followed by
// the text.
//
// # Embeddings
//
// A store made by CreateVectors also keeps each note's embedding, as a
// little-endian float32 blob (vector.AppendBlob), under a key of its own,
// apart from the note: the notes' keys and values are exactly those of a
// store without vectors (the reference workload does not change), Recent,
// Get, Scan and Count read notes only, and the knn scan reads the
// embeddings without the texts. (Appending the blob to the note's value
// would make every note query read it, and from 180 dims on would push a
// note of 300 characters past Badger's 1 KiB value threshold into its
// value log.)
//
//   - bbolt keeps the embeddings in a second bucket, EmbBucket, under the
//     note's key; the bucket's sequence is the embeddings' length (dims).
//   - Pebble and Badger have one key space: an embedding's key is
//     EmbPrefix followed by the note's key, and the key {EmbPrefix} alone
//     (MarkerKey) holds dims (AppendDims). A note's key begins with a byte
//     below 0x80 (ids are positive int64 values), so every note sorts
//     before the marker and the embeddings: notes are the keys below the
//     marker, embeddings the keys after it (Keys, keys.go, makes them).
//
// The bucket or the marker, written by CreateVectors, is how a store
// opened later knows that it has vectors; the adapters look for it only
// when a note to write carries an embedding (and in KNN), so that a store
// without vectors is opened and written exactly as before. A note with an
// embedding written to a store without vectors is written without it: the
// store has no embeddings to keep it with.
//
// The knn query is an exact scan in Go (Search): every embedding is
// decoded into one reused buffer and compared with the query, and a
// vector.TopK heap keeps the nearest.
package kvnote

import (
	"encoding/binary"
	"fmt"
	"math"

	"manydb/internal/engine"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// Key writes the key of note id into k (8 bytes) and returns it.
func Key(k *[8]byte, id int64) []byte {
	binary.BigEndian.PutUint64(k[:], uint64(id))
	return k[:]
}

// AppendValue appends the value of n to buf.
func AppendValue(buf []byte, n workload.Note) []byte {
	buf = binary.BigEndian.AppendUint64(buf, uint64(n.Ts))
	return append(buf, n.Text...)
}

// Decode turns a key and value back into a note, its text copied into a Go
// string (the engine's buffers may be reused after the call).
func Decode(k, v []byte) (workload.Note, error) {
	if len(k) != 8 || len(v) < 8 {
		return workload.Note{}, fmt.Errorf("key of %d bytes and value of %d: not a note (8-byte key, value of 8 bytes and text)", len(k), len(v))
	}
	return workload.Note{
		ID:   int64(binary.BigEndian.Uint64(k)),
		Ts:   int64(binary.BigEndian.Uint64(v)),
		Text: string(v[8:]),
	}, nil
}

// EmbBucket is bbolt's bucket of the embeddings.
const EmbBucket = "embeddings"

// EmbPrefix is the first byte of the marker's and the embeddings' keys in
// Pebble and Badger; no note's key begins with it.
const EmbPrefix = 0xFF

// MarkerKey is the key whose value is the embeddings' length (dims) in a
// Pebble or Badger store with vectors; every note's key sorts before it.
func MarkerKey() []byte { return []byte{EmbPrefix} }

// IsNoteKey reports whether k is a note's key rather than the marker's or
// an embedding's.
func IsNoteKey(k []byte) bool { return len(k) == 8 && k[0] != EmbPrefix }

// EmbID returns the id of an embedding's key: the note's key (bbolt) or
// EmbPrefix and the note's key (Pebble, Badger).
func EmbID(k []byte) (int64, error) {
	switch {
	case len(k) == 8:
		return int64(binary.BigEndian.Uint64(k)), nil
	case len(k) == 9 && k[0] == EmbPrefix:
		return int64(binary.BigEndian.Uint64(k[1:])), nil
	}
	return 0, fmt.Errorf("key %x: not the key of an embedding", k)
}

// AppendDims appends the marker's value for embeddings of dims values.
func AppendDims(buf []byte, dims int) []byte {
	return binary.BigEndian.AppendUint64(buf, uint64(dims))
}

// Dims decodes the marker's value.
func Dims(v []byte) (int, error) {
	if len(v) != 8 {
		return 0, fmt.Errorf("vector marker value of %d bytes, want 8", len(v))
	}
	d := binary.BigEndian.Uint64(v)
	if d == 0 || d > math.MaxInt32 {
		return 0, fmt.Errorf("vector marker says %d dims", d)
	}
	return int(d), nil
}

// CheckEmb returns an error when n's embedding does not have dims values.
func CheckEmb(n workload.Note, dims int) error {
	if len(n.Emb) != dims {
		return fmt.Errorf("note %d has an embedding of %d values; the store keeps %d", n.ID, len(n.Emb), dims)
	}
	return nil
}

// NoVectors is the error of a knn query on a store made without vectors.
func NoVectors(engineName string) error {
	return fmt.Errorf("no embeddings: the %s store was made by Create, not CreateVectors", engineName)
}

// VectorSearch is what a key-value variant reports: an exact scan in Go
// of the embeddings kept as layout says.
func VectorSearch(layout string) engine.VectorSearch {
	return engine.VectorSearch{Exact: true,
		Method: fmt.Sprintf("embedding stored with the note (%s), exact scan in Go with a top-%d heap", layout, vector.K)}
}

// Search is the knn query of a key-value store: the caller offers every
// embedding of the store, and Search keeps the k nearest to the query. A
// store keeps one and reuses it, so that a query allocates nothing per
// note. Its zero value is ready for Start.
type Search struct {
	k   int
	top *vector.TopK
	q   []float32
	emb []float32 // the embedding being compared, decoded
}

// Start begins a search for the k nearest to q in a store whose
// embeddings have dims values, forgetting the previous search.
func (s *Search) Start(q []float32, k, dims int) error {
	if k < 1 {
		return fmt.Errorf("knn of %d notes: k must be at least 1", k)
	}
	if len(q) != dims {
		return fmt.Errorf("query vector of %d values; the store's embeddings have %d", len(q), dims)
	}
	if s.top == nil || s.k != k {
		s.k, s.top = k, vector.NewTopK(k)
	}
	s.top.Reset()
	s.q = q
	return nil
}

// Offer compares the embedding blob of note id (vector.AppendBlob) with
// the query.
func (s *Search) Offer(id int64, blob []byte) error {
	if len(blob) != 4*len(s.q) {
		return fmt.Errorf("embedding of note %d: %d bytes, want %d (%d float32 values)", id, len(blob), 4*len(s.q), len(s.q))
	}
	var err error
	if s.emb, err = vector.FromBlob(blob, s.emb); err != nil {
		return fmt.Errorf("embedding of note %d: %w", id, err)
	}
	s.top.Offer(id, vector.Distance(s.q, s.emb))
	return nil
}

// AppendIDs appends the ids of the nearest notes offered, nearest first,
// to dst and returns it.
func (s *Search) AppendIDs(dst []int64) []int64 {
	s.q = nil
	return s.top.AppendIDs(dst)
}
