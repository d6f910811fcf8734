package kvnote

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"manydb/internal/workload"
)

// Keys are the keys of one store's notes in Pebble or Badger: a store of
// its own (StoreKeys: the keys of the package comment), or one agent of a
// shared store (AgentKeys: the same keys, each after the agent's prefix),
// so that an agent's notes, marker and embeddings lie together and in the
// same order as in a store of its own.
//
// A shared store keeps dims under MarkerKey, which sorts after every
// agent's keys (an agent's prefix begins with a byte below 0x80).
type Keys struct {
	prefix []byte // empty for a store of its own
	marker []byte // prefix + EmbPrefix: the agent's notes end there
	end    []byte // the first key after the agent's: nil for a store of its own
}

// StoreKeys are the keys of a store of its own.
func StoreKeys() Keys { return Keys{marker: MarkerKey()} }

// AgentKeys are the keys of agent a of a shared store: each begins with
// a as 4 bytes big-endian. a must be in 0..MaxAgent.
func AgentKeys(a int) (Keys, error) {
	if a < 0 || a > MaxAgent {
		return Keys{}, fmt.Errorf("agent %d: a shared store keeps agents 0 to %d", a, MaxAgent)
	}
	p := binary.BigEndian.AppendUint32(nil, uint32(a))
	return Keys{
		prefix: p,
		marker: append(p[:len(p):len(p)], EmbPrefix),
		end:    binary.BigEndian.AppendUint32(nil, uint32(a+1)),
	}, nil
}

// MaxAgent is the largest agent a shared store keeps: its prefix's first
// byte stays below 0x80, so every agent's keys sort before MarkerKey.
const MaxAgent = math.MaxInt32 - 1

// Prefix is the first bytes of every key of the store (empty for a store
// of its own). The caller must not change it.
func (k Keys) Prefix() []byte { return k.prefix }

// Marker is the key after the store's notes (for a store of its own, the
// marker holding dims; for an agent, where its embeddings begin).
func (k Keys) Marker() []byte { return k.marker }

// End is the first key after every key of the store: nil for a store of
// its own (no bound).
func (k Keys) End() []byte { return k.end }

// AppendNote appends the key of note id to buf.
func (k Keys) AppendNote(buf []byte, id int64) []byte {
	buf = append(buf, k.prefix...)
	return binary.BigEndian.AppendUint64(buf, uint64(id))
}

// AppendEmb appends the key of note id's embedding to buf.
func (k Keys) AppendEmb(buf []byte, id int64) []byte {
	buf = append(append(buf, k.prefix...), EmbPrefix)
	return binary.BigEndian.AppendUint64(buf, uint64(id))
}

// Own returns key without the store's prefix, as the package's functions
// for a store of its own take it (Decode, IsNoteKey, EmbID); ok is false
// for a key of another agent or of the shared store itself.
func (k Keys) Own(key []byte) (own []byte, ok bool) {
	if !bytes.HasPrefix(key, k.prefix) {
		return nil, false
	}
	return key[len(k.prefix):], true
}

// IsNote reports whether key is one of the store's notes.
func (k Keys) IsNote(key []byte) bool {
	own, ok := k.Own(key)
	return ok && IsNoteKey(own)
}

// Decode turns a key of the store and its value into a note (Decode).
func (k Keys) Decode(key, v []byte) (n workload.Note, err error) {
	own, ok := k.Own(key)
	if !ok {
		return n, fmt.Errorf("key %x: not a key of this store (prefix %x)", key, k.prefix)
	}
	return Decode(own, v)
}

// EmbID returns the id of the store's embedding key (EmbID).
func (k Keys) EmbID(key []byte) (int64, error) {
	own, ok := k.Own(key)
	if !ok {
		return 0, fmt.Errorf("key %x: not a key of this store (prefix %x)", key, k.prefix)
	}
	return EmbID(own)
}
