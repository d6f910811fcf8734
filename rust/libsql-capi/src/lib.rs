//! manydb's C ABI over libSQL's Rust SDK (crate `libsql` 0.10.0, feature
//! `core` only: local files, no remote, replication, sync or TLS), for the
//! Go adapter of the `libsql` engine. The declarations are in
//! include/manydb_libsql.h.
//!
//! Why this exists: go-libsql ships a static library built from the crate
//! 0.9.25, where dropping a local connection calls `sqlite3_close_v2` twice
//! on the same pointer (`impl Drop for LibsqlConnection` in
//! local/impls.rs and `impl Drop for Connection` in local/connection.rs
//! both call `disconnect()`, which did not clear `raw`), and that drop runs
//! on a tokio blocking-pool thread, so another open can reuse the freed
//! memory between the two closes. In 0.10.0 `disconnect()` sets `raw` to
//! NULL after `sqlite3_close_v2`, so the second call is
//! `sqlite3_close_v2(NULL)`, a no-op in SQLite. This library also closes
//! on the calling thread, as the reference's Python binding did.
//!
//! Which API, and how it is driven: the crate's synchronous layer
//! (`libsql::local::{Database, Connection}`) is private in 0.10.0
//! (`mod local;` in lib.rs); only `libsql::ffi` (the C symbols) and the
//! public, async-signature API (`Builder`, `Database`, `Connection`,
//! `Statement`, `Rows`) are reachable. For a local file that public API is
//! async in signature only: each `async fn` of the local implementation
//! (local/impls.rs, `LibsqlConnection`/`LibsqlStmt`/`LibsqlRows`) makes its
//! SQLite calls directly and awaits nothing, and `Builder::<Local>::build`
//! awaits nothing either; no tokio is linked in (the `core` feature has
//! none). So every future is driven by `now()` below: ONE poll with a
//! no-op waker on the calling thread. A local future therefore completes in
//! that poll, on this thread; if one ever returned Pending (a crate version
//! that moved the work elsewhere), the call fails with an error instead of
//! waiting, so "everything runs on the calling thread" is checked, not
//! assumed. (futures::executor::block_on would also run it on this thread
//! but would park and wait in that case.)
//!
//! What one open does: `Builder::new_local(path).flags(..).build()` only
//! records the path and flags; `Database::connect()` runs, the first time in
//! the process, `sqlite3_config(SQLITE_CONFIG_SERIALIZED)` and
//! `sqlite3_initialize`, then `sqlite3_open_v2(path, flags)`: one sqlite3
//! handle per store, no pragmas, so SQLite's defaults hold (journal_mode
//! DELETE, synchronous FULL; libsql-ffi 0.10.0 builds its sqlite3.c without
//! changing them). Close drops the connection: `sqlite3_close_v2(raw)`, then
//! `sqlite3_close_v2(NULL)` (see above), then drops the `Database`, which
//! holds no handle. No statement outlives the call that prepared it, so the
//! close finds none open.
//!
//! Known wart of the crate: when `sqlite3_open_v2` fails (e.g. a missing
//! file opened without create), the crate returns the error without
//! closing the handle SQLite allocated, leaking a few KB per failed open.
//!
//! Every function catches Rust panics (`catch_unwind`) and returns them as
//! errors; no panic crosses the C boundary. Errors are returned as
//! NUL-terminated strings that the caller frees with
//! `manydb_libsql_free_error`. A store handle must be used by one thread at
//! a time.

use std::ffi::{c_char, c_int, CStr, CString};
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;
use std::task::{Context, Poll, Waker};

use libsql::{Builder, Connection, Database, OpenFlags, Value};

/// One open store: a database and its single connection.
pub struct ManydbLibsqlStore {
    db: Database,
    conn: Connection,
}

/// Runs a future of the crate's local API to completion in one poll on the
/// calling thread (see the module comment); an error if it would suspend.
fn now<F: Future>(f: F) -> Result<F::Output, String> {
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    match f.as_mut().poll(&mut cx) {
        Poll::Ready(v) => Ok(v),
        Poll::Pending => Err("libsql: a local call did not complete on the calling thread (future pending)".to_string()),
    }
}

