package libsqlgo

// The close guard. go-libsql's static library (libsql crate 0.9.x) closes
// every connection twice: dropping a local LibsqlConnection runs two
// destructors, each calling sqlite3_close_v2 on the same raw handle
// without clearing it (libsql issues #2251 and #2264, fixed by PRs #2261
// and #2282 in the crate's 0.10.0; go-libsql issue #90). Both calls run,
// one right after the other, on the tokio thread that drops the
// connection, while the Go thread may already open the next store, which
// can reuse the freed memory: the second call then closes a live
// connection, and the process crashes now and then.
//
// The linker wraps sqlite3_close_v2 (-Wl,--wrap) for the whole worker: a
// call that repeats, on the same thread, the handle that thread closed
// last is skipped (and forgotten, so that a new connection at the same
// address is closed for real the next time). Every other call goes to
// the real sqlite3_close_v2. The counters let a test see real and skipped
// closes, so a fixed library (no repeats) or a changed one is noticed.

/*
#cgo LDFLAGS: -Wl,--wrap=sqlite3_close_v2
#include <stdint.h>
#include <stdatomic.h>

extern int __real_sqlite3_close_v2(void *db);

static _Thread_local void *manydb_last_closed;
static atomic_uint_fast64_t manydb_real_closes, manydb_skipped_closes;

int __wrap_sqlite3_close_v2(void *db) {
	if (db != 0 && db == manydb_last_closed) {
		manydb_last_closed = 0;
		atomic_fetch_add(&manydb_skipped_closes, 1);
		return 0; // SQLITE_OK: the handle was closed by the call before
	}
	manydb_last_closed = db;
	atomic_fetch_add(&manydb_real_closes, 1);
	return __real_sqlite3_close_v2(db);
}

static void manydb_close_counts(uint64_t *real, uint64_t *skipped) {
	*real = atomic_load(&manydb_real_closes);
	*skipped = atomic_load(&manydb_skipped_closes);
}
*/
import "C"

// CloseCounts returns how many sqlite3_close_v2 calls of this process went
// to SQLite (real) and how many the guard skipped as the immediate repeat
// of the same handle on the same thread.
func CloseCounts() (real, skipped uint64) {
	var r, s C.uint64_t
	C.manydb_close_counts(&r, &s)
	return uint64(r), uint64(s)
}
