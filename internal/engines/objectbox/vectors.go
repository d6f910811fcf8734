//go:build objectbox

package objectbox

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	flatbuffers "github.com/google/flatbuffers/go"
	"github.com/objectbox/objectbox-go/objectbox/fbutils"

	"manydb/internal/engine"
	"manydb/internal/engines/objectbox/note"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// Vectors for obx_cached and obx_nosync: ObjectBox's own HNSW index.
//
// A store made by CreateVectors has the vector model: Note's model
// (objectbox-model.json) plus a property emb of type FloatVector with an
// HNSW index of the store's dimensions and cosine distance, the ids below
// kept as fixed as the generator's. Each note's FlatBuffer then holds its
// embedding as a [float] vector in emb's slot.
//
// How Open knows which model a store has: CreateVectors writes the
// dimensions into the file DimsFile beside data.mdb, and Open reads it
// (absent: a store of Create). obx_cached needs it before the open, since
// it passes the matching model bytes (made once per dimensions and
// process, like the plain model); a model without emb would drop the
// property and its index from the stored schema, one with emb would add
// them to a plain store. obx_nosync opens an existing store without a
// model either way and uses the dimensions to check query vectors (the C
// call reads as many floats as the index has dimensions).

// The vector model's additions to Note's entity.
const (
	embName     = "emb"
	embPropID   = 4
	embPropUID  = 4377423721159267305
	embIndexID  = 1
	embIndexUID = 6381136088538734580
	// OBXPropertyType_FloatVector, OBXPropertyFlags_INDEXED and
	// OBXVectorDistanceType_Cosine (objectbox.h).
	typeFloatVector = 28
	flagIndexed     = 8
	distanceCosine  = 2
)

// DimsFile is the file, in the directory of a store made by CreateVectors,
// that holds the embeddings' dimensions in decimal.
const DimsFile = "emb-dims"

// hnswSetting is a variant's vector index and search: the HNSW options
// written into the model (zero: ObjectBox's default) and the counts of the
// query.
type hnswSetting struct {
	neighborsPerNode    uint32 // obx_model_property_index_hnsw_neighbors_per_node ("M", default 30)
	indexingSearchCount uint32 // …_indexing_search_count ("efConstruction", default 100)
	vectorCacheHintKB   uint64 // …_vector_cache_hint_size_kb (default 2097152, 2 GiB)
	// searchCount is obx_qb_nearest_neighbors_f32's max_result_count,
	// which is also HNSW's search width ef; with it above k the query gets
	// obx_query_limit(k). Zero: k, as an application asking for k notes
	// passes.
	searchCount int
}

// defaultHNSW is ObjectBox's defaults, as an application following its
// docs writes the index: dimensions and distance type only, and
// nearest_neighbors with max result count 10.
var defaultHNSW = hnswSetting{}

// leanHNSW is the lean setting's, for stores of about 1,000 notes, chosen
// on 10 stores of 1,000 notes × 384 dims (workload.Spec.Fill), 5 queries
// each (Embedder.Query), with ObjectBox 5.3.2:
//   - max_result_count 64, then obx_query_limit 10: the search width ef is
//     64 instead of 10. Recall@10 mean 1.000, 5th percentile 1.0; the
//     defaults gave mean 0.98, 5th percentile 0.9, worst 0.8.
//   - vector_cache_hint_size_kb 2048 (default 2 GiB): a ceiling of 2 MiB
//     per open store instead of 2 GiB, above the 1.5 MB of 1,000 vectors
//     of 384 floats. Below that size indexing takes about twice as long
//     (512 KB: 210–310 ms per store instead of 100–150 ms). The hint does
//     not lower the memory a store of 1,000 notes holds after a query
//     (about 10 MB either way); it only caps what a larger store may cache.
//
// neighbors_per_node (M, default 30) and indexing_search_count
// (efConstruction, default 100) stay at their defaults: with ef 64 they
// already find the exact answer, M 16 gave the same recall, file size and
// memory with no clear gain in indexing time, and efConstruction 200 made
// indexing about 30% slower.
var leanHNSW = hnswSetting{vectorCacheHintKB: 2048, searchCount: 64}

