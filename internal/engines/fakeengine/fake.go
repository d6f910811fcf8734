// Package fakeengine is a FAKE engine, for testing manydb's harness only:
// it is never a measurement of any database. A fake store is a directory
// holding one file, fake.db, with its notes as JSON.
//
// Variants:
//
//	fake             behaves like a correct engine
//	fake_wrongcount  counts one note too many (the harness must fail the phase)
//	fake_crash       exits the process while opening the third store
//	fake_slow        like fake, but every create and open sleeps 20 ms
//	fake_nthopen     like fake, but every open sleeps 1 ms per fake store
//	                 open at the time: an open that grows with the stores
//	                 already open (the n-th open), as a fake
//	fake_panic       panics while opening the third store (the harness must
//	                 turn it into an error naming the store)
//	fake_sigkill     kills its own process with SIGKILL while opening the
//	                 third store
//	fake_createfail  fails to create the third store (as on a full disk)
//	fake_hang        stops making progress while opening the third store
//	                 (sleeps for an hour: the watchdog must end it)
//	fake_hog         like fake, but every open store holds 8 MiB of
//	                 touched anonymous memory until it is closed (a memory
//	                 limit's test)
//	fake_wrongrecent returns the newest notes in the wrong order
//	fake_wrongget    returns the note after each one asked for
//	fake_wrongscan   leaves out the last note when scanning
//	fake_lostappend  says an append succeeded without writing it
//	fake_wrongknn    an exact knn search that leaves out the nearest note
//	fake_approxknn   a knn "index" (not exact) that replaces the nearest
//	                 note by the farthest: recall 0.9, recorded, not a
//	                 failure
//	fake_shortknn    a knn "index" (not exact) that answers only the 7
//	                 nearest notes: a short answer, recall 0.7
//	fake_mixedagents in the shared layout every agent reads and writes
//	                 the same notes: agents see each other's notes
//
// Every fake variant has the shared layout (engine.SharedVariant): a
// directory with a file per agent, NNNNNN.json (shared.go).
//
//	null             does nothing at all (no files): measures the harness's
//	                 own cost per timed span
package fakeengine

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"manydb/internal/engine"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// The interfaces the fake and null engines implement.
var (
	_ engine.Variant       = (*Variant)(nil)
	_ engine.Store         = (*store)(nil)
	_ engine.VectorVariant = (*Variant)(nil)
	_ engine.VectorStore   = (*store)(nil)
	_ engine.Variant       = (*Null)(nil)
	_ engine.Store         = nullStore{}
)

// FileName is the fake store's only file.
const FileName = "fake.db"

// Variant is a fake variant.
type Variant struct {
	id      string
	opens   atomic.Int64 // Open is called concurrently by manydb serve
	creates atomic.Int64
	open    atomic.Int64 // stores created or opened and not yet closed
	// prepared counts the calls of PrepareVectors.
	prepared atomic.Int64
}

// New returns the fake variant with the given id.
func New(id string) func() (engine.Variant, error) {
	return func() (engine.Variant, error) {
		switch id {
		case "fake", "fake_wrongcount", "fake_crash", "fake_slow", "fake_nthopen", "fake_panic", "fake_sigkill", "fake_createfail", "fake_hang",
			"fake_hog", "fake_wrongrecent", "fake_wrongget", "fake_wrongscan", "fake_lostappend", "fake_wrongknn", "fake_approxknn", "fake_shortknn",
			"fake_mixedagents":
			return &Variant{id: id}, nil
		}
		return nil, fmt.Errorf("no fake variant %q", id)
	}
}

// NewLean returns the fake variant under the lean setting: it names one
// made-up engine option (LeanOptions) and otherwise behaves as New's.
func NewLean(id string) func() (engine.Variant, error) {
	return func() (engine.Variant, error) {
		v, err := New(id)()
		if err != nil {
			return nil, err
		}
		return &leanVariant{v.(*Variant)}, nil
	}
}

// LeanOptions are the fake lean variant's engine options.
func LeanOptions() map[string]string { return map[string]string{"fake_cache_pages": "1"} }

// leanVariant is a fake variant made for the lean setting.
type leanVariant struct{ *Variant }

// Options implements engine.Optioner: LeanOptions and
// LeanVectorOptions.
func (*leanVariant) Options() map[string]string {
	o := LeanOptions()
	maps.Copy(o, LeanVectorOptions())
	return o
}

