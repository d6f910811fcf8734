// Package kvnote is a note as the key-value engines (bbolt, Pebble,
// Badger) store it: the key is the id as 8 big-endian bytes, so keys sort
// by id, and the value is the timestamp as 8 big-endian bytes followed by
// the text.
package kvnote

import (
	"encoding/binary"
	"fmt"

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
