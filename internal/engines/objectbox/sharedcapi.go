//go:build objectbox

package objectbox

// The C calls of the shared layout (shared.go): every agent's notes in one
// store, each object's id the agent's number × 2¹⁵ + the note's id (the
// id property self-assignable), and an indexed agent property that every
// query of an agent is conditioned on.

/*
#include "capi.h"

// OBXPutMode_INSERT (objectbox.h): fails if an object of the id exists.
#define MDB_PUT_INSERT 2

// mdb_agent_query builds the query of the objects whose agent property
// equals agent, after the nearest-neighbours condition on vec_prop when q
// is not NULL (the conditions are ANDed), ordered by order_prop (0: not
// ordered) with flags. NULL on failure (a condition's too).
static OBX_query* mdb_agent_query(OBX_store* store, obx_schema_id entity, obx_schema_id agent_prop, int64_t agent,
		obx_schema_id order_prop, uint32_t flags, obx_schema_id vec_prop, const float* q, size_t count) {
	OBX_query_builder* qb = obx_query_builder(store, entity);
	if (!qb) return NULL;
	if (q) obx_qb_nearest_neighbors_f32(qb, vec_prop, q, count);
	obx_qb_equals_int(qb, agent_prop, agent);
	if (order_prop) obx_qb_order(qb, order_prop, flags);
	OBX_query* query = obx_query(qb);
	obx_qb_close(qb);
	return query;
}

// mdb_shared_put puts n objects with their own ids (mode INSERT) in one
// write transaction; object i is data[offs[i]:offs[i+1]].
static obx_err mdb_shared_put(OBX_store* store, obx_schema_id entity, const uint8_t* data, const uint64_t* offs,
		const obx_id* ids, size_t n) {
	OBX_txn* txn = obx_txn_write(store);
	if (!txn) return obx_last_error_code();
	obx_err err = 0;
	OBX_bytes_array* arr = NULL;
	OBX_box* box = obx_box(store, entity);
	if (!box) { err = obx_last_error_code(); goto out; }
	arr = obx_bytes_array(n);
	if (!arr) { err = obx_last_error_code(); goto out; }
	for (size_t i = 0; i < n; i++) {
		if ((err = obx_bytes_array_set(arr, i, data + offs[i], offs[i + 1] - offs[i])) != 0) goto out;
	}
	if ((err = obx_box_put_many(box, arr, ids, MDB_PUT_INSERT)) != 0) goto out;
	obx_bytes_array_free(arr);
	return obx_txn_success(txn);
out:
	obx_bytes_array_free(arr);
	obx_txn_close(txn);
	return err;
}

// mdb_shared_count counts the agent's objects.
static obx_err mdb_shared_count(OBX_store* store, obx_schema_id entity, obx_schema_id agent_prop, int64_t agent, uint64_t* out) {
	OBX_query* q = mdb_agent_query(store, entity, agent_prop, agent, 0, 0, 0, NULL, 0);
	if (!q) return obx_last_error_code();
	obx_err err = obx_query_count(q, out);
	obx_query_close(q);
	return err;
}

// mdb_shared_find finds the agent's objects ordered by order_prop with
// flags, at most limit (0: all), in a read transaction left open for the
// caller to decode them (mdb_shared_read_end).
static obx_err mdb_shared_find(OBX_store* store, obx_schema_id entity, obx_schema_id agent_prop, int64_t agent,
		obx_schema_id order_prop, uint32_t flags, size_t limit, OBX_txn** txn, OBX_bytes_array** out) {
	*out = NULL;
	*txn = obx_txn_read(store);
	if (!*txn) return obx_last_error_code();
	OBX_query* q = mdb_agent_query(store, entity, agent_prop, agent, order_prop, flags, 0, NULL, 0);
	if (!q) return obx_last_error_code();
	obx_err err = limit > 0 ? obx_query_limit(q, limit) : 0;
	if (err == 0) {
		*out = obx_query_find(q);
		if (!*out) err = obx_last_error_code();
	}
	obx_query_close(q);
	return err;
}

// mdb_shared_knn finds at most cap ids of the agent's objects nearest to
// q: the nearest-neighbours condition (max_result_count count) ANDed with
// the agent's, obx_query_limit(limit) when limit > 0; *n is their number.
static obx_err mdb_shared_knn(OBX_store* store, obx_schema_id entity, obx_schema_id agent_prop, int64_t agent,
		obx_schema_id vec_prop, const float* q, size_t count, size_t limit, obx_id* out, size_t cap, size_t* n) {
	*n = 0;
	OBX_query* query = mdb_agent_query(store, entity, agent_prop, agent, 0, 0, vec_prop, q, count);
	if (!query) return obx_last_error_code();
	obx_err err = limit > 0 ? obx_query_limit(query, limit) : 0;
	if (err == 0) {
		OBX_id_score_array* arr = obx_query_find_ids_with_scores(query);
		if (!arr) {
			err = obx_last_error_code();
		} else {
			for (size_t i = 0; i < arr->count && i < cap; i++, (*n)++) out[i] = arr->ids_scores[i].id;
			obx_id_score_array_free(arr);
		}
	}
	obx_query_close(query);
	return err;
}

// mdb_shared_remove removes the agent's objects in one write transaction.
static obx_err mdb_shared_remove(OBX_store* store, obx_schema_id entity, obx_schema_id agent_prop, int64_t agent, uint64_t* removed) {
	OBX_txn* txn = obx_txn_write(store);
	if (!txn) return obx_last_error_code();
	OBX_query* q = mdb_agent_query(store, entity, agent_prop, agent, 0, 0, 0, NULL, 0);
	obx_err err = q ? obx_query_remove(q, removed) : obx_last_error_code();
	if (q) obx_query_close(q);
	if (err != 0) {
		obx_txn_close(txn);
		return err;
	}
	return obx_txn_success(txn);
}

// mdb_shared_read_end frees arr (may be NULL) and closes the read
// transaction.
static obx_err mdb_shared_read_end(OBX_txn* txn, OBX_bytes_array* arr) {
	obx_bytes_array_free(arr);
	return txn ? obx_txn_close(txn) : 0;
}
*/
import "C"