/// The versions, "key=value" lines, built once.
fn versions() -> &'static CStr {
    static V: OnceLock<CString> = OnceLock::new();
    V.get_or_init(|| {
        let libsql_c = unsafe {
            let p = libsql::ffi::libsql_libversion();
            if p.is_null() {
                "unknown".to_string()
            } else {
                CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        let s = format!(
            "libsql={}\nlibsql-sys={}\nlibsql-ffi={}\nsqlite={}\nlibsql_c={}\nrustc={}",
            env!("MANYDB_LIBSQL_VERSION"),
            env!("MANYDB_LIBSQL_SYS_VERSION"),
            env!("MANYDB_LIBSQL_FFI_VERSION"),
            libsql::version(),
            libsql_c,
            env!("MANYDB_RUSTC_VERSION").trim_start_matches("rustc "),
        );
        CString::new(s.replace('\0', " ")).unwrap_or_default()
    })
}

/// The versions of the crates (from Cargo.lock at build time), of the
/// linked SQLite and libSQL C library, and of rustc, one "key=value" per
/// line: libsql, libsql-sys, libsql-ffi, sqlite, libsql_c, rustc. Static;
/// NULL only if building the string panicked.
#[no_mangle]
pub extern "C" fn manydb_libsql_versions() -> *const c_char {
    match catch_unwind(versions) {
        Ok(s) => s.as_ptr(),
        Err(_) => std::ptr::null(),
    }
}

/// Frees an error string returned by any function of this library.
///
/// # Safety
/// err must be NULL or a string returned by this library, freed once.
#[no_mangle]
pub unsafe extern "C" fn manydb_libsql_free_error(err: *mut c_char) {
    if !err.is_null() {
        drop(CString::from_raw(err));
    }
}

/// Runs f, turning an error or a panic into a message in *err and -1.
fn guard(err: *mut *mut c_char, f: impl FnOnce() -> Result<(), String>) -> c_int {
    let msg = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => return 0,
        Ok(Err(msg)) => msg,
        Err(payload) => {
            let what = if let Some(s) = payload.downcast_ref::<&str>() {
                s.to_string()
            } else if let Some(s) = payload.downcast_ref::<String>() {
                s.clone()
            } else {
                "unknown panic payload".to_string()
            };
            format!("libsql panicked: {what}")
        }
    };
    if !err.is_null() {
        let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
        unsafe { *err = c.into_raw() };
    }
    -1
}

fn store<'a>(s: *mut ManydbLibsqlStore) -> Result<&'a ManydbLibsqlStore, String> {
    if s.is_null() {
        return Err("store handle is NULL".to_string());
    }
    Ok(unsafe { &*s })
}

/// Opens the database file at path and one connection to it (one
/// `sqlite3_open_v2`). create != 0 opens read-write and creates a missing
/// file; create == 0 opens read-write without SQLITE_OPEN_CREATE, so a
/// missing file is an error and is not created. On success stores the
/// handle in *out and returns 0.
///
/// # Safety
/// path must be a NUL-terminated string; out and err valid pointers.
#[no_mangle]
pub unsafe extern "C" fn manydb_libsql_open(
    path: *const c_char,
    create: c_int,
    out: *mut *mut ManydbLibsqlStore,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        if path.is_null() || out.is_null() {
            return Err("manydb_libsql_open: NULL argument".to_string());
        }
        let path = CStr::from_ptr(path)
            .to_str()
            .map_err(|e| format!("path is not UTF-8: {e}"))?;
        let flags = if create != 0 {
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
        } else {
            OpenFlags::SQLITE_OPEN_READ_WRITE
        };
        let db = now(Builder::new_local(path).flags(flags).build())?
            .map_err(|e| format!("open {path}: {e}"))?;
        let conn = db.connect().map_err(|e| format!("connect {path}: {e}"))?;
        *out = Box::into_raw(Box::new(ManydbLibsqlStore { db, conn }));
        Ok(())
    })
}

/// Executes one statement that returns no rows (prepare, step, finalize).
fn exec(conn: &Connection, sql: &str) -> Result<(), String> {
    now(conn.execute(sql, ()))?.map_err(|e| format!("{sql}: {e}"))?;
    Ok(())
}

/// Executes one SQL statement that returns no rows (e.g. CREATE TABLE).
///
/// # Safety
/// s must be an open store; sql NUL-terminated; err a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn manydb_libsql_exec(
    s: *mut ManydbLibsqlStore,
    sql: *const c_char,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        let s = store(s)?;
        if sql.is_null() {
            return Err("manydb_libsql_exec: sql is NULL".to_string());
        }
        let sql = CStr::from_ptr(sql).to_str().map_err(|e| format!("sql is not UTF-8: {e}"))?;
        exec(&s.conn, sql)
    })
}