// params returns the HnswParams of an index of dims dimensions.
func (h hnswSetting) params(dims int) *hnswParams {
	return &hnswParams{dimensions: uint32(dims), distanceType: distanceCosine, neighborsPerNode: h.neighborsPerNode,
		indexingSearchCount: h.indexingSearchCount, vectorCacheHintSizeKB: h.vectorCacheHintKB}
}

// counts returns the query's max_result_count and limit (0: none) for k.
func (h hnswSetting) counts(k int) (count, limit int) {
	if h.searchCount > k {
		return h.searchCount, k
	}
	return k, 0
}

// options names the options set, as a record's engine_options.
func (h hnswSetting) options() map[string]string {
	o := map[string]string{}
	if h.neighborsPerNode != 0 {
		o["obx_model_property_index_hnsw_neighbors_per_node"] = fmt.Sprint(h.neighborsPerNode)
	}
	if h.indexingSearchCount != 0 {
		o["obx_model_property_index_hnsw_indexing_search_count"] = fmt.Sprint(h.indexingSearchCount)
	}
	if h.vectorCacheHintKB != 0 {
		o["obx_model_property_index_hnsw_vector_cache_hint_size_kb"] = fmt.Sprint(h.vectorCacheHintKB)
	}
	if count, limit := h.counts(vector.K); limit > 0 {
		o["obx_qb_nearest_neighbors_f32 max_result_count"] = fmt.Sprint(count)
		o["obx_query_limit"] = fmt.Sprint(limit)
	}
	return o
}

// method says what the index and knn query are, as VectorSearch's Method.
func (h hnswSetting) method(version string) string {
	opts := []string{"dimensions D", "distance_type Cosine"}
	for _, o := range []struct {
		name string
		v    uint64
	}{{"neighbors_per_node", uint64(h.neighborsPerNode)}, {"indexing_search_count", uint64(h.indexingSearchCount)},
		{"vector_cache_hint_size_kb", h.vectorCacheHintKB}} {
		if o.v != 0 {
			opts = append(opts, fmt.Sprintf("%s %d", o.name, o.v))
		}
	}
	if h == defaultHNSW {
		opts = append(opts, "defaults otherwise")
	}
	count, limit := h.counts(vector.K)
	knn := fmt.Sprintf("obx_qb_nearest_neighbors_f32(…, %d)", count)
	if limit > 0 {
		knn = fmt.Sprintf("obx_qb_nearest_neighbors_f32(…, %d), obx_query_limit %d", count, limit)
	}
	return fmt.Sprintf("ObjectBox %s HNSW index on emb (obx_model_property_index_hnsw_*: %s); knn: %s, obx_query_find_ids_with_scores",
		version, strings.Join(opts, ", "), knn)
}

// vectorModelBytes returns the model bytes of a store with vectors: Note's
// model from objectbox-model.json plus emb with an HNSW index of params.
func vectorModelBytes(modelJSONFile []byte, params *hnswParams) ([]byte, error) {
	m, err := parseModel(modelJSONFile)
	if err != nil {
		return nil, err
	}
	found := false
	for i := range m.entities {
		e := &m.entities[i]
		if e.id.id != entityID() {
			continue
		}
		if e.lastProp.id >= embPropID {
			return nil, fmt.Errorf("entity %s already has property id %d, which emb needs", e.name, embPropID)
		}
		emb := idUid{embPropID, embPropUID}
		e.props = append(e.props, property{id: emb, name: embName, typ: typeFloatVector, flags: flagIndexed,
			index: idUid{embIndexID, embIndexUID}, hnsw: params})
		e.lastProp = emb
		found = true
	}
	if !found {
		return nil, fmt.Errorf("objectbox-model.json has no entity %d", entityID())
	}
	m.lastIndex = idUid{embIndexID, embIndexUID}
	return m.bytes(), nil
}

// vectorModel returns the vector model for dims dimensions in C memory,
// made on first use and kept until CloseVariant.
func (v *cVariant) vectorModel(dims int) (*cModel, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if m := v.vecModels[dims]; m != nil {
		return m, nil
	}
	b, err := vectorModelBytes(note.ModelJSON, v.hnsw.params(dims))
	if err != nil {
		return nil, fmt.Errorf("build the vector model bytes: %w", err)
	}
	if v.vecModels == nil {
		v.vecModels = map[int]*cModel{}
	}
	m := newCModel(b)
	v.vecModels[dims] = m
	return m, nil
}

