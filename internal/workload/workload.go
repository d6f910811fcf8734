// Package workload defines what one store holds (Spec) and its notes
// (Note), and generates the synthetic notes and embeddings, identically
// for every engine: the default data source, which internal/datasource
// registers as synthetic.
package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// Note is one object of a store.
type Note struct {
	ID   int64
	Text string
	Ts   int64
	// Emb is the note's embedding when the workload has vectors (Spec.Dims
	// > 0; Spec.Embedder), nil otherwise. Queries other than knn do not
	// return it.
	Emb []float32
}

// Spec is the content of one store.
type Spec struct {
	// Name is "large" or "small", with "-custom" appended when --objects or
	// --text-len changed it.
	Name string `json:"name"`
	// Objects is the number of notes per store, written in one transaction.
	Objects int `json:"objects"`
	// TextLen is the length of each note's text in bytes (ASCII).
	TextLen int `json:"text_len"`
	// Dims is the length of each note's embedding (--dims), 0 for notes
	// without one (the reference's workload).
	Dims int `json:"dims,omitempty"`
	// TopicPool, with embeddings, is the number of topic centres all
	// agents draw their topics from (--topic-pool), so that agents write
	// about the same things; 0: each agent has centres of its own, nearly
	// orthogonal to every other agent's (embed.go).
	TopicPool int `json:"topic_pool,omitempty"`
	// Spread, with embeddings, is σ, the norm of the noise around a note's
	// topic centre (--note-spread); 0: NoteSpread.
	Spread float64 `json:"note_spread,omitempty"`
	// Data is the data source the notes come from (internal/datasource).
	// Its zero value is the synthetic generator of this package, which
	// records leave out, as they did before data sources had names.
	Data Data `json:"data,omitzero"`
	// Split, with a corpus (Data), gives the stores disjoint parts of one
	// pool of stores × Objects of its items (manydb sweep): no item is in
	// two stores. False: each store draws its notes from a few topics,
	// and items may repeat across stores.
	Split bool `json:"split,omitempty"`
}

// Data names a data source as a job and a record hold it: its name in
// the registry of internal/datasource and, for a source read from files,
// its version and the SHA-256 of its content. The zero value is the
// synthetic generator.
type Data struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
}

// Lookup returns the named workload, with objects and textLen overriding its
// values when they are not zero (its name then ends in "-custom").
func Lookup(name string, objects, textLen int) (Spec, error) {
	var s Spec
	switch name {
	case "large": // as in the reference study
		s = Spec{Name: "large", Objects: 1000, TextLen: 300}
	case "small":
		s = Spec{Name: "small", Objects: 10, TextLen: 40}
	default:
		return Spec{}, fmt.Errorf("unknown workload %q: use large (1,000 notes of 300 characters) or small (10 notes of 40)", name)
	}
	if objects < 0 || textLen < 0 {
		return Spec{}, fmt.Errorf("--objects and --text-len must not be negative")
	}
	if objects > 0 {
		s.Objects = objects
	}
	if textLen > 0 {
		s.TextLen = textLen
	}
	if objects > 0 || textLen > 0 {
		s.Name += "-custom"
	}
	return s, nil
}

// lorem is repeated to fill each note's text.
const lorem = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod " +
	"tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, " +
	"quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo " +
	"consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse " +
	"cillum dolore eu fugiat nulla pariatur. Excepteur sint occaecat cupidatat non " +
	"proident, sunt in culpa qui officia deserunt mollit anim id est laborum. "

// Text returns the text of note j of agent (store) i: "note <j> of agent
// <i>: " followed by Lorem ipsum, cut to n bytes.
func Text(i, j, n int) string {
	var b strings.Builder
	var tail [32]byte
	appendPrefixed(&b, "note ", j, agentTail(tail[:0], i), n)
	return b.String()
}

// agentTail appends " of agent <i>: ", the end of the prefix of each of
// agent i's notes, to buf.
func agentTail(buf []byte, i int) []byte {
	buf = append(buf, " of agent "...)
	buf = strconv.AppendInt(buf, int64(i), 10)
	return append(buf, ": "...)
}

// appendPrefix appends "<word><j> of agent <i>: " to buf.
func appendPrefix(buf []byte, word string, j, i int) []byte {
	return agentTail(appendWordNumber(buf, word, j), i)
}