// LeanVectorOptions are the fake lean variant's made-up vector index
// option (engine.VectorOptioner), recorded only with embeddings.
func LeanVectorOptions() map[string]string { return map[string]string{"fake_index_width": "64"} }

// VectorOptions implements engine.VectorOptioner.
func (*leanVariant) VectorOptions() map[string]string { return LeanVectorOptions() }

// ID implements engine.Variant.
func (v *Variant) ID() string { return v.id }

// Versions implements engine.Variant.
func (v *Variant) Versions() map[string]string { return map[string]string{"fake": "1.0"} }

// Create implements engine.Variant.
func (v *Variant) Create(dir string) (engine.Store, error) {
	v.slow()
	if n := v.creates.Add(1); v.id == "fake_createfail" && n == 3 {
		return nil, errors.New("no space left on device (fake)")
	}
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("[]"), 0o644); err != nil {
		return nil, err
	}
	v.open.Add(1)
	return &store{path: path, v: v}, nil
}

// CreateVectors implements engine.VectorVariant: the notes' JSON keeps
// their embeddings.
func (v *Variant) CreateVectors(dir string, dims int) (engine.Store, error) { return v.Create(dir) }

// PrepareVectors implements engine.VectorPreparer: it only counts its
// calls (Prepared).
func (v *Variant) PrepareVectors() error {
	v.prepared.Add(1)
	return nil
}

// Prepared returns how many times PrepareVectors was called.
func (v *Variant) Prepared() int64 { return v.prepared.Load() }

// VectorSearch implements engine.VectorVariant.
func (v *Variant) VectorSearch() engine.VectorSearch {
	switch v.id {
	case "fake_approxknn":
		return engine.VectorSearch{Method: "FAKE index: the exact answer with its nearest note replaced by its farthest"}
	case "fake_shortknn":
		return engine.VectorSearch{Method: "FAKE index: the 7 nearest notes only"}
	}
	return engine.VectorSearch{Method: "FAKE exact scan of the notes' JSON", Exact: true}
}

