/* manydb's C ABI over libSQL's Rust SDK, the crate `libsql` 0.10.0 with
 * local files only (rust/libsql-capi, a Rust staticlib). Functions
 * returning int return 0 on success and -1 on error, with a message in
 * *err to be freed with manydb_libsql_free_error. Rust panics are caught
 * and returned as errors. Every call, the close included, runs on the
 * calling thread. See src/lib.rs for what each call does.
 *
 * Link: -lmanydb_libsql_capi -ldl -lgcc_s -lutil -lrt -lpthread -lm (what
 * rustc --print native-static-libs asks for; a C program links with
 * -ldl -lpthread -lm alone). */
#ifndef MANYDB_LIBSQL_H
#define MANYDB_LIBSQL_H

#include <stddef.h>
#include <stdint.h>

typedef struct ManydbLibsqlStore ManydbLibsqlStore;

/* Versions, one "key=value" per line ('\n'-separated, no trailing
 * newline), in this order: libsql, libsql-sys, libsql-ffi (crates, from
 * Cargo.lock at build time), sqlite (sqlite3_libversion of the linked
 * library), libsql_c (libsql_libversion, libSQL's own version of its C
 * library), rustc (rustc --version at build time, without the leading
 * "rustc ": "1.95.0 (59807616e 2026-04-14)"). A static string: do
 * not free it. */
const char *manydb_libsql_versions(void);

void manydb_libsql_free_error(char *err);

/* Opens the database file at path and one connection to it. create != 0:
 * read-write, the file created if missing; create == 0: read-write, an
 * error if the file is missing (it is not created). */
int manydb_libsql_open(const char *path, int create, ManydbLibsqlStore **out, char **err);

/* Executes one SQL statement that returns no rows (e.g. CREATE TABLE). */
int manydb_libsql_exec(ManydbLibsqlStore *s, const char *sql, char **err);

/* Inserts n notes into notes(id, text, ts) in one transaction: BEGIN, one
 * prepared INSERT INTO notes(id, text, ts) VALUES (?, ?, ?) reset and
 * executed per note, COMMIT (ROLLBACK on error). Note i has id ids[i], ts
 * ts[i] and as text the next text_lens[i] bytes (UTF-8) of text, the
 * texts stored one after another (the layout of turso's mt_insert_notes). */
int manydb_libsql_insert_notes(ManydbLibsqlStore *s, size_t n, const int64_t *ids,
                               const int64_t *ts, const int64_t *text_lens,
                               const uint8_t *text, char **err);

/* Inserts n notes with their embeddings in one transaction, as
 * manydb_libsql_insert_notes does, but with the caller's INSERT (sql),
 * which takes (id, text, ts, emb): note i's embedding is bound as a blob,
 * the i-th run of emb_size bytes of emb (its float32 values,
 * little-endian, as F32_BLOB stores them). */
int manydb_libsql_insert_notes_emb(ManydbLibsqlStore *s, const char *sql, size_t n,
                                   const int64_t *ids, const int64_t *ts,
                                   const int64_t *text_lens, const uint8_t *text,
                                   const uint8_t *emb, size_t emb_size, char **err);

/* Runs the caller's knn query (sql, prepared for this call and finalized)
 * bound with (q, a blob of q_size bytes; k) and writes the first column of
 * its first k rows, the ids in the query's order, to ids (room for k);
 * their number to *n. */
int manydb_libsql_knn(ManydbLibsqlStore *s, const char *sql, const uint8_t *q, size_t q_size,
                      size_t k, int64_t *ids, size_t *n, char **err);

/* SELECT count(*) FROM notes, the value in *out. */
int manydb_libsql_count(ManydbLibsqlStore *s, int64_t *out, char **err);

/* Closes the connection (sqlite3_close_v2, once) on the calling thread and
 * frees s, even on error. s must not be used afterwards. */
int manydb_libsql_close(ManydbLibsqlStore *s, char **err);

/* A prepared statement whose rows are notes (id, text, ts). */
typedef struct ManydbLibsqlStmt ManydbLibsqlStmt;
int manydb_libsql_prepare(ManydbLibsqlStore *s, const char *sql, ManydbLibsqlStmt **out, char **err);
/* resets st and starts its query, v bound to parameter 1 when bind != 0 */
int manydb_libsql_query(ManydbLibsqlStmt *st, int bind, int64_t v, char **err);
/* *row = 1 and the note's columns (text valid until the next call), or *row = 0 at the end */
int manydb_libsql_next_note(ManydbLibsqlStmt *st, int *row, int64_t *id, const uint8_t **text, size_t *len, int64_t *ts, char **err);
int manydb_libsql_finalize(ManydbLibsqlStmt *st, char **err);

#endif