import (
	"unsafe"

	"manydb/internal/workload"
)

// sharedQuery is what a query of one agent's objects names: the store,
// the entity, the agent property and the agent.
type sharedQuery struct {
	s      cStore
	entity uint32
	prop   uint32 // the agent property
	agent  int64
}

// put writes objects (FlatBuffers) with their own ids in one
// transaction; object i is data[offs[i]:offs[i+1]] with id ids[i].
func (q sharedQuery) put(data []byte, offs []uint64, ids []uint64) error {
	if len(ids) == 0 {
		return nil
	}
	rc := C.mdb_shared_put(q.s.p, C.obx_schema_id(q.entity), (*C.uint8_t)(unsafe.Pointer(&data[0])),
		(*C.uint64_t)(unsafe.Pointer(&offs[0])), (*C.obx_id)(unsafe.Pointer(&ids[0])), C.size_t(len(ids)))
	if rc != 0 {
		return lastError(rc)
	}
	return nil
}

// count counts the agent's objects.
func (q sharedQuery) count() (int64, error) {
	var n C.uint64_t
	if rc := C.mdb_shared_count(q.s.p, C.obx_schema_id(q.entity), C.obx_schema_id(q.prop), C.int64_t(q.agent), &n); rc != 0 {
		return 0, lastError(rc)
	}
	return int64(n), nil
}

// find calls fn with the agent's objects ordered by orderProp (descending
// when desc), at most limit (0: all).
func (q sharedQuery) find(orderProp uint32, desc bool, limit int, fn func(workload.Note)) error {
	var flags C.uint32_t
	if desc {
		flags = 1 // OBXOrderFlags_DESCENDING
	}
	var txn *C.OBX_txn
	var arr *C.OBX_bytes_array
	var err error
	rc := C.mdb_shared_find(q.s.p, C.obx_schema_id(q.entity), C.obx_schema_id(q.prop), C.int64_t(q.agent),
		C.obx_schema_id(orderProp), flags, C.size_t(limit), &txn, &arr)
	if rc != 0 {
		err = lastError(rc)
	} else if arr != nil && arr.count > 0 {
		for _, b := range unsafe.Slice(arr.bytes, int(arr.count)) {
			n, derr := loadNote(unsafe.Slice((*byte)(b.data), int(b.size)))
			if derr != nil {
				err = derr
				break
			}
			fn(n)
		}
	}
	if rc := C.mdb_shared_read_end(txn, arr); rc != 0 && err == nil {
		err = lastError(rc)
	}
	return err
}

// knn returns the ids of at most k of the agent's objects nearest to v by
// the HNSW index of vecProp (count: max_result_count; limit:
// obx_query_limit, 0 none), nearest first.
func (q sharedQuery) knn(vecProp uint32, v []float32, count, limit, k int) ([]uint64, error) {
	if k <= 0 {
		return nil, nil
	}
	out := make([]C.obx_id, k) // C fills Go memory without Go pointers
	var n C.size_t
	rc := C.mdb_shared_knn(q.s.p, C.obx_schema_id(q.entity), C.obx_schema_id(q.prop), C.int64_t(q.agent),
		C.obx_schema_id(vecProp), (*C.float)(unsafe.Pointer(&v[0])), C.size_t(count), C.size_t(limit), &out[0], C.size_t(k), &n)
	if rc != 0 {
		return nil, lastError(rc)
	}
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(out[i])
	}
	return ids, nil
}

// remove removes the agent's objects and returns how many.
func (q sharedQuery) remove() (int64, error) {
	var n C.uint64_t
	if rc := C.mdb_shared_remove(q.s.p, C.obx_schema_id(q.entity), C.obx_schema_id(q.prop), C.int64_t(q.agent), &n); rc != 0 {
		return 0, lastError(rc)
	}
	return int64(n), nil
}
