//go:build objectbox

package objectbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"manydb/internal/engine"
	"manydb/internal/engines/objectbox/note"
)

// The shared layout of obx_cached and obx_nosync: one store holding every
// agent's notes. Its model is Note's with the id property self-assignable
// (an object's id is the agent's number × 2¹⁵ + the note's id, so an
// agent's notes lie together in id order and a note is read by its id)
// and an indexed agent property, which every query of an agent is
// conditioned on (obx_qb_equals_int), as an application keys its objects
// by agent; with embeddings, emb and its HNSW index as in a store per
// agent, and an agent's knn is the nearest-neighbours condition ANDed with
// the agent's.
const (
	agentName     = "agent"
	agentPropID   = 5
	agentPropUID  = 7340268094621558117
	agentIndexID  = 2
	agentIndexUID = 2920716838316254521
	// OBXPropertyType_Long, OBXPropertyFlags_ID_SELF_ASSIGNABLE
	// (objectbox.h).
	typeLong             = 6
	flagIDSelfAssignable = 128
	// sharedMaxSizeKB is the shared store's maximum size
	// (obx_opt_max_db_size_in_kb), 256 GiB: ObjectBox's default, 1 GiB,
	// holds about 2,200 agents of 1,000 notes (a create of 10,000 failed
	// at agent 2,209 with "Could not put", error 10101), and LMDB only
	// reserves the address space.
	sharedMaxSizeKB = 256 << 20
	// agentShift puts the agent's number above the note's id in an
	// object's id, which stays below 2³²: ObjectBox 5.3.2's HNSW index
	// fails to remove objects of larger ids (obx_query_remove: "Vector is
	// missing for neighbor to repair", error 10001, also one object per
	// transaction), so a shared store holds agents 0 to 2¹⁷-1 of at most
	// 2¹⁵-1 notes each.
	agentShift = 15
)

// The interfaces of the shared layout.
var (
	_ engine.SharedVariant       = (*cVariant)(nil)
	_ engine.SharedVectorVariant = (*cVariant)(nil)
	_ engine.VectorStore         = (*sharedAgent)(nil)
)

// sharedModelBytes returns the shared store's model: Note's, its id
// self-assignable, plus the indexed agent property and, when params is
// not nil, emb with its HNSW index.
func sharedModelBytes(modelJSONFile []byte, params *hnswParams) ([]byte, error) {
	m, err := parseModel(modelJSONFile)
	if err != nil {
		return nil, err
	}
	if len(m.entities) != 1 || m.entities[0].id.id != entityID() || m.entities[0].lastProp.id >= embPropID {
		return nil, fmt.Errorf("objectbox-model.json is not Note's model of 3 properties")
	}
	e := &m.entities[0]
	e.props[0].flags |= flagIDSelfAssignable
	if params != nil {
		e.props = append(e.props, property{id: idUid{embPropID, embPropUID}, name: embName, typ: typeFloatVector,
			flags: flagIndexed, index: idUid{embIndexID, embIndexUID}, hnsw: params})
	}
	agent := idUid{agentPropID, agentPropUID}
	e.props = append(e.props, property{id: agent, name: agentName, typ: typeLong, flags: flagIndexed, index: idUid{agentIndexID, agentIndexUID}})
	e.lastProp = agent
	m.lastIndex = idUid{agentIndexID, agentIndexUID}
	return m.bytes(), nil
}

// sharedModel returns the shared store's model for dims dimensions (0: no
// embeddings) in C memory, made on first use and kept until CloseVariant.
func (v *cVariant) sharedModel(dims int) (*cModel, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if m := v.sharedModels[dims]; m != nil {
		return m, nil
	}
	var params *hnswParams
	if dims > 0 {
		params = v.hnsw.params(dims)
	}
	b, err := sharedModelBytes(note.ModelJSON, params)
	if err != nil {
		return nil, fmt.Errorf("build the shared model bytes: %w", err)
	}
	if v.sharedModels == nil {
		v.sharedModels = map[int]*cModel{}
	}
	m := newCModel(b)
	v.sharedModels[dims] = m
	return m, nil
}