// Open implements engine.Variant.
func (v *Variant) Open(dir string) (engine.Store, error) {
	v.slow()
	opens := v.opens.Add(1)
	if v.id == "fake_crash" && opens == 3 {
		fmt.Fprintln(os.Stderr, "fake_crash: crashing on purpose")
		os.Exit(3)
	}
	if v.id == "fake_panic" && opens == 3 {
		panic("fake_panic: panicking on purpose")
	}
	if v.id == "fake_sigkill" && opens == 3 {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	if v.id == "fake_hang" && opens == 3 {
		time.Sleep(time.Hour)
	}
	if v.id == "fake_nthopen" {
		time.Sleep(time.Duration(v.open.Load()) * time.Millisecond)
	}
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	v.open.Add(1)
	st := &store{path: path, v: v}
	if v.id == "fake_hog" {
		st.hog = make([]byte, HogBytes)
		for i := 0; i < len(st.hog); i += 4096 {
			st.hog[i] = 1
		}
	}
	return st, nil
}

// HogBytes is the anonymous memory each open fake_hog store holds.
const HogBytes = 8 << 20

func (v *Variant) slow() {
	if v.id == "fake_slow" {
		time.Sleep(20 * time.Millisecond)
	}
}

type store struct {
	path   string
	v      *Variant
	closed bool
	hog    []byte // fake_hog's memory, released by Close
	// agent is set for an agent of a shared store: a missing file is an
	// agent without notes (engine.ErrNotFound), and Close releases
	// nothing of the variant's count of open stores.
	agent bool
}

func (s *store) Insert(notes []workload.Note) error { return s.write(notes) }

func (s *store) write(notes []workload.Note) error {
	b, err := json.Marshal(notes)
	if err != nil {
		return err
	}
	return os.WriteFile(s.path, b, 0o644)
}

func (s *store) read() ([]workload.Note, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) && s.agent {
		return nil, fmt.Errorf("agent %s: %w", s.path, engine.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	var notes []workload.Note
	if err := json.Unmarshal(b, &notes); err != nil {
		return nil, errors.New("fake store corrupt")
	}
	return notes, nil
}

func (s *store) Count() (int64, error) {
	notes, err := s.read()
	n := int64(len(notes))
	if s.v.id == "fake_wrongcount" {
		n++
	}
	return n, err
}

// KNN implements engine.VectorStore: an exact scan, made wrong on purpose
// by fake_wrongknn and fake_approxknn.
func (s *store) KNN(q []float32, k int, dst []int64) ([]int64, error) {
	notes, err := s.read()
	if err != nil {
		return dst, err
	}
	top := vector.NewTopK(k + 1)
	far := vector.NewTopK(1)
	for _, n := range notes {
		d := vector.Distance(n.Emb, q)
		top.Offer(n.ID, d)
		far.Offer(n.ID, -d)
	}
	ids := top.AppendIDs(nil)
	switch s.v.id {
	case "fake_wrongknn":
		ids = ids[1:]
	case "fake_approxknn":
		ids = append(far.AppendIDs(nil), ids[1:min(k, len(ids))]...)
	case "fake_shortknn":
		ids = ids[:min(k-3, len(ids))]
	default:
		ids = ids[:min(k, len(ids))]
	}
	return append(dst, ids[:min(k, len(ids))]...), nil
}

// Recent implements engine.Store.
func (s *store) Recent(n int, dst []workload.Note) ([]workload.Note, error) {
	notes, err := s.read()
	for i := len(notes) - 1; i >= 0 && n > 0; i, n = i-1, n-1 {
		dst = append(dst, notes[i])
	}
	if s.v.id == "fake_wrongrecent" && len(dst) > 1 {
		dst[0], dst[1] = dst[1], dst[0]
	}
	return dst, err
}

// Get implements engine.Store.
func (s *store) Get(ids []int64, dst []workload.Note) ([]workload.Note, error) {
	notes, err := s.read()
	if err != nil {
		return dst, err
	}
	for _, id := range ids {
		if s.v.id == "fake_wrongget" {
			id++
		}
		if id < 1 || id > int64(len(notes)) {
			return dst, fmt.Errorf("id %d: %w", id, engine.ErrNotFound)
		}
		dst = append(dst, notes[id-1])
	}
	return dst, nil
}

// Scan implements engine.Store.
func (s *store) Scan(fn func(workload.Note)) error {
	notes, err := s.read()
	if s.v.id == "fake_wrongscan" && len(notes) > 0 {
		notes = notes[:len(notes)-1]
	}
	for _, n := range notes {
		fn(n)
	}
	return err
}

// Append implements engine.Store.
func (s *store) Append(n workload.Note) error {
	notes, err := s.read()
	if err != nil || s.v.id == "fake_lostappend" {
		return err
	}
	return s.write(append(notes, n))
}

func (s *store) Close() error {
	if !s.closed && !s.agent {
		s.closed = true
		s.v.open.Add(-1)
		s.hog = nil
	}
	return nil
}

// Null is an engine that does nothing: Open and Count return at once, and
// Count reports the expected number. It has no files and holds no notes:
// Recent and Scan find none, Get fails with engine.ErrNotFound and Append
// writes nothing.
type Null struct {
	Notes int64 // what Count returns
}

// NewNull returns the null variant for stores of n notes.
func NewNull(n int64) *Null { return &Null{Notes: n} }

// ID implements engine.Variant.
func (n *Null) ID() string { return "null" }

// Versions implements engine.Variant.
func (n *Null) Versions() map[string]string { return nil }

// Create implements engine.Variant.
func (n *Null) Create(string) (engine.Store, error) { return nullStore{n.Notes}, nil }

// Open implements engine.Variant.
func (n *Null) Open(string) (engine.Store, error) { return nullStore{n.Notes}, nil }

type nullStore struct{ n int64 }

func (s nullStore) Insert([]workload.Note) error { return nil }
func (s nullStore) Count() (int64, error)        { return s.n, nil }
func (s nullStore) Close() error                 { return nil }

func (s nullStore) Recent(_ int, dst []workload.Note) ([]workload.Note, error) { return dst, nil }
func (s nullStore) Scan(func(workload.Note)) error                             { return nil }
func (s nullStore) Append(workload.Note) error                                 { return nil }

func (s nullStore) Get(ids []int64, dst []workload.Note) ([]workload.Note, error) {
	if len(ids) > 0 {
		return dst, fmt.Errorf("id %d: %w", ids[0], engine.ErrNotFound)
	}
	return dst, nil
}
