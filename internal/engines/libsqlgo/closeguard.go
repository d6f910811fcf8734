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
//
// Because those closes run on tokio's threads after the Go call returned,
// a close may still be under way when the worker's Go thread goes on. The
// linker also wraps sqlite3_open_v2 to count the connections opened, so
// that waitClosed can wait until each one's close has returned: SQLite's
// process-wide configuration (sqlitecapi.Configure) shuts SQLite down,
// and a shutdown during a close leaves SQLite's own mutexes held by
// nobody; the next open then hangs.

/*
#cgo LDFLAGS: -Wl,--wrap=sqlite3_close_v2 -Wl,--wrap=sqlite3_open_v2
#include <stdint.h>
#include <stdatomic.h>

extern int __real_sqlite3_close_v2(void *db);
extern int __real_sqlite3_open_v2(const char *name, void **db, int flags, const char *vfs);

static _Thread_local void *manydb_last_closed;
static atomic_uint_fast64_t manydb_real_closes, manydb_skipped_closes;
static atomic_uint_fast64_t manydb_opened, manydb_closed;

int __wrap_sqlite3_open_v2(const char *name, void **db, int flags, const char *vfs) {
	int rc = __real_sqlite3_open_v2(name, db, flags, vfs);
	if (rc == 0) { // SQLITE_OK: a connection that its close will count
		atomic_fetch_add(&manydb_opened, 1);
	}
	return rc;
}

int __wrap_sqlite3_close_v2(void *db) {
	if (db != 0 && db == manydb_last_closed) {
		manydb_last_closed = 0;
		atomic_fetch_add(&manydb_skipped_closes, 1);
		return 0; // SQLITE_OK: the handle was closed by the call before
	}
	manydb_last_closed = db;
	atomic_fetch_add(&manydb_real_closes, 1);
	int rc = __real_sqlite3_close_v2(db);
	atomic_fetch_add(&manydb_closed, 1);
	return rc;
}

static void manydb_close_counts(uint64_t *real, uint64_t *skipped) {
	*real = atomic_load(&manydb_real_closes);
	*skipped = atomic_load(&manydb_skipped_closes);
}

static void manydb_open_counts(uint64_t *opened, uint64_t *closed) {
	*opened = atomic_load(&manydb_opened);
	*closed = atomic_load(&manydb_closed);
}
*/
import "C"

import (
	"fmt"
	"time"
)

// CloseCounts returns how many sqlite3_close_v2 calls of this process went
// to SQLite (real) and how many the guard skipped as the immediate repeat
// of the same handle on the same thread.
func CloseCounts() (real, skipped uint64) {
	var r, s C.uint64_t
	C.manydb_close_counts(&r, &s)
	return uint64(r), uint64(s)
}

// openCounts returns how many connections this process opened
// successfully (sqlite3_open_v2) and how many real closes have returned.
func openCounts() (opened, closed uint64) {
	var o, c C.uint64_t
	C.manydb_open_counts(&o, &c)
	return uint64(o), uint64(c)
}

// waitClosed waits, up to limit, until every connection opened in this
// process has been closed, its close returned on tokio's thread.
func waitClosed(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		opened, closed := openCounts()
		switch {
		case closed >= opened:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("go-libsql has closed %d of the %d connections it opened after %s: SQLite cannot be configured while one is open", closed, opened, limit)
		}
		time.Sleep(100 * time.Microsecond)
	}
}
