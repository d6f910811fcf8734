//go:build objectbox

package objectbox

// Direct calls to the ObjectBox C API for obx_cached and obx_nosync, which
// objectbox-go cannot express (its Builder always builds an OBX_model and
// passes it with obx_opt_model, which frees it).
//
// The few declarations needed are written in capi.h instead of including
// objectbox.h, so the package compiles (go vet, go build) with nothing but
// the library, which third_party/objectbox/lib holds (scripts/
// fetch-objectbox.sh). The rpath lets the worker find it at run time
// without LD_LIBRARY_PATH.
//
// Each helper does its whole job in one cgo call; Go memory passed to C
// (model bytes, note FlatBuffers) is used only during that call.

/*
#cgo LDFLAGS: -L${SRCDIR}/../../../third_party/objectbox/lib -Wl,-rpath,${SRCDIR}/../../../third_party/objectbox/lib -lobjectbox
#include "capi.h"

#define MDB_NOT_FOUND 404
#define MDB_ORDER_DESCENDING 1

// OBXPutMode_PUT_ID_GUARANTEED_TO_BE_NEW, as objectbox-go's PutMany uses
// for new objects (commented out in objectbox.h, value 4).
#define MDB_PUT_ID_GUARANTEED_TO_BE_NEW 4
// mdb_put_many's own error: the reserved ids are not the objects' ids.
#define MDB_ERR_IDS (-1)

// mdb_lean is the lean setting's store options (objectbox.h): no
// thread-local reader slots, and so no pthread key per store; max_readers
// read transactions at once; and a maximum size of max_kb (lean's, or the
// shared store's; 0: ObjectBox's default, 1 GiB).
typedef struct mdb_lean { int on; unsigned int max_readers; uint64_t max_kb; } mdb_lean;

// mdb_open opens the store in dir: with the model's FlatBuffers bytes when
// model is not NULL (the library syncs it with the stored schema), else
// without a model (the library reads the stored schema); with lean's
// options when lean.on.
static OBX_store* mdb_open(const char* dir, const void* model, size_t model_size, mdb_lean lean) {
	OBX_store_options* opt = obx_opt();
	if (!opt) return NULL;
	if (obx_opt_directory(opt, dir) != 0) { obx_opt_free(opt); return NULL; }
	if (lean.on) {
		obx_opt_no_reader_thread_locals(opt, true);
		obx_opt_max_readers(opt, lean.max_readers);
	}
	if (lean.max_kb) obx_opt_max_db_size_in_kb(opt, lean.max_kb);
	if (model && obx_opt_model_bytes_direct(opt, model, model_size) != 0) { obx_opt_free(opt); return NULL; }
	return obx_store_open(opt); // frees opt
}

// mdb_put_many puts n objects in one write transaction, as objectbox-go's
// Box.PutMany does for new objects: reserve n ids, put all objects with
// them (mode PUT_ID_GUARANTEED_TO_BE_NEW), commit. Object i is
// data[offs[i]:offs[i+1]] and must already hold id first_id+i, so the ids
// reserved must start at first_id (else nothing is written).
static obx_err mdb_put_many(OBX_store* store, obx_schema_id entity, const uint8_t* data, const uint64_t* offs,
		obx_id* ids, size_t n, obx_id first_id) {
	OBX_txn* txn = obx_txn_write(store);
	if (!txn) return obx_last_error_code();
	obx_err err = 0;
	OBX_bytes_array* arr = NULL;
	OBX_box* box = obx_box(store, entity);
	if (!box) { err = obx_last_error_code(); goto out; }
	obx_id first = 0;
	if ((err = obx_box_ids_for_put(box, n, &first)) != 0) goto out;
	if (first != first_id) { err = MDB_ERR_IDS; goto out; }
	arr = obx_bytes_array(n);
	if (!arr) { err = obx_last_error_code(); goto out; }
	for (size_t i = 0; i < n; i++) {
		ids[i] = first + i;
		if ((err = obx_bytes_array_set(arr, i, data + offs[i], offs[i + 1] - offs[i])) != 0) goto out;
	}
	if ((err = obx_box_put_many(box, arr, ids, MDB_PUT_ID_GUARANTEED_TO_BE_NEW)) != 0) goto out;
	obx_bytes_array_free(arr);
	return obx_txn_success(txn); // commits and closes txn
out:
	obx_bytes_array_free(arr);
	obx_txn_close(txn); // aborts
	return err;
}

// mdb_count counts the entity's objects (obx_box_count, no limit).
static obx_err mdb_count(OBX_store* store, obx_schema_id entity, uint64_t* out) {
	OBX_box* box = obx_box(store, entity);
	if (!box) return obx_last_error_code();
	return obx_box_count(box, 0, out);
}
// The reads below leave a read transaction open: the objects' bytes point
// into the database's memory map and stay valid until mdb_read_end, so Go
// decodes them in between (two cgo calls per query).

// mdb_recent finds the limit objects with the highest ids: a query
// ordered by the id property, descending, with a limit.
static obx_err mdb_recent(OBX_store* store, obx_schema_id entity, obx_schema_id id_prop, size_t limit,
		OBX_txn** txn, OBX_bytes_array** out) {
	*out = NULL;
	*txn = obx_txn_read(store);
	if (!*txn) return obx_last_error_code();
	OBX_query_builder* qb = obx_query_builder(store, entity);
	if (!qb) return obx_last_error_code();
	obx_err err = obx_qb_order(qb, id_prop, MDB_ORDER_DESCENDING);
	OBX_query* q = err == 0 ? obx_query(qb) : NULL;
	obx_qb_close(qb);
	if (!q) return err ? err : obx_last_error_code();
	if ((err = obx_query_limit(q, limit)) == 0) {
		*out = obx_query_find(q);
		if (!*out) err = obx_last_error_code();
	}
	obx_query_close(q);
	return err;
}

// mdb_get reads the objects of ids with obx_box_get into out; on an id not
// stored it returns MDB_NOT_FOUND with *missing its index.
static obx_err mdb_get(OBX_store* store, obx_schema_id entity, const obx_id* ids, size_t n,
		OBX_txn** txn, OBX_bytes* out, size_t* missing) {
	*txn = obx_txn_read(store);
	if (!*txn) return obx_last_error_code();
	OBX_box* box = obx_box(store, entity);
	if (!box) return obx_last_error_code();
	for (size_t i = 0; i < n; i++) {
		obx_err err = obx_box_get(box, ids[i], &out[i].data, &out[i].size);
		if (err == MDB_NOT_FOUND) *missing = i;
		if (err) return err;
	}
	return 0;
}

// mdb_all reads every object of the entity (obx_box_get_all), in id order.
static obx_err mdb_all(OBX_store* store, obx_schema_id entity, OBX_txn** txn, OBX_bytes_array** out) {
	*out = NULL;
	*txn = obx_txn_read(store);
	if (!*txn) return obx_last_error_code();
	OBX_box* box = obx_box(store, entity);
	if (!box) return obx_last_error_code();
	*out = obx_box_get_all(box);
	return *out ? 0 : obx_last_error_code();
}

// OBXFeature_VectorSearch (objectbox.h): the library has HNSW indexes.
#define MDB_FEATURE_VECTOR_SEARCH 14

// mdb_knn finds the objects nearest to q (the index's dimensions of
// floats) by the HNSW index of prop: a query with the condition
// obx_qb_nearest_neighbors_f32(prop, q, count) and, when limit > 0,
// obx_query_limit(limit), run with obx_query_find_ids_with_scores (sorted
// by score, the distance, ascending). The first cap ids go to out and,
// unless scores is NULL, their scores to scores; *n is their number.
static obx_err mdb_knn(OBX_store* store, obx_schema_id entity, obx_schema_id prop, const float* q, size_t count,
		size_t limit, obx_id* out, double* scores, size_t cap, size_t* n) {
	*n = 0;
	OBX_query_builder* qb = obx_query_builder(store, entity);
	if (!qb) return obx_last_error_code();
	obx_qb_nearest_neighbors_f32(qb, prop, q, count);
	OBX_query* query = obx_query(qb); // fails if the condition did
	obx_qb_close(qb);
	if (!query) return obx_last_error_code();
	obx_err err = limit > 0 ? obx_query_limit(query, limit) : 0;
	if (err == 0) {
		OBX_id_score_array* arr = obx_query_find_ids_with_scores(query);
		if (!arr) {
			err = obx_last_error_code();
		} else {
			for (size_t i = 0; i < arr->count && i < cap; i++, (*n)++) {
				out[i] = arr->ids_scores[i].id;
				if (scores) scores[i] = arr->ids_scores[i].score;
			}
			obx_id_score_array_free(arr);
		}
	}
	obx_query_close(query);
	return err;
}

// mdb_read_end frees arr (may be NULL) and closes the read transaction.
static obx_err mdb_read_end(OBX_txn* txn, OBX_bytes_array* arr) {
	obx_bytes_array_free(arr);
	return txn ? obx_txn_close(txn) : 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"manydb/internal/engine"
	"manydb/internal/workload"
)

// cError is an error reported by the ObjectBox C library.
type cError struct {
	code int
	msg  string
}

func (e *cError) Error() string { return fmt.Sprintf("objectbox: %s (error %d)", e.msg, e.code) }

// lastError returns the library's last error on this thread; the caller's
// goroutine is locked to its thread around the call that failed (the
// worker locks its loops; cCall locks otherwise).
func lastError(code C.obx_err) error {
	if code == C.MDB_ERR_IDS {
		return errors.New("objectbox: the ids reserved for the put are not the notes' ids 1…N: Insert needs a new, empty store")
	}
	if code == 0 {
		code = C.obx_last_error_code()
	}
	return &cError{int(code), C.GoString(C.obx_last_error_message())}
}

// cVersion returns obx_version_string(), e.g. "5.3.2".
func cVersion() string { return C.GoString(C.obx_version_string()) }

// cStore is an open store handle of the C API.
type cStore struct {
	p *C.OBX_store
}

// The lean setting's store options (objectbox.h 5.x, the header the
// library's obx_opt_* symbols match): obx_opt_no_reader_thread_locals true
// ("disables the usage of thread locals for readers", experimental; each
// store otherwise holds a pthread key, at most 1,024 per process),
// obx_opt_max_readers 16 (default 126: the lock file's reader table
// shrinks; with thread locals off a reader is held only during a read
// transaction, so 16 bounds the read transactions open on one store at
// once), obx_opt_max_db_size_in_kb 64 MiB (default 1 GiB: the address
// space LMDB maps per store; a store is about 0.5 MB).
const (
	leanMaxReaders = 16
	leanMaxSizeKB  = 64 << 10
)

// leanOptions names them, as a record's engine_options.
func leanOptions() map[string]string {
	return map[string]string{
		"obx_opt_no_reader_thread_locals": "true",
		"obx_opt_max_readers":             fmt.Sprint(leanMaxReaders),
		"obx_opt_max_db_size_in_kb":       fmt.Sprint(leanMaxSizeKB),
	}
}

// cOpen opens the store in dir, with model (FlatBuffers bytes in C memory,
// see cModel) or, when model is nil, without a model; with the lean
// setting's options when lean; with a maximum size of maxKB when it is
// not 0 (else lean's, or ObjectBox's default).
func cOpen(dir string, model *cModel, lean bool, maxKB uint64) (cStore, error) {
	// The path as a NUL-terminated Go slice (obx_opt_directory copies it)
	// rather than C.CString's copy in C memory: no malloc, free and two
	// more cgo calls inside the open's span.
	cdir := append([]byte(dir), 0)
	var p unsafe.Pointer
	var n C.size_t
	if model != nil {
		p, n = model.p, model.n
	}
	var l C.mdb_lean
	if lean {
		l = C.mdb_lean{on: 1, max_readers: leanMaxReaders, max_kb: leanMaxSizeKB}
	}
	if maxKB != 0 {
		l.max_kb = C.uint64_t(maxKB)
	}
	s := C.mdb_open((*C.char)(unsafe.Pointer(&cdir[0])), p, n, l)
	if s == nil {
		return cStore{}, lastError(0)
	}
	return cStore{s}, nil
}

// putMany writes objects (FlatBuffers) in one transaction; object i is
// data[offs[i]:offs[i+1]] and holds id firstID+i; ids is scratch space of
// len(offs)-1 elements.
func (s cStore) putMany(entity uint32, data []byte, offs []uint64, ids []uint64, firstID uint64) error {
	n := len(offs) - 1
	if n <= 0 {
		return nil
	}
	if len(ids) < n {
		return errors.New("putMany: ids scratch too short")
	}
	rc := C.mdb_put_many(s.p, C.obx_schema_id(entity), (*C.uint8_t)(unsafe.Pointer(&data[0])),
		(*C.uint64_t)(unsafe.Pointer(&offs[0])), (*C.obx_id)(unsafe.Pointer(&ids[0])), C.size_t(n), C.obx_id(firstID))
	if rc != 0 {
		return lastError(rc)
	}
	return nil
}

// count returns the number of objects of entity.
func (s cStore) count(entity uint32) (int64, error) {
	var n C.uint64_t
	if rc := C.mdb_count(s.p, C.obx_schema_id(entity), &n); rc != 0 {
		return 0, lastError(rc)
	}
	return int64(n), nil
}

// close closes the store.
func (s cStore) close() error {
	if rc := C.obx_store_close(s.p); rc != 0 {
		return lastError(rc)
	}
	return nil
}

// cModel is the model's FlatBuffers bytes in C memory, made once per
// process and passed to every open with obx_opt_model_bytes_direct (the
// library reads them during obx_store_open and keeps no pointer to them).
type cModel struct {
	p unsafe.Pointer
	n C.size_t
}

func newCModel(b []byte) *cModel {
	return &cModel{p: C.CBytes(b), n: C.size_t(len(b))}
}

func (m *cModel) free() {
	C.free(m.p)
	m.p = nil
}

// readEnd frees arr and closes txn, joining its error to err.
func readEnd(txn *C.OBX_txn, arr *C.OBX_bytes_array, err error) error {
	if rc := C.mdb_read_end(txn, arr); rc != 0 && err == nil {
		err = lastError(rc)
	}
	return err
}

// decode turns one object's FlatBuffer (C memory, valid for the call)
// into a note, its text copied into Go memory.
func decode(b C.OBX_bytes) (workload.Note, error) {
	o, err := loadNote(unsafe.Slice((*byte)(b.data), int(b.size)))
	return o, err
}

// each decodes every object of arr and calls fn with it.
func each(arr *C.OBX_bytes_array, fn func(workload.Note)) error {
	if arr == nil || arr.count == 0 {
		return nil
	}
	for _, b := range unsafe.Slice(arr.bytes, int(arr.count)) {
		n, err := decode(b)
		if err != nil {
			return err
		}
		fn(n)
	}
	return nil
}

// recent appends the limit objects with the highest ids to dst.
func (s cStore) recent(entity, idProp uint32, limit int, dst []workload.Note) ([]workload.Note, error) {
	var txn *C.OBX_txn
	var arr *C.OBX_bytes_array
	var err error
	if rc := C.mdb_recent(s.p, C.obx_schema_id(entity), C.obx_schema_id(idProp), C.size_t(limit), &txn, &arr); rc != 0 {
		err = lastError(rc)
	} else {
		err = each(arr, func(n workload.Note) { dst = append(dst, n) })
	}
	return dst, readEnd(txn, arr, err)
}

// get appends the objects of ids to dst.
func (s cStore) get(entity uint32, ids []int64, dst []workload.Note) ([]workload.Note, error) {
	if len(ids) == 0 {
		return dst, nil
	}
	out := make([]C.OBX_bytes, len(ids)) // C fills Go memory without Go pointers
	var txn *C.OBX_txn
	var missing C.size_t
	var err error
	rc := C.mdb_get(s.p, C.obx_schema_id(entity), (*C.obx_id)(unsafe.Pointer(&ids[0])), C.size_t(len(ids)), &txn, &out[0], &missing)
	switch {
	case rc == C.MDB_NOT_FOUND:
		err = fmt.Errorf("note %d: %w", ids[missing], engine.ErrNotFound)
	case rc != 0:
		err = lastError(rc)
	default:
		for _, b := range out {
			var n workload.Note
			if n, err = decode(b); err != nil {
				break
			}
			dst = append(dst, n)
		}
	}
	return dst, readEnd(txn, nil, err)
}

// scan calls fn with every object, in id order.
func (s cStore) scan(entity uint32, fn func(workload.Note)) error {
	var txn *C.OBX_txn
	var arr *C.OBX_bytes_array
	var err error
	if rc := C.mdb_all(s.p, C.obx_schema_id(entity), &txn, &arr); rc != 0 {
		err = lastError(rc)
	} else {
		err = each(arr, fn)
	}
	return readEnd(txn, arr, err)
}

// hasVectorSearch reports whether the library has vector search
// (obx_has_feature(OBXFeature_VectorSearch)).
func hasVectorSearch() bool { return bool(C.obx_has_feature(C.MDB_FEATURE_VECTOR_SEARCH)) }

// knn appends to dst the ids of at most k objects nearest to q by the
// HNSW index of prop, nearest first: count is obx_qb_nearest_neighbors_f32's
// max_result_count, limit obx_query_limit's (0: none). q must hold the
// index's dimensions of values. With scores not nil, the ids' scores (their
// distances to q) are appended to *scores.
func (s cStore) knn(entity, prop uint32, q []float32, count, limit, k int, dst []int64, scores *[]float64) ([]int64, error) {
	if k <= 0 {
		return dst, nil
	}
	out := make([]C.obx_id, k) // C fills Go memory without Go pointers
	var sc []C.double
	var scp *C.double
	if scores != nil {
		sc = make([]C.double, k)
		scp = &sc[0]
	}
	var n C.size_t
	rc := C.mdb_knn(s.p, C.obx_schema_id(entity), C.obx_schema_id(prop), (*C.float)(unsafe.Pointer(&q[0])),
		C.size_t(count), C.size_t(limit), &out[0], scp, C.size_t(k), &n)
	if rc != 0 {
		return dst, lastError(rc)
	}
	for i, id := range out[:n] {
		dst = append(dst, int64(id))
		if scores != nil {
			*scores = append(*scores, float64(sc[i]))
		}
	}
	return dst, nil
}