// sharedStore is the open shared store.
type sharedStore struct {
	v    *cVariant
	s    cStore
	dims int
}

// CreateShared implements engine.SharedVariant.
func (v *cVariant) CreateShared(dir string) (engine.SharedStore, error) {
	return v.openShared(dir, 0, true)
}

// CreateSharedVectors implements engine.SharedVectorVariant: the shared
// store with emb and its HNSW index, and DimsFile.
func (v *cVariant) CreateSharedVectors(dir string, dims int) (engine.SharedStore, error) {
	if dims <= 0 {
		return nil, fmt.Errorf("create with vectors: %d dimensions", dims)
	}
	if !hasVectorSearch() {
		return nil, fmt.Errorf("ObjectBox %s has no vector search (obx_has_feature(OBXFeature_VectorSearch) is false)", cVersion())
	}
	if err := os.WriteFile(filepath.Join(dir, DimsFile), []byte(strconv.Itoa(dims)+"\n"), 0o644); err != nil {
		return nil, err
	}
	return v.openShared(dir, dims, true)
}

// OpenShared implements engine.SharedVariant: with the shared model
// (obx_cached), or without a model when data.mdb exists (obx_nosync), as
// a store per agent is opened.
func (v *cVariant) OpenShared(dir string) (engine.SharedStore, error) {
	dims, err := readDims(dir)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	return v.openShared(dir, dims, false)
}

// openShared opens the shared store in dir, made now (create) or before.
func (v *cVariant) openShared(dir string, dims int, create bool) (engine.SharedStore, error) {
	if v.model == nil {
		return nil, errors.New("variant closed")
	}
	var model *cModel
	if _, err := os.Stat(filepath.Join(dir, DataFile)); create || !v.skipSync || err != nil {
		if model, err = v.sharedModel(dims); err != nil {
			return nil, err
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s, err := cOpen(dir, model, false, sharedMaxSizeKB) // lean's options are for many stores: not the one shared store's
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	return &sharedStore{v: v, s: s, dims: dims}, nil
}

// SharedLayout implements engine.SharedVariant.
func (v *cVariant) SharedLayout() string {
	return "one store (data.mdb, opened with ObjectBox's defaults but obx_opt_max_db_size_in_kb 268435456, 256 GiB, under every setting: lean's options are for many stores, and max_readers 16 would bound serve's goroutines) of Note objects with an indexed agent property (obx_qb_equals_int on it in every query of an agent) and self-assigned ids, agent × 2¹⁵ + the note's id (below 2³²: ObjectBox's HNSW index fails to remove objects of larger ids); " +
		"an agent's open runs no call (its queries name the agent); deleting an agent is a query of its objects removed (obx_query_remove) in one write transaction: LMDB keeps the freed pages in its file for later writes, so no space goes back to the file system"
}

// SharedVectorSearch implements engine.SharedVectorVariant.
func (v *cVariant) SharedVectorSearch() engine.VectorSearch {
	return engine.VectorSearch{Method: v.hnsw.method(cVersion()) + "; one HNSW index over every agent's notes, the nearest-neighbours condition ANDed with the agent's (obx_qb_equals_int), ObjectBox's filtered search"}
}

// Agent implements engine.SharedStore.
func (s *sharedStore) Agent(a int) (engine.Store, error) {
	if a < 0 || a >= 1<<(32-agentShift) {
		return nil, fmt.Errorf("agent %d: the shared store keys agents 0 to %d (object ids stay below 2³², see agentShift)", a, 1<<(32-agentShift)-1)
	}
	return &sharedAgent{st: s, q: sharedQuery{s: s.s, entity: entityID(), prop: agentPropID, agent: int64(a)}}, nil
}

// DeleteAgent implements engine.SharedStore.
func (s *sharedStore) DeleteAgent(a int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_, err := sharedQuery{s: s.s, entity: entityID(), prop: agentPropID, agent: int64(a)}.remove()
	return err
}

// Close implements engine.SharedStore.
func (s *sharedStore) Close() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return s.s.close()
}