/// Inserts n notes into notes(id, text, ts) in one transaction (BEGIN,
/// one prepared INSERT reset and executed n times, COMMIT; ROLLBACK on
/// error). Note i has id ids[i], ts ts[i] and as text the next
/// text_lens[i] bytes (UTF-8) of text, the texts being stored one after
/// another.
///
/// # Safety
/// ids, ts and text_lens must point to n values each, text to their sum
/// of bytes; s an open store; err a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn manydb_libsql_insert_notes(
    s: *mut ManydbLibsqlStore,
    n: usize,
    ids: *const i64,
    ts: *const i64,
    text_lens: *const i64,
    text: *const u8,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        let s = store(s)?;
        let Some(notes) = columns("manydb_libsql_insert_notes", n, ids, ts, text_lens, text)? else {
            return Ok(());
        };
        in_tx(&s.conn, || insert_all(&s.conn, INSERT_SQL, &notes, None))
    })
}

/// Inserts n notes with their embeddings in one transaction, as
/// `manydb_libsql_insert_notes` does, with the caller's INSERT (sql), which
/// takes (id, text, ts, emb): note i's embedding, bound as a blob, is the
/// i-th run of emb_size bytes of emb (its float32 values, little-endian:
/// libSQL's F32_BLOB).
///
/// # Safety
/// sql must be NUL-terminated; ids, ts and text_lens must point to n
/// values each, text to their sum of bytes, emb to n * emb_size bytes; s
/// an open store; err a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn manydb_libsql_insert_notes_emb(
    s: *mut ManydbLibsqlStore,
    sql: *const c_char,
    n: usize,
    ids: *const i64,
    ts: *const i64,
    text_lens: *const i64,
    text: *const u8,
    emb: *const u8,
    emb_size: usize,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        let s = store(s)?;
        if sql.is_null() {
            return Err("manydb_libsql_insert_notes_emb: sql is NULL".to_string());
        }
        let sql = CStr::from_ptr(sql).to_str().map_err(|e| format!("sql is not UTF-8: {e}"))?;
        let Some(notes) = columns("manydb_libsql_insert_notes_emb", n, ids, ts, text_lens, text)? else {
            return Ok(());
        };
        if emb.is_null() || emb_size == 0 {
            return Err("manydb_libsql_insert_notes_emb: no embeddings".to_string());
        }
        let emb = std::slice::from_raw_parts(emb, n * emb_size);
        in_tx(&s.conn, || insert_all(&s.conn, sql, &notes, Some((emb, emb_size))))
    })
}

/// The notes of an insert, column by column, as the caller laid them out.
struct Columns<'a> {
    ids: &'a [i64],
    ts: &'a [i64],
    lens: &'a [i64],
    text: &'a [u8],
}

/// Checks and borrows the columns of n notes; None for no notes.
unsafe fn columns<'a>(
    what: &str,
    n: usize,
    ids: *const i64,
    ts: *const i64,
    text_lens: *const i64,
    text: *const u8,
) -> Result<Option<Columns<'a>>, String> {
    if n == 0 {
        return Ok(None);
    }
    if ids.is_null() || ts.is_null() || text_lens.is_null() {
        return Err(format!("{what}: NULL argument"));
    }
    let ids = std::slice::from_raw_parts(ids, n);
    let ts = std::slice::from_raw_parts(ts, n);
    let lens = std::slice::from_raw_parts(text_lens, n);
    if lens.iter().any(|&l| l < 0) {
        return Err(format!("{what}: negative text length"));
    }
    let total: i64 = lens.iter().sum();
    if total > 0 && text.is_null() {
        return Err(format!("{what}: text is NULL"));
    }
    let text = if total == 0 {
        &[][..]
    } else {
        std::slice::from_raw_parts(text, total as usize)
    };
    Ok(Some(Columns { ids, ts, lens, text }))
}

/// Runs f between BEGIN and COMMIT, or ROLLBACK when it fails.
fn in_tx(conn: &Connection, f: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    exec(conn, "BEGIN")?;
    match f() {
        Ok(()) => exec(conn, "COMMIT"),
        Err(e) => {
            let _ = exec(conn, "ROLLBACK");
            Err(e)
        }
    }
}

/// The insert of a note without an embedding.
const INSERT_SQL: &str = "INSERT INTO notes(id, text, ts) VALUES (?, ?, ?)";

