//go:build objectbox

package objectbox

import (
	"fmt"
	"runtime"
	"unsafe"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/objectbox/objectbox-go/objectbox/fbutils"

	"manydb/internal/engine"
	"manydb/internal/workload"
)

// sharedAgent is an agent's notes in the shared store.
type sharedAgent struct {
	st *sharedStore
	q  sharedQuery
}

// objectID is the object id of the agent's note id.
func (a *sharedAgent) objectID(id int64) uint64 { return uint64(a.q.agent)<<agentShift | uint64(id) }

// noteOf turns a note read from the store (its id the object's) into the
// agent's, or fails when it is another agent's.
func (a *sharedAgent) noteOf(n workload.Note) (workload.Note, error) {
	if uint64(n.ID)>>agentShift != uint64(a.q.agent) {
		return n, fmt.Errorf("agent %d read object %d, agent %d's", a.q.agent, n.ID, uint64(n.ID)>>agentShift)
	}
	n.ID &= 1<<agentShift - 1
	return n, nil
}

// marshal writes notes into m as the shared store's objects, with their
// ids into ids, in fbb.
func (a *sharedAgent) marshal(fbb *flatbuffers.Builder, notes []workload.Note, m *marshaled, ids []uint64) ([]uint64, error) {
	m.data, m.offs, ids = m.data[:0], m.offs[:0], ids[:0]
	for _, n := range notes {
		if n.ID < 1 || n.ID >= 1<<agentShift {
			return nil, fmt.Errorf("note id %d: the shared store keys an agent's notes 1 to %d", n.ID, 1<<agentShift-1)
		}
		fbb.Reset()
		if err := a.flatten(fbb, n); err != nil {
			return nil, err
		}
		fbb.Finish(fbb.EndObject())
		for len(m.data)%8 != 0 {
			m.data = append(m.data, 0)
		}
		m.offs = append(m.offs, uint64(len(m.data)))
		m.data = append(m.data, fbb.FinishedBytes()...)
		ids = append(ids, a.objectID(n.ID))
	}
	m.offs = append(m.offs, uint64(len(m.data)))
	return ids, nil
}

// flatten writes note n as the shared store's object (its FlatBuffer then
// finished by the caller): id, text, ts as Note's binding writes them,
// emb when the store has embeddings, and the agent.
func (a *sharedAgent) flatten(fbb *flatbuffers.Builder, n workload.Note) error {
	dims := a.st.dims
	if dims > 0 && len(n.Emb) != dims {
		return fmt.Errorf("note %d has an embedding of %d values, the store's index %d", n.ID, len(n.Emb), dims)
	}
	text := fbutils.CreateStringOffset(fbb, n.Text)
	var emb flatbuffers.UOffsetT
	if dims > 0 {
		fbb.StartVector(4, len(n.Emb), 4)
		for i := len(n.Emb) - 1; i >= 0; i-- {
			fbb.PrependFloat32(n.Emb[i])
		}
		emb = fbb.EndVector(len(n.Emb))
	}
	fbb.StartObject(agentPropID)
	fbutils.SetUint64Slot(fbb, 0, a.objectID(n.ID))
	fbutils.SetUOffsetTSlot(fbb, 1, text)
	fbutils.SetInt64Slot(fbb, 2, n.Ts)
	if dims > 0 {
		fbutils.SetUOffsetTSlot(fbb, embPropID-1, emb)
	}
	fbutils.SetInt64Slot(fbb, agentPropID-1, a.q.agent)
	return nil
}

// Insert implements engine.Store: the notes put in one transaction, with
// the variant's buffers (a create writes one agent at a time).
func (a *sharedAgent) Insert(notes []workload.Note) error {
	v := a.st.v
	ids, err := a.marshal(v.fbb, notes, &v.m, v.ids)
	if err != nil {
		return err
	}
	v.ids = ids
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := a.q.put(v.m.data, v.m.offs, ids); err != nil {
		return fmt.Errorf("put %d notes of agent %d: %w", len(notes), a.q.agent, err)
	}
	return nil
}

// Append implements engine.Store: one object in its own write
// transaction, with buffers of its own (serve appends to several agents
// at once).
func (a *sharedAgent) Append(n workload.Note) error {
	var m marshaled
	ids, err := a.marshal(flatbuffers.NewBuilder(512), []workload.Note{n}, &m, nil)
	if err != nil {
		return err
	}
	aligned := make([]uint64, (len(m.data)+7)/8) // 8-byte aligned, as marshal lays objects out
	data := unsafe.Slice((*byte)(unsafe.Pointer(&aligned[0])), len(m.data))
	copy(data, m.data)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := a.q.put(data, m.offs, ids); err != nil {
		return fmt.Errorf("append note %d of agent %d: %w", n.ID, a.q.agent, err)
	}
	return nil
}

// Count implements engine.Store: a query of the agent's objects, counted.
func (a *sharedAgent) Count() (int64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return a.q.count()
}

// Recent implements engine.Store: the agent's query ordered by id,
// descending, with a limit.
func (a *sharedAgent) Recent(n int, dst []workload.Note) ([]workload.Note, error) {
	return a.find(true, n, dst)
}

// Scan implements engine.Store: the agent's query ordered by id.
func (a *sharedAgent) Scan(fn func(workload.Note)) error {
	notes, err := a.find(false, 0, nil)
	for _, n := range notes {
		fn(n)
	}
	return err
}

// find appends the agent's notes ordered by id (descending when desc),
// at most limit (0: all), to dst.
func (a *sharedAgent) find(desc bool, limit int, dst []workload.Note) ([]workload.Note, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var bad error
	err := a.q.find(idProperty(), desc, limit, func(n workload.Note) {
		n, err := a.noteOf(n)
		if err != nil && bad == nil {
			bad = err
		}
		dst = append(dst, n)
	})
	if err == nil {
		err = bad
	}
	return dst, err
}

// Get implements engine.Store: obx_box_get of each note's object id in
// one read transaction.
func (a *sharedAgent) Get(ids []int64, dst []workload.Note) ([]workload.Note, error) {
	objIDs := make([]int64, len(ids))
	for i, id := range ids {
		objIDs[i] = int64(a.objectID(id))
	}
	runtime.LockOSThread()
	from := len(dst)
	dst, err := a.st.s.get(entityID(), objIDs, dst)
	runtime.UnlockOSThread()
	if err != nil {
		return dst, fmt.Errorf("agent %d: %w", a.q.agent, err)
	}
	for i := from; i < len(dst); i++ {
		if dst[i], err = a.noteOf(dst[i]); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// KNN implements engine.VectorStore: the agent's nearest notes by the
// shared HNSW index (hnswSetting.counts), nearest first.
func (a *sharedAgent) KNN(q []float32, k int, dst []int64) ([]int64, error) {
	if a.st.dims == 0 {
		return dst, fmt.Errorf("knn: the shared store was made without vectors")
	}
	if len(q) != a.st.dims {
		return dst, fmt.Errorf("knn: a query of %d values for an index of %d dimensions", len(q), a.st.dims)
	}
	count, limit := a.st.v.hnsw.counts(k)
	runtime.LockOSThread()
	ids, err := a.q.knn(embPropID, q, count, limit, k)
	runtime.UnlockOSThread()
	for _, id := range ids {
		n, nerr := a.noteOf(workload.Note{ID: int64(id)})
		if nerr != nil {
			return dst, nerr
		}
		dst = append(dst, n.ID)
	}
	return dst, err
}

// Close implements engine.Store: the shared store stays open.
func (a *sharedAgent) Close() error { return nil }

var _ engine.Store = (*sharedAgent)(nil)
