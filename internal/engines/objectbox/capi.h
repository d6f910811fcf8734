// The declarations of ObjectBox's C API (objectbox.h 5.x) that manydb
// calls, written here instead of including objectbox.h so that the
// package compiles with nothing but the library (capi.go says why).
#ifndef MANYDB_OBX_CAPI_H
#define MANYDB_OBX_CAPI_H

#include <stdbool.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>

typedef int obx_err;
typedef uint32_t obx_schema_id;
typedef uint64_t obx_id;
typedef struct OBX_store_options OBX_store_options;
typedef struct OBX_store OBX_store;
typedef struct OBX_box OBX_box;
typedef struct OBX_txn OBX_txn;
typedef struct OBX_bytes { const void* data; size_t size; } OBX_bytes;
typedef struct OBX_bytes_array { OBX_bytes* bytes; size_t count; } OBX_bytes_array;
typedef struct OBX_query_builder OBX_query_builder;
typedef struct OBX_query OBX_query;

const char* obx_version_string(void);
obx_err obx_last_error_code(void);
const char* obx_last_error_message(void);
OBX_store_options* obx_opt(void);
obx_err obx_opt_directory(OBX_store_options* opt, const char* dir);
obx_err obx_opt_model_bytes_direct(OBX_store_options* opt, const void* bytes, size_t size);
void obx_opt_free(OBX_store_options* opt);
void obx_opt_max_db_size_in_kb(OBX_store_options* opt, uint64_t size_in_kb);
void obx_opt_max_readers(OBX_store_options* opt, unsigned int max_readers);
void obx_opt_no_reader_thread_locals(OBX_store_options* opt, bool flag);
OBX_store* obx_store_open(OBX_store_options* opt);
obx_err obx_store_close(OBX_store* store);
OBX_txn* obx_txn_write(OBX_store* store);
obx_err obx_txn_success(OBX_txn* txn);
obx_err obx_txn_close(OBX_txn* txn);
OBX_box* obx_box(OBX_store* store, obx_schema_id entity_id);
obx_err obx_box_ids_for_put(OBX_box* box, uint64_t count, obx_id* out_first_id);
obx_err obx_box_put_many(OBX_box* box, const OBX_bytes_array* objects, const obx_id* ids, int mode);
obx_err obx_box_count(OBX_box* box, uint64_t limit, uint64_t* out_count);
OBX_bytes_array* obx_bytes_array(size_t count);
obx_err obx_bytes_array_set(OBX_bytes_array* array, size_t index, const void* data, size_t size);
void obx_bytes_array_free(OBX_bytes_array* array);
OBX_txn* obx_txn_read(OBX_store* store);
obx_err obx_box_get(OBX_box* box, obx_id id, const void** data, size_t* size);
OBX_bytes_array* obx_box_get_all(OBX_box* box);
OBX_query_builder* obx_query_builder(OBX_store* store, obx_schema_id entity_id);
obx_err obx_qb_order(OBX_query_builder* builder, obx_schema_id property_id, uint32_t flags);
obx_err obx_qb_close(OBX_query_builder* builder);
OBX_query* obx_query(OBX_query_builder* builder);
obx_err obx_query_limit(OBX_query* query, size_t limit);
OBX_bytes_array* obx_query_find(OBX_query* query);
obx_err obx_query_close(OBX_query* query);
typedef int obx_qb_cond;
typedef struct OBX_id_score { obx_id id; double score; } OBX_id_score;
typedef struct OBX_id_score_array { OBX_id_score* ids_scores; size_t count; } OBX_id_score_array;
bool obx_has_feature(int feature);
obx_qb_cond obx_qb_nearest_neighbors_f32(OBX_query_builder* builder, obx_schema_id vector_property_id,
		const float* query_vector, size_t max_result_count);
OBX_id_score_array* obx_query_find_ids_with_scores(OBX_query* query);
void obx_id_score_array_free(OBX_id_score_array* array);
obx_qb_cond obx_qb_equals_int(OBX_query_builder* builder, obx_schema_id property_id, int64_t value);
obx_err obx_query_count(OBX_query* query, uint64_t* out_count);
obx_err obx_query_remove(OBX_query* query, uint64_t* out_count);

#endif
