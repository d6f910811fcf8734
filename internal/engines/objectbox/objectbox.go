//go:build objectbox

package objectbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"unsafe"

	flatbuffers "github.com/google/flatbuffers/go"
	obx "github.com/objectbox/objectbox-go/objectbox"

	"manydb/internal/engine"
	"manydb/internal/engines/objectbox/note"
	"manydb/internal/workload"
)

// The interfaces this package implements.
var (
	_ engine.Variant       = (*syncVariant)(nil)
	_ engine.Optioner      = (*syncVariant)(nil)
	_ engine.Store         = (*syncStore)(nil)
	_ engine.Variant       = (*cVariant)(nil)
	_ engine.Optioner      = (*cVariant)(nil)
	_ engine.Closer        = (*cVariant)(nil)
	_ engine.Store         = (*cStoreHandle)(nil)
	_ engine.Marshaler     = (*cStoreHandle)(nil)
	_ engine.VectorVariant = (*cVariant)(nil)
	_ engine.VectorStore   = (*cStoreHandle)(nil)
)

// Files a store's directory holds.
const (
	DataFile = "data.mdb"
	LockFile = "lock.mdb"
)

// Factories lists the three ObjectBox variants for worker-objectbox.
func Factories() []engine.Factory {
	return []engine.Factory{{ID: IDSync, New: NewSync, Lean: NewSyncLean},
		{ID: IDCached, New: NewCached, Lean: func() (engine.Variant, error) { return newCVariant(IDCached, false, true) }},
		{ID: IDNoSync, New: NewNoSync, Lean: func() (engine.Variant, error) { return newCVariant(IDNoSync, true, true) }}}
}

// entityID returns Note's entity id in the model.
func entityID() uint32 { return uint32(note.NoteBinding.Id) }

func versions() map[string]string {
	return map[string]string{"objectbox": cVersion()}
}

// ---- obx: objectbox-go's ordinary path ------------------------------------

// syncVariant is obx.
type syncVariant struct {
	objs []note.Note  // scratch for PutMany, reused by every Insert
	ptrs []*note.Note // pointers into objs
	lean bool
}

// NewSync returns the obx variant.
func NewSync() (engine.Variant, error) { return &syncVariant{}, nil }

// NewSyncLean returns the obx variant under the lean setting: of lean's
// options objectbox-go's Builder offers only the maximum size
// (MaxSizeInKb; builder.go). Without thread-local readers off, which it
// cannot set, max readers must stay at its default: every OS thread that
// ever read keeps a slot (objectbox.h), and Go runs cgo calls on many.
func NewSyncLean() (engine.Variant, error) { return &syncVariant{lean: true}, nil }

// Options implements engine.Optioner.
func (v *syncVariant) Options() map[string]string {
	if !v.lean {
		return nil
	}
	return map[string]string{"Builder.MaxSizeInKb (obx_opt_max_db_size_in_kb)": fmt.Sprint(leanMaxSizeKB)}
}

func (v *syncVariant) ID() string                  { return IDSync }
func (v *syncVariant) Versions() map[string]string { return versions() }

// Create opens the new store as Open does: the model sync writes the schema.
func (v *syncVariant) Create(dir string) (engine.Store, error) { return v.Open(dir) }

// Open builds the model and opens the store with it (objectbox-go's Builder).
func (v *syncVariant) Open(dir string) (engine.Store, error) {
	b := obx.NewBuilder().Model(note.ObjectBoxModel()).Directory(dir)
	if v.lean {
		b = b.MaxSizeInKb(leanMaxSizeKB)
	}
	ob, err := b.BuildOrError()
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	return &syncStore{v: v, ob: ob}, nil
}

type syncStore struct {
	v  *syncVariant
	ob *obx.ObjectBox
}

