// capi.h: the C side of package sqlitecapi, included by its cgo preamble
// (sqlitecapi.go): the declarations of sqlite3.h it needs and its
// helpers, each one cgo call. The helpers are static, as they were in the
// preamble, so each compiles into the cgo file that calls it.
#ifndef MANYDB_SQLITECAPI_H
#define MANYDB_SQLITECAPI_H

#include <stdint.h>
#include <stdlib.h>

// The few declarations of sqlite3.h this package needs; the definitions
// are those mattn/go-sqlite3 compiles into the binary.
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
extern int sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs);
extern int sqlite3_close(sqlite3 *db);
extern int sqlite3_exec(sqlite3 *db, const char *sql, void *cb, void *arg, char **errmsg);
extern int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int n, sqlite3_stmt **st, const char **tail);
extern int sqlite3_step(sqlite3_stmt *st);
extern int sqlite3_reset(sqlite3_stmt *st);
extern int sqlite3_finalize(sqlite3_stmt *st);
extern int sqlite3_bind_int64(sqlite3_stmt *st, int i, int64_t v);
extern int sqlite3_bind_text(sqlite3_stmt *st, int i, const char *v, int n, void (*destructor)(void *));
extern int sqlite3_bind_blob(sqlite3_stmt *st, int i, const void *v, int n, void (*destructor)(void *));
extern int64_t sqlite3_column_int64(sqlite3_stmt *st, int i);
extern const unsigned char *sqlite3_column_text(sqlite3_stmt *st, int i);
extern int sqlite3_column_bytes(sqlite3_stmt *st, int i);
extern const char *sqlite3_errmsg(sqlite3 *db);
extern const char *sqlite3_libversion(void);
extern const char *sqlite3_sourceid(void);
extern int sqlite3_shutdown(void);
extern int sqlite3_config(int op, ...);
extern int sqlite3_db_status(sqlite3 *db, int op, int *cur, int *hiwtr, int reset);
// libSQL's own version: defined by libSQL's C library only, so NULL
// (weak) where the library linked is SQLite.
extern const char *libsql_libversion(void) __attribute__((weak));

// manydb_is_libsql tells whether the library linked is libSQL's.
static int manydb_is_libsql(void) { return libsql_libversion != NULL; }

#define MANYDB_SQLITE_OK 0
#define MANYDB_SQLITE_ROW 100
#define MANYDB_SQLITE_DONE 101
#define MANYDB_OPEN_READWRITE 0x00000002
#define MANYDB_OPEN_CREATE 0x00000004
// sqlite3.h's SQLITE_CONFIG_PAGECACHE, _LOOKASIDE, _MMAP_SIZE and
// SQLITE_DBSTATUS_LOOKASIDE_HIT.
#define MANYDB_CONFIG_PAGECACHE 7
#define MANYDB_CONFIG_LOOKASIDE 13
#define MANYDB_CONFIG_MMAP_SIZE 22
#define MANYDB_DBSTATUS_LOOKASIDE_HIT 4

// manydb_open opens path and, when pragmas is not NULL, runs them; on
// failure *db may still need closing.
static int manydb_open(const char *path, int create, const char *pragmas, sqlite3 **db) {
	int flags = MANYDB_OPEN_READWRITE | (create ? MANYDB_OPEN_CREATE : 0);
	int rc = sqlite3_open_v2(path, db, flags, NULL);
	if (rc == MANYDB_SQLITE_OK && pragmas != NULL) rc = sqlite3_exec(*db, pragmas, NULL, NULL, NULL);
	return rc;
}

// manydb_configure shuts SQLite down (no connection may be open) and sets
// its process-wide lookaside, page-cache bulk (when pagecache_n >= 0) and
// mmap size; the next open initialises it again. sqlite3_config is
// variadic, which cgo cannot call.
static int manydb_configure(int lookaside_sz, int lookaside_n, int pagecache_n, int64_t mmap_size) {
	int rc = sqlite3_shutdown();
	if (rc != MANYDB_SQLITE_OK) return rc;
	rc = sqlite3_config(MANYDB_CONFIG_LOOKASIDE, lookaside_sz, lookaside_n);
	if (rc == MANYDB_SQLITE_OK && pagecache_n >= 0) rc = sqlite3_config(MANYDB_CONFIG_PAGECACHE, (void *)0, 0, pagecache_n);
	// A negative maximum keeps the compile-time maximum (SQLITE_MAX_MMAP_SIZE).
	if (rc == MANYDB_SQLITE_OK) rc = sqlite3_config(MANYDB_CONFIG_MMAP_SIZE, (int64_t)mmap_size, (int64_t)-1);
	return rc;
}

