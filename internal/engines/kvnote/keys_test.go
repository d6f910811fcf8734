package kvnote

import (
	"bytes"
	"testing"
)

// TestAgentKeys checks the shared layout's keys: every key of an agent
// sorts between its prefix and End, before the next agent's and before
// the shared store's marker; Own takes the prefix off and refuses another
// agent's key; an agent outside 0..MaxAgent is refused.
func TestAgentKeys(t *testing.T) {
	for _, a := range []int{0, 1, 255, 256, MaxAgent} {
		k, err := AgentKeys(a)
		if err != nil {
			t.Fatalf("agent %d: %v", a, err)
		}
		note, emb := k.AppendNote(nil, 1<<62), k.AppendEmb(nil, 7)
		for _, key := range [][]byte{note, k.Marker(), emb} {
			if bytes.Compare(key, k.Prefix()) < 0 || bytes.Compare(key, k.End()) >= 0 || bytes.Compare(key, MarkerKey()) >= 0 {
				t.Errorf("agent %d: key %x outside [%x, %x) or not before the marker", a, key, k.Prefix(), k.End())
			}
		}
		if bytes.Compare(note, k.Marker()) >= 0 || bytes.Compare(emb, k.Marker()) <= 0 {
			t.Errorf("agent %d: note key %x, marker %x, embedding key %x: want note < marker < embedding", a, note, k.Marker(), emb)
		}
		if !k.IsNote(note) || k.IsNote(emb) || k.IsNote(k.Marker()) {
			t.Errorf("agent %d: IsNote wrong for the note, the embedding or the marker", a)
		}
		if id, err := k.EmbID(emb); err != nil || id != 7 {
			t.Errorf("agent %d: EmbID = %d, %v, want 7", a, id, err)
		}
		if a > 0 {
			other, _ := AgentKeys(a - 1)
			if _, ok := k.Own(other.AppendNote(nil, 1)); ok {
				t.Errorf("agent %d owns a key of agent %d", a, a-1)
			}
			if !bytes.Equal(other.End(), k.Prefix()) {
				t.Errorf("agent %d's keys end at %x, agent %d's begin at %x", a-1, other.End(), a, k.Prefix())
			}
		}
	}
	for _, a := range []int{-1, MaxAgent + 1} {
		if _, err := AgentKeys(a); err == nil {
			t.Errorf("agent %d: no error, want it refused", a)
		}
	}
}

// TestStoreKeys checks that a store of its own keeps the keys it had
// before the shared layout: Key, EmbPrefix and the note's key, and
// MarkerKey.
func TestStoreKeys(t *testing.T) {
	k := StoreKeys()
	var n [8]byte
	if !bytes.Equal(k.AppendNote(nil, 42), Key(&n, 42)) || !bytes.Equal(k.AppendEmb(nil, 42), append([]byte{EmbPrefix}, Key(&n, 42)...)) ||
		!bytes.Equal(k.Marker(), MarkerKey()) || k.End() != nil || len(k.Prefix()) != 0 {
		t.Errorf("StoreKeys differ from a store's keys")
	}
}