// Insert puts all notes as new objects with Box.PutMany (one transaction)
// and checks that ObjectBox gave them the workload's ids.
func (s *syncStore) Insert(notes []workload.Note) error {
	v := s.v
	if cap(v.objs) < len(notes) {
		v.objs = make([]note.Note, len(notes))
		v.ptrs = make([]*note.Note, len(notes))
	}
	objs, ptrs := v.objs[:len(notes)], v.ptrs[:len(notes)]
	for i, n := range notes {
		objs[i] = note.Note{Text: n.Text, Ts: n.Ts}
		ptrs[i] = &objs[i]
	}
	ids, err := note.BoxForNote(s.ob).PutMany(ptrs)
	if err != nil {
		return fmt.Errorf("put %d notes: %w", len(notes), err)
	}
	return checkIDs(ids, notes)
}

// Count returns the box count.
func (s *syncStore) Count() (int64, error) {
	n, err := note.BoxForNote(s.ob).Count()
	return int64(n), err
}

// Close closes the store (obx_store_close).
func (s *syncStore) Close() error {
	s.ob.Close()
	return nil
}

func checkIDs(ids []uint64, notes []workload.Note) error {
	for i, id := range ids {
		if id != uint64(notes[i].ID) {
			return fmt.Errorf("note %d got id %d from ObjectBox, want %d: is the store new?", i, id, notes[i].ID)
		}
	}
	return nil
}

// ---- obx_cached and obx_nosync: direct C calls -----------------------------

// cVariant is obx_cached or, with skipSync, obx_nosync.
type cVariant struct {
	id       string
	skipSync bool
	lean     bool    // open with the lean setting's options (cOpen)
	model    *cModel // the model's FlatBuffers bytes, made once per process
	hnsw     hnswSetting
	// vectors is set once the process works with embeddings
	// (PrepareVectors, CreateVectors): only then does Open look for a
	// store's DimsFile, so the reference workload's opens do not.
	vectors bool
	// vecModels holds the vector model per dimensions (vectorModel),
	// guarded by mu: serve opens stores of one variant at once.
	mu           sync.Mutex
	vecModels    map[int]*cModel
	sharedModels map[int]*cModel // the shared store's model per dimensions (sharedModel)
	// scratch reused by every Insert
	fbb *flatbuffers.Builder
	obj note.Note
	m   marshaled
	ids []uint64
}

// NewCached returns the obx_cached variant.
func NewCached() (engine.Variant, error) { return newCVariant(IDCached, false, false) }

// NewNoSync returns the obx_nosync variant.
func NewNoSync() (engine.Variant, error) { return newCVariant(IDNoSync, true, false) }

func newCVariant(id string, skipSync, lean bool) (*cVariant, error) {
	b, err := ModelBytes(note.ModelJSON)
	if err != nil {
		return nil, fmt.Errorf("build the model bytes from note/objectbox-model.json: %w", err)
	}
	v := &cVariant{id: id, skipSync: skipSync, lean: lean, model: newCModel(b), hnsw: defaultHNSW, fbb: flatbuffers.NewBuilder(1024)}
	if lean {
		v.hnsw = leanHNSW
	}
	return v, nil
}

func (v *cVariant) ID() string                  { return v.id }
func (v *cVariant) Versions() map[string]string { return versions() }