// appendWordNumber appends "<word><j>", a prefix's start, to buf.
func appendWordNumber(buf []byte, word string, j int) []byte {
	return strconv.AppendInt(append(buf, word...), int64(j), 10)
}

// appendPrefixed writes "<word><j>", then tail (agentTail of the note's
// agent) and Lorem ipsum to b, cut to n bytes.
func appendPrefixed(b *strings.Builder, word string, j int, tail []byte, n int) {
	var buf [64]byte
	prefix := append(appendWordNumber(buf[:0], word, j), tail...)
	if len(prefix) >= n {
		b.Write(prefix[:n])
		return
	}
	b.Write(prefix)
	for rest := n - len(prefix); rest > 0; {
		k := min(rest, len(lorem))
		b.WriteString(lorem[:k])
		rest -= k
	}
}

// Fill writes the notes of store i into notes, which must have Objects
// elements, with their embeddings when the workload has vectors. Ids run from 1; ts is a fixed base (October 2025, in
// milliseconds since 1970) plus j seconds, so every run writes the same
// bytes. All texts share one allocation: this runs once per store, outside
// the timed spans but inside the create phase's wall time.
func (s Spec) Fill(i int, notes []Note) {
	var b strings.Builder
	b.Grow(len(notes) * s.TextLen)
	var buf [32]byte
	tail := agentTail(buf[:0], i) // the same in every note of the store
	for j := range notes {
		appendPrefixed(&b, "note ", j, tail, s.TextLen)
	}
	all := b.String()
	var embs []float32
	e := s.Embedder(i)
	if e != nil {
		embs = make([]float32, len(notes)*s.Dims)
	}
	for j := range notes {
		notes[j] = Note{ID: int64(j + 1), Text: all[j*s.TextLen : (j+1)*s.TextLen], Ts: Ts(int64(j + 1))}
		if e != nil {
			notes[j].Emb = e.Note(notes[j].ID, embs[j*s.Dims:(j+1)*s.Dims:(j+1)*s.Dims])
		}
	}
}

// Ts returns the timestamp of note id (1-based) of a store: the base of
// Fill plus one second per note, for the notes of Fill and for appended
// notes alike.
func Ts(id int64) int64 { return 1_760_000_000_000 + (id-1)*1000 }

// TurnNote returns the note appended by the k-th turn (1-based) to store
// i of spec s: id s.Objects+k, text "turn <k> of agent <i>: " followed by
// Lorem ipsum, cut to s.TextLen bytes.
func (s Spec) TurnNote(i, k int) Note {
	var b strings.Builder
	var tail [32]byte
	appendPrefixed(&b, "turn ", k, agentTail(tail[:0], i), s.TextLen)
	id := int64(s.Objects + k)
	n := Note{ID: id, Text: b.String(), Ts: Ts(id)}
	if e := s.Embedder(i); e != nil {
		n.Emb = e.Note(id, make([]float32, s.Dims))
	}
	return n
}

// Check reports whether n is note id of store i after appended turns,
// without building the expected text: the prefix and the Lorem ipsum that
// follows are compared in place.
func (s Spec) Check(i int, id int64, n Note) error {
	if n.ID != id || n.Ts != Ts(id) || len(n.Text) != s.TextLen {
		return fmt.Errorf("note %d: got id %d, ts %d, %d bytes of text; want id %d, ts %d, %d bytes", id, n.ID, n.Ts, len(n.Text), id, Ts(id), s.TextLen)
	}
	var buf [64]byte
	var prefix []byte
	if id > int64(s.Objects) {
		prefix = appendPrefix(buf[:0], "turn ", int(id)-s.Objects, i)
	} else {
		prefix = appendPrefix(buf[:0], "note ", int(id-1), i)
	}
	text := n.Text
	k := min(len(prefix), len(text))
	if text[:k] != string(prefix[:k]) {
		return fmt.Errorf("note %d: text %.40q… does not start with %q", id, text, prefix[:k])
	}
	for rest := text[k:]; len(rest) > 0; {
		m := min(len(rest), len(lorem))
		if rest[:m] != lorem[:m] {
			return fmt.Errorf("note %d: text %.40q… differs from the workload's after its prefix", id, text)
		}
		rest = rest[m:]
	}
	return nil
}