/// Executes sql once per note, bound with (id, text, ts) and, when emb is
/// given as (bytes, bytes per note), the note's embedding as a blob.
fn insert_all(conn: &Connection, sql: &str, notes: &Columns, emb: Option<(&[u8], usize)>) -> Result<(), String> {
    // Dropped (sqlite3_finalize) when this function returns.
    let st = now(conn.prepare(sql))?.map_err(|e| format!("prepare insert: {e}"))?;
    let mut off = 0usize;
    for i in 0..notes.ids.len() {
        let end = off + notes.lens[i] as usize;
        let t = std::str::from_utf8(&notes.text[off..end])
            .map_err(|e| format!("note {}: text is not UTF-8: {e}", notes.ids[i]))?;
        off = end;
        st.reset(); // sqlite3_reset; the parameters are bound anew
        let mut params = vec![Value::Integer(notes.ids[i]), Value::Text(t.to_string()), Value::Integer(notes.ts[i])];
        if let Some((emb, size)) = emb {
            params.push(Value::Blob(emb[i * size..(i + 1) * size].to_vec()));
        }
        now(st.execute(params))?.map_err(|e| format!("insert note {}: {e}", notes.ids[i]))?;
    }
    Ok(())
}

/// Runs the caller's knn query (sql), bound with (q as a blob of q_size
/// bytes, k), and writes the first column of its first k rows, the ids in
/// the query's order, to ids; their number to *n.
///
/// # Safety
/// s must be an open store; sql NUL-terminated; q q_size bytes; ids room
/// for k values; n and err valid pointers.
#[no_mangle]
pub unsafe extern "C" fn manydb_libsql_knn(
    s: *mut ManydbLibsqlStore,
    sql: *const c_char,
    q: *const u8,
    q_size: usize,
    k: usize,
    ids: *mut i64,
    n: *mut usize,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        let s = store(s)?;
        if sql.is_null() || q.is_null() || ids.is_null() || n.is_null() {
            return Err("manydb_libsql_knn: NULL argument".to_string());
        }
        *n = 0;
        let sql = CStr::from_ptr(sql).to_str().map_err(|e| format!("sql is not UTF-8: {e}"))?;
        let q = std::slice::from_raw_parts(q, q_size).to_vec();
        let out = std::slice::from_raw_parts_mut(ids, k);
        let params = vec![Value::Blob(q), Value::Integer(k as i64)];
        // prepare + first step; the statement is finalized when rows drops.
        let mut rows = now(s.conn.query(sql, params))?.map_err(|e| format!("{sql}: {e}"))?;
        let mut got = 0usize;
        while let Some(row) = now(rows.next())?.map_err(|e| format!("{sql}: {e}"))? {
            if got == k {
                break;
            }
            out[got] = match row.get_value(0).map_err(|e| format!("{sql}: {e}"))? {
                Value::Integer(id) => id,
                other => return Err(format!("{sql}: got {other:?}, want an id")),
            };
            got += 1;
        }
        *n = got;
        Ok(())
    })
}

/// Runs SELECT count(*) FROM notes and stores the result in *out.
///
/// # Safety
/// s must be an open store; out and err valid pointers.
#[no_mangle]
pub unsafe extern "C" fn manydb_libsql_count(
    s: *mut ManydbLibsqlStore,
    out: *mut i64,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        let s = store(s)?;
        if out.is_null() {
            return Err("manydb_libsql_count: out is NULL".to_string());
        }
        const SQL: &str = "SELECT count(*) FROM notes";
        // prepare + first step; the statement is finalized when rows drops.
        let mut rows = now(s.conn.query(SQL, ()))?.map_err(|e| format!("{SQL}: {e}"))?;
        let row = now(rows.next())?
            .map_err(|e| format!("{SQL}: {e}"))?
            .ok_or_else(|| format!("{SQL}: no row"))?;
        let n = match row.get_value(0).map_err(|e| format!("{SQL}: {e}"))? {
            Value::Integer(n) => n,
            other => return Err(format!("{SQL}: got {other:?}, want an integer")),
        };
        drop(row);
        drop(rows);
        *out = n;
        Ok(())
    })
}

