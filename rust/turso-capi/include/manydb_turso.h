/* manydb's C ABI over Turso Database (rust/turso-capi, a Rust staticlib).
 * Functions returning int return 0 on success and -1 on error, with a
 * message in *err to be freed with mt_free_error. Rust panics are caught
 * and returned as errors. See src/lib.rs for what each call does. */
#ifndef MANYDB_TURSO_H
#define MANYDB_TURSO_H

#include <stddef.h>
#include <stdint.h>

typedef struct MtStore MtStore;

const char *mt_version(void);       /* turso_sdk_kit version */
const char *mt_core_version(void);  /* turso_core version */
const char *mt_rustc_version(void); /* rustc --version at build time */
void mt_free_error(char *err);

int mt_open(const char *path, MtStore **out, char **err);
int mt_exec(MtStore *s, const char *sql, char **err);
int mt_insert_notes(MtStore *s, size_t n, const int64_t *ids, const int64_t *ts,
                    const int64_t *text_lens, const uint8_t *text, char **err);
/* mt_insert_notes with the caller's INSERT (sql), which takes (id, text,
 * ts) and, when emb is not NULL, emb: note i's embedding is bound as a
 * blob, the i-th run of emb_size bytes of emb (float32 values,
 * little-endian). */
int mt_insert_notes_emb(MtStore *s, const char *sql, size_t n, const int64_t *ids,
                        const int64_t *ts, const int64_t *text_lens, const uint8_t *text,
                        const uint8_t *emb, size_t emb_size, char **err);
/* Runs the caller's knn query (sql, prepared for this call and finalized)
 * bound with (q, a blob of q_size bytes; k) and writes the first column of
 * its first k rows, the ids in the query's order, to ids (room for k);
 * their number to *n. */
int mt_knn(MtStore *s, const char *sql, const uint8_t *q, size_t q_size, size_t k,
           int64_t *ids, size_t *n, char **err);
int mt_count(MtStore *s, int64_t *out, char **err);
/* Runs the caller's query (sql); its first row's first column, an integer, to *out. */
int mt_query_int(MtStore *s, const char *sql, int64_t *out, char **err);
int mt_checkpoint(MtStore *s, char **err); /* PRAGMA wal_checkpoint(TRUNCATE) */
int mt_close(MtStore *s, char **err); /* frees s even on error */

/* A prepared statement whose rows are notes (id, text, ts). */
typedef struct MtStmt MtStmt;
int mt_prepare(MtStore *s, const char *sql, MtStmt **out, char **err);
int mt_rebind(MtStmt *st, int64_t v, char **err); /* reset, bind parameter 1 */
/* *row = 1 and the note's columns (text valid until the next step), or *row = 0 when done */
int mt_step_note(MtStmt *st, int *row, int64_t *id, const uint8_t **text, size_t *len, int64_t *ts, char **err);
int mt_finalize(MtStmt *st, char **err); /* frees st even on error */

#endif