// manydb_int runs sql and reads the first column of its first row.
static int manydb_int(sqlite3 *db, const char *sql, int64_t *out) {
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != MANYDB_SQLITE_OK) return rc;
	rc = sqlite3_step(st);
	if (rc == MANYDB_SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		rc = MANYDB_SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

// manydb_lookaside_hits is how many allocations db's lookaside served.
static int manydb_lookaside_hits(sqlite3 *db) {
	int cur = 0, hi = 0;
	sqlite3_db_status(db, MANYDB_DBSTATUS_LOOKASIDE_HIT, &cur, &hi, 0);
	return hi;
}

// manydb_count runs SELECT count(*) FROM notes as bench/sqlite_bench.c does.
static int manydb_count(sqlite3 *db, int64_t *out) {
	return manydb_int(db, "SELECT count(*) FROM notes", out);
}

// manydb_insert_one binds one note to the prepared INSERT, steps and
// resets it. text is copied by SQLite (SQLITE_TRANSIENT).
static int manydb_insert_one(sqlite3_stmt *st, int64_t id, const char *text, int n, int64_t ts) {
	if (text == NULL) text = ""; // an empty Go string has no data pointer
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, text, n, (void (*)(void *))-1);
	sqlite3_bind_int64(st, 3, ts);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == MANYDB_SQLITE_DONE ? MANYDB_SQLITE_OK : rc;
}

// manydb_insert_emb is manydb_insert_one with the note's embedding bound
// to parameter emb_param (copied, SQLITE_TRANSIENT) when emb is not NULL.
static int manydb_insert_emb(sqlite3_stmt *st, int64_t id, const char *text, int n, int64_t ts, const void *emb, int emb_n, int emb_param) {
	if (text == NULL) text = "";
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, text, n, (void (*)(void *))-1);
	sqlite3_bind_int64(st, 3, ts);
	if (emb != NULL) sqlite3_bind_blob(st, emb_param, emb, emb_n, (void (*)(void *))-1);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == MANYDB_SQLITE_DONE ? MANYDB_SQLITE_OK : rc;
}

// manydb_insert_vec binds a note's id and embedding (copied) to the
// prepared insert of a vector table, steps and resets it.
static int manydb_insert_vec(sqlite3_stmt *st, int64_t id, const void *emb, int emb_n) {
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_blob(st, 2, emb, emb_n, (void (*)(void *))-1);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == MANYDB_SQLITE_DONE ? MANYDB_SQLITE_OK : rc;
}

// manydb_knn binds the query's blob (copied) and k to the prepared knn
// query and steps it to the end, writing the first column of at most k
// rows, the ids, to ids and their number to *n: one cgo call per query.
static int manydb_knn(sqlite3_stmt *st, const void *q, int q_n, int k, int64_t *ids, int *n) {
	*n = 0;
	int rc = sqlite3_bind_blob(st, 1, q, q_n, (void (*)(void *))-1);
	if (rc == MANYDB_SQLITE_OK) rc = sqlite3_bind_int64(st, 2, k);
	if (rc != MANYDB_SQLITE_OK) return rc;
	while ((rc = sqlite3_step(st)) == MANYDB_SQLITE_ROW) {
		if (*n < k) ids[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	return rc == MANYDB_SQLITE_DONE ? MANYDB_SQLITE_OK : rc;
}

// manydb_prepare prepares sql on db.
static int manydb_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st) {
	return sqlite3_prepare_v2(db, sql, -1, st, NULL);
}

// manydb_step_note steps st and, on a row of id, text, ts, reads its
// columns: one cgo call per row. *text stays valid until the next step.
static int manydb_step_note(sqlite3_stmt *st, int64_t *id, const char **text, int *n, int64_t *ts) {
	int rc = sqlite3_step(st);
	if (rc != MANYDB_SQLITE_ROW) return rc;
	*id = sqlite3_column_int64(st, 0);
	*text = (const char *)sqlite3_column_text(st, 1);
	*n = sqlite3_column_bytes(st, 1);
	*ts = sqlite3_column_int64(st, 2);
	return rc;
}

// manydb_rebind resets st and binds v to its first parameter.
static int manydb_rebind(sqlite3_stmt *st, int64_t v) {
	sqlite3_reset(st);
	return sqlite3_bind_int64(st, 1, v);
}

#endif