// readDims returns the dimensions DimsFile in dir holds, or 0 if there is
// none (a store of Create).
func readDims(dir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, DimsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	dims, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || dims <= 0 {
		return 0, fmt.Errorf("%s: %q is not a number of dimensions", DimsFile, b)
	}
	return dims, nil
}

// CreateVectors implements engine.VectorVariant: the store has the vector
// model (emb with an HNSW index of dims dimensions) and DimsFile.
func (v *cVariant) CreateVectors(dir string, dims int) (engine.Store, error) {
	if dims <= 0 {
		return nil, fmt.Errorf("create with vectors: %d dimensions", dims)
	}
	v.vectors = true
	if !hasVectorSearch() {
		return nil, fmt.Errorf("ObjectBox %s has no vector search (obx_has_feature(OBXFeature_VectorSearch) is false)", cVersion())
	}
	m, err := v.vectorModel(dims)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, DimsFile), []byte(strconv.Itoa(dims)+"\n"), 0o644); err != nil {
		return nil, err
	}
	return v.open(dir, m, dims)
}

// VectorSearch implements engine.VectorVariant.
func (v *cVariant) VectorSearch() engine.VectorSearch {
	return engine.VectorSearch{Method: v.hnsw.method(cVersion())}
}

// PrepareVectors implements engine.VectorPreparer: from now on Open looks
// for a store's DimsFile to pick the vector model; before, it opens every
// store with the plain model, as the reference workload does.
func (v *cVariant) PrepareVectors() error {
	v.vectors = true
	return nil
}

// VectorOptions implements engine.VectorOptioner: the HNSW index's and
// the knn query's options among Options (lean's), recorded only with
// embeddings.
func (v *cVariant) VectorOptions() map[string]string {
	if !v.lean {
		return nil
	}
	return v.hnsw.options()
}

// Options implements engine.Optioner: lean's store options and its HNSW
// index and query options.
func (v *cVariant) Options() map[string]string {
	if !v.lean {
		return nil
	}
	o := leanOptions()
	maps.Copy(o, v.hnsw.options())
	return o
}

// KNN implements engine.VectorStore: the query of hnswSetting.counts with
// obx_qb_nearest_neighbors_f32 on emb, ids by ascending distance.
func (h *cStoreHandle) KNN(q []float32, k int, dst []int64) ([]int64, error) {
	if h.dims == 0 {
		return dst, errors.New("knn: the store was made by Create, without vectors")
	}
	if len(q) != h.dims {
		return dst, fmt.Errorf("knn: a query of %d values for an index of %d dimensions", len(q), h.dims)
	}
	count, limit := h.v.hnsw.counts(k)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return h.s.knn(entityID(), embPropID, q, count, limit, k, dst, nil)
}

// flatten writes note n into fbb as the generated binding's Flatten does
// (its FlatBuffer is then finished by the caller), plus, when dims > 0,
// its embedding as a [float] vector in emb's slot.
func flatten(fbb *flatbuffers.Builder, obj *note.Note, n workload.Note, dims int) error {
	*obj = note.Note{Id: uint64(n.ID), Text: n.Text, Ts: n.Ts}
	if dims == 0 {
		return note.NoteBinding.Flatten(obj, fbb, uint64(n.ID))
	}
	if len(n.Emb) != dims {
		// HNSW skips shorter vectors silently (objectbox.h).
		return fmt.Errorf("note %d has an embedding of %d values, the store's index %d", n.ID, len(n.Emb), dims)
	}
	text := fbutils.CreateStringOffset(fbb, n.Text)
	fbb.StartVector(4, len(n.Emb), 4)
	for i := len(n.Emb) - 1; i >= 0; i-- {
		fbb.PrependFloat32(n.Emb[i])
	}
	emb := fbb.EndVector(len(n.Emb))
	fbb.StartObject(embPropID)
	fbutils.SetUint64Slot(fbb, 0, uint64(n.ID))
	fbutils.SetUOffsetTSlot(fbb, 1, text)
	fbutils.SetInt64Slot(fbb, 2, n.Ts)
	fbutils.SetUOffsetTSlot(fbb, embPropID-1, emb)
	return nil
}