// CloseVariant frees the cached model bytes.
func (v *cVariant) CloseVariant() error {
	if v.model != nil {
		v.model.free()
		v.model = nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, m := range v.vecModels {
		m.free()
	}
	for _, m := range v.sharedModels {
		m.free()
	}
	v.vecModels, v.sharedModels = nil, nil
	return nil
}

// Create opens the new store with the cached model bytes (both variants).
func (v *cVariant) Create(dir string) (engine.Store, error) { return v.open(dir, v.model, 0) }

// Open opens with the cached model bytes (obx_cached), or, for obx_nosync,
// without a model when dir holds data.mdb (as objectbox-python checks).
// The model is the vector model when dir holds DimsFile (vectors.go),
// which Open looks for only once the variant works with embeddings
// (PrepareVectors, CreateVectors).
func (v *cVariant) Open(dir string) (engine.Store, error) {
	var dims int
	var err error
	if v.vectors {
		if dims, err = readDims(dir); err != nil {
			return nil, fmt.Errorf("open %s: %w", dir, err)
		}
	}
	if v.skipSync {
		if _, err := os.Stat(filepath.Join(dir, DataFile)); err == nil {
			return v.open(dir, nil, dims)
		}
	}
	model := v.model
	if dims > 0 {
		if model, err = v.vectorModel(dims); err != nil {
			return nil, err
		}
	}
	return v.open(dir, model, dims)
}

// open opens the store in dir with model (nil: none), a store with vectors
// of dims dimensions unless dims is 0.
func (v *cVariant) open(dir string, model *cModel, dims int) (engine.Store, error) {
	if v.model == nil {
		return nil, errors.New("variant closed")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, err := cOpen(dir, model, v.lean, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	return &cStoreHandle{v: v, s: s, dims: dims}, nil
}

type cStoreHandle struct {
	v    *cVariant
	s    cStore
	dims int // the embeddings' dimensions; 0: a store without vectors
}

// marshaled is the notes as FlatBuffers, back to back: object i is
// data[offs[i]:offs[i+1]] (each starting 8-byte aligned) and holds id
// firstID+i.
type marshaled struct {
	data    []byte
	offs    []uint64
	firstID uint64
}

// marshal writes notes into m with the generated binding's Flatten, the
// ids being the workload's (1…N, which the put checks ObjectBox reserves),
// with their embeddings when dims > 0 (flatten).
func (v *cVariant) marshal(notes []workload.Note, m *marshaled, dims int) error {
	m.data, m.offs = m.data[:0], m.offs[:0]
	for i, n := range notes {
		if n.ID != notes[0].ID+int64(i) || n.ID < 1 {
			return fmt.Errorf("note %d has id %d: ids must run 1, 2, … as ObjectBox assigns them", i, n.ID)
		}
		v.fbb.Reset()
		if err := flatten(v.fbb, &v.obj, n, dims); err != nil {
			return err
		}
		v.fbb.Finish(v.fbb.EndObject())
		for len(m.data)%8 != 0 {
			m.data = append(m.data, 0)
		}
		m.offs = append(m.offs, uint64(len(m.data)))
		m.data = append(m.data, v.fbb.FinishedBytes()...)
	}
	m.offs = append(m.offs, uint64(len(m.data)))
	if len(notes) > 0 {
		m.firstID = uint64(notes[0].ID)
	}
	return nil
}

// Insert marshals the notes and puts them in one transaction.
func (h *cStoreHandle) Insert(notes []workload.Note) error {
	if err := h.v.marshal(notes, &h.v.m, h.dims); err != nil {
		return err
	}
	return h.InsertMarshaled(&h.v.m)
}

// Marshal implements engine.Marshaler: the notes as FlatBuffers, into the
// variant's reused buffers, as Insert does (valid until the next Marshal).
func (h *cStoreHandle) Marshal(notes []workload.Note) (engine.Marshaled, error) {
	if err := h.v.marshal(notes, &h.v.m, h.dims); err != nil {
		return nil, err
	}
	return &h.v.m, nil
}

// InsertMarshaled implements engine.Marshaler: reserve the ids, put, commit.
func (h *cStoreHandle) InsertMarshaled(mm engine.Marshaled) error {
	m, ok := mm.(*marshaled)
	if !ok {
		return fmt.Errorf("InsertMarshaled got %T, want what Marshal returned", mm)
	}
	n := len(m.offs) - 1
	if cap(h.v.ids) < n {
		h.v.ids = make([]uint64, n)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := h.s.putMany(entityID(), m.data, m.offs, h.v.ids[:n], m.firstID); err != nil {
		return fmt.Errorf("put %d notes: %w", n, err)
	}
	return nil
}

// Count returns the box count.
func (h *cStoreHandle) Count() (int64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return h.s.count(entityID())
}

// Close closes the store (obx_store_close).
func (h *cStoreHandle) Close() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return h.s.close()
}

// noteOf converts a note read through objectbox-go.
func noteOf(n *note.Note) workload.Note {
	return workload.Note{ID: int64(n.Id), Text: n.Text, Ts: n.Ts}
}

// Recent implements engine.Store: a query ordered by id, descending,
// with a limit, as an application asks for its newest objects.
func (s *syncStore) Recent(n int, dst []workload.Note) ([]workload.Note, error) {
	q := note.BoxForNote(s.ob).Query(note.Note_.Id.OrderDesc()).Limit(uint64(n))
	defer q.Close()
	found, err := q.Find()
	for _, o := range found {
		dst = append(dst, noteOf(o))
	}
	return dst, err
}

// Get implements engine.Store: Box.GetMany, one read transaction.
func (s *syncStore) Get(ids []int64, dst []workload.Note) ([]workload.Note, error) {
	uids := make([]uint64, len(ids))
	for i, id := range ids {
		uids[i] = uint64(id)
	}
	found, err := note.BoxForNote(s.ob).GetMany(uids...)
	if err != nil {
		return dst, err
	}
	for i, o := range found {
		if o == nil {
			return dst, fmt.Errorf("note %d: %w", ids[i], engine.ErrNotFound)
		}
		dst = append(dst, noteOf(o))
	}
	return dst, nil
}

// Scan implements engine.Store: Box.GetAll, in id order.
func (s *syncStore) Scan(fn func(workload.Note)) error {
	all, err := note.BoxForNote(s.ob).GetAll()
	for _, o := range all {
		fn(noteOf(o))
	}
	return err
}

// Append implements engine.Store: Box.Insert in its own write
// transaction; ObjectBox assigns the id, which must be n.ID.
func (s *syncStore) Append(n workload.Note) error {
	id, err := note.BoxForNote(s.ob).Insert(&note.Note{Text: n.Text, Ts: n.Ts})
	if err != nil {
		return err
	}
	return checkIDs([]uint64{id}, []workload.Note{n})
}

// Recent implements engine.Store: a query ordered by id, descending,
// with a limit (obx_query_builder, obx_qb_order, obx_query_limit,
// obx_query_find), in a read transaction.
func (h *cStoreHandle) Recent(n int, dst []workload.Note) ([]workload.Note, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return h.s.recent(entityID(), idProperty(), n, dst)
}

// Get implements engine.Store: obx_box_get per id in one read transaction.
func (h *cStoreHandle) Get(ids []int64, dst []workload.Note) ([]workload.Note, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return h.s.get(entityID(), ids, dst)
}

// Scan implements engine.Store: obx_box_get_all in a read transaction.
func (h *cStoreHandle) Scan(fn func(workload.Note)) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return h.s.scan(entityID(), fn)
}

// Append implements engine.Store: the note marshalled and put in its
// own write transaction as Insert puts its notes (the id reserved must be
// n.ID).
//
// It uses buffers of its own, not the variant's: manydb serve appends to
// several stores of one variant at once.
func (h *cStoreHandle) Append(n workload.Note) error {
	fbb := flatbuffers.NewBuilder(512)
	var obj note.Note
	if err := flatten(fbb, &obj, n, h.dims); err != nil {
		return err
	}
	fbb.Finish(fbb.EndObject())
	fb := fbb.FinishedBytes()
	aligned := make([]uint64, (len(fb)+7)/8) // 8-byte aligned, as marshal lays objects out
	data := unsafe.Slice((*byte)(unsafe.Pointer(&aligned[0])), len(fb))
	copy(data, fb)
	ids := []uint64{0}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := h.s.putMany(entityID(), data, []uint64{0, uint64(len(data))}, ids, uint64(n.ID)); err != nil {
		return fmt.Errorf("append note %d: %w", n.ID, err)
	}
	return nil
}

// idProperty returns the id property's id in the model.
func idProperty() uint32 { return uint32(note.Note_.Id.Id) }

// loadNote decodes a note's FlatBuffer with the generated binding (its
// text copied into a Go string), as objectbox-go reads objects.
func loadNote(b []byte) (workload.Note, error) {
	o, err := note.NoteBinding.Load(nil, b)
	if err != nil {
		return workload.Note{}, err
	}
	return noteOf(o.(*note.Note)), nil
}