/// Closes the store on the calling thread: drops the connection (one
/// `sqlite3_close_v2` of its handle; the crate's second destructor then
/// calls `sqlite3_close_v2(NULL)`, a no-op) and the database (no handle).
/// The handle is freed even when an error is returned.
///
/// # Safety
/// s must be an open store, not used afterwards; err a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn manydb_libsql_close(s: *mut ManydbLibsqlStore, err: *mut *mut c_char) -> c_int {
    guard(err, || {
        if s.is_null() {
            return Err("store handle is NULL".to_string());
        }
        let s = Box::from_raw(s);
        let ManydbLibsqlStore { db, conn } = *s;
        drop(conn);
        drop(db);
        Ok(())
    })
}

/// A prepared statement whose rows are notes (id, text, ts), its rows in
/// progress and the text of the row read last (valid until the next row).
pub struct ManydbLibsqlStmt {
    st: libsql::Statement,
    rows: Option<libsql::Rows>,
    text: String,
}

fn stmt<'a>(st: *mut ManydbLibsqlStmt) -> Result<&'a mut ManydbLibsqlStmt, String> {
    if st.is_null() {
        return Err("statement handle is NULL".to_string());
    }
    Ok(unsafe { &mut *st })
}

/// Prepares sql on the store's connection; stores the handle in *out.
///
/// # Safety
/// s must be an open store; sql NUL-terminated; out and err valid pointers.
#[no_mangle]
pub unsafe extern "C" fn manydb_libsql_prepare(
    s: *mut ManydbLibsqlStore,
    sql: *const c_char,
    out: *mut *mut ManydbLibsqlStmt,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        let s = store(s)?;
        if sql.is_null() || out.is_null() {
            return Err("manydb_libsql_prepare: NULL argument".to_string());
        }
        let sql = CStr::from_ptr(sql).to_str().map_err(|e| format!("sql is not UTF-8: {e}"))?;
        let st = now(s.conn.prepare(sql))?.map_err(|e| format!("{sql}: {e}"))?;
        *out = Box::into_raw(Box::new(ManydbLibsqlStmt { st, rows: None, text: String::new() }));
        Ok(())
    })
}

/// Resets the statement and starts its query, with v bound to its first
/// parameter when bind is not 0.
///
/// # Safety
/// st must be a prepared statement; err a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn manydb_libsql_query(st: *mut ManydbLibsqlStmt, bind: c_int, v: i64, err: *mut *mut c_char) -> c_int {
    guard(err, || {
        let st = stmt(st)?;
        st.rows = None;
        st.st.reset();
        let rows = if bind != 0 {
            now(st.st.query(vec![Value::Integer(v)]))?
        } else {
            now(st.st.query(()))?
        };
        st.rows = Some(rows.map_err(|e| format!("query: {e}"))?);
        Ok(())
    })
}

/// Reads the next row of the query: stores id, text (UTF-8, *len bytes,
/// valid until the next call or finalize) and ts and sets *row to 1; at
/// the end sets *row to 0.
///
/// # Safety
/// st must be a statement whose query was started; the out pointers and
/// err valid.
#[no_mangle]
pub unsafe extern "C" fn manydb_libsql_next_note(
    st: *mut ManydbLibsqlStmt,
    row: *mut c_int,
    id: *mut i64,
    text: *mut *const u8,
    len: *mut usize,
    ts: *mut i64,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        let st = stmt(st)?;
        let rows = st.rows.as_mut().ok_or("manydb_libsql_next_note: no query started")?;
        let Some(r) = now(rows.next())?.map_err(|e| format!("next row: {e}"))? else {
            *row = 0;
            return Ok(());
        };
        let int = |i: i32, what: &str| match r.get_value(i) {
            Ok(Value::Integer(n)) => Ok(n),
            Ok(other) => Err(format!("{what}: got {other:?}, want an integer")),
            Err(e) => Err(format!("{what}: {e}")),
        };
        *id = int(0, "id")?;
        *ts = int(2, "ts")?;
        st.text = match r.get_value(1).map_err(|e| format!("text: {e}"))? {
            Value::Text(t) => t,
            other => return Err(format!("text: got {other:?}, want text")),
        };
        *text = st.text.as_ptr();
        *len = st.text.len();
        *row = 1;
        Ok(())
    })
}

/// Finalizes and frees the statement.
///
/// # Safety
/// st must be a prepared statement, not used afterwards; err a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn manydb_libsql_finalize(st: *mut ManydbLibsqlStmt, err: *mut *mut c_char) -> c_int {
    guard(err, || {
        if st.is_null() {
            return Err("statement handle is NULL".to_string());
        }
        drop(Box::from_raw(st));
        Ok(())
    })
}
