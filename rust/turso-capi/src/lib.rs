//! manydb's C ABI over Turso Database (crate `turso_sdk_kit`), for the Go
//! adapter internal/engines/turso. The declarations are in include/manydb_turso.h.
//!
//! Why turso_sdk_kit and not the `turso` crate: every official Turso binding
//! (pyturso, which the reference study used, the Go binding, JavaScript) is
//! built on turso_sdk_kit's `rsapi`, and closes a store with
//! `TursoConnection::close`, which checkpoints the WAL into the database
//! file (TRUNCATE mode) when the last connection of a database closes. The
//! `turso` crate (0.8.3) wraps the same layer but has no close: dropping its
//! Connection rolls back and releases locks without a checkpoint. It also
//! makes mimalloc the process' global allocator by default; pyturso does
//! not. This library defines no global allocator, so Turso allocates with
//! Rust's system allocator, glibc malloc (its page buffers come from its
//! own mmap'ed arenas, madvise'd MADV_HUGEPAGE).
//!
//! The database is opened as pyturso opens it: `async_io: false` (the
//! library drives its I/O itself and never returns an I/O status, so no
//! async runtime is needed), the default I/O backend and open flags, no
//! experimental features. What one open does: `TursoDatabase::new` +
//! `open` (opens notes.db and its WAL, reads the header and the schema)
//! and `connect`. Close is `TursoConnection::close` (finalizes the
//! connection's statements, checkpoints as above), then both handles are
//! dropped, which closes the files.
//!
//! Found with turso 0.8.1 and 0.8.3 (same code): the connection's close
//! does NOT checkpoint after `TursoDatabase::open`, because the open keeps
//! its own bootstrap connection (in the database's open state) for the
//! database's lifetime, so the closing connection is never the last one
//! (n_connections is 2). The WAL stays as it is; `mt_checkpoint` runs the
//! checkpoint explicitly for the variant that wants it.
//!
//! Every function catches Rust panics (`catch_unwind`) and returns them as
//! errors; no panic crosses the C boundary. Errors are returned as
//! NUL-terminated strings that the caller frees with `mt_free_error`.
//! A store handle must be used by one thread at a time.

use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use turso_sdk_kit::rsapi::{
    Numeric, TursoConnection, TursoDatabase, TursoDatabaseConfig, TursoStatusCode, Value,
};

/// One open store: a database and its single connection.
pub struct MtStore {
    db: Arc<TursoDatabase>,
    conn: Arc<TursoConnection>,
}

static TURSO_VERSION: &str = concat!(env!("MANYDB_TURSO_SDK_KIT_VERSION"), "\0");
static CORE_VERSION: &str = concat!(env!("MANYDB_TURSO_CORE_VERSION"), "\0");
static RUSTC_VERSION: &str = concat!(env!("MANYDB_RUSTC_VERSION"), "\0");

/// Version of turso_sdk_kit, the Turso binding layer linked in.
#[no_mangle]
pub extern "C" fn mt_version() -> *const c_char {
    TURSO_VERSION.as_ptr().cast()
}

/// Version of turso_core (the engine), from Cargo.lock at build time.
#[no_mangle]
pub extern "C" fn mt_core_version() -> *const c_char {
    CORE_VERSION.as_ptr().cast()
}

/// `rustc --version` of the toolchain that built this library.
#[no_mangle]
pub extern "C" fn mt_rustc_version() -> *const c_char {
    RUSTC_VERSION.as_ptr().cast()
}

/// Frees an error string returned by any function of this library.
///
/// # Safety
/// err must be NULL or a string returned by this library, freed once.
#[no_mangle]
pub unsafe extern "C" fn mt_free_error(err: *mut c_char) {
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
            format!("turso panicked: {what}")
        }
    };
    if !err.is_null() {
        let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
        unsafe { *err = c.into_raw() };
    }
    -1
}

fn store<'a>(s: *mut MtStore) -> Result<&'a MtStore, String> {
    if s.is_null() {
        return Err("store handle is NULL".to_string());
    }
    Ok(unsafe { &*s })
}

/// Opens the database file at path (created if missing) and connects to
/// it. On success stores the handle in *out and returns 0.
///
/// # Safety
/// path must be a NUL-terminated string; out and err valid pointers.
#[no_mangle]
pub unsafe extern "C" fn mt_open(
    path: *const c_char,
    out: *mut *mut MtStore,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        if path.is_null() || out.is_null() {
            return Err("mt_open: NULL argument".to_string());
        }
        let path = CStr::from_ptr(path)
            .to_str()
            .map_err(|e| format!("path is not UTF-8: {e}"))?;
        let db = TursoDatabase::new(TursoDatabaseConfig {
            path: path.to_string(),
            experimental_features: None,
            async_io: false,
            encryption: None,
            vfs: Default::default(),
            io: None,
            db_file: None,
            page_codec: None,
            open_flags: Default::default(),
        });
        let res = db.open().map_err(|e| format!("open {path}: {e}"))?;
        if res.is_io() {
            return Err("open returned an I/O status with async_io off".to_string());
        }
        let conn = db.connect().map_err(|e| format!("connect {path}: {e}"))?;
        *out = Box::into_raw(Box::new(MtStore { db, conn }));
        Ok(())
    })
}

fn exec(conn: &TursoConnection, sql: &str) -> Result<(), String> {
    let mut st = conn.prepare_single(sql).map_err(|e| format!("{sql}: {e}"))?;
    st.execute(None).map_err(|e| format!("{sql}: {e}"))?;
    st.finalize(None).map_err(|e| format!("{sql}: {e}"))?;
    Ok(())
}

/// Executes one SQL statement that returns no rows (e.g. CREATE TABLE).
///
/// # Safety
/// s must be an open store; sql NUL-terminated; err a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn mt_exec(s: *mut MtStore, sql: *const c_char, err: *mut *mut c_char) -> c_int {
    guard(err, || {
        let s = store(s)?;
        if sql.is_null() {
            return Err("mt_exec: sql is NULL".to_string());
        }
        let sql = CStr::from_ptr(sql).to_str().map_err(|e| format!("sql is not UTF-8: {e}"))?;
        exec(&s.conn, sql)
    })
}

/// Inserts n notes into notes(id, text, ts) in one transaction (BEGIN,
/// one prepared INSERT executed n times, COMMIT; ROLLBACK on error).
/// Note i has id ids[i], ts ts[i] and as text the next text_lens[i] bytes
/// (UTF-8) of text, the texts being stored one after another.
///
/// # Safety
/// ids, ts and text_lens must point to n values each, text to their sum
/// of bytes; s an open store; err a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn mt_insert_notes(
    s: *mut MtStore,
    n: usize,
    ids: *const i64,
    ts: *const i64,
    text_lens: *const i64,
    text: *const u8,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        let s = store(s)?;
        let Some(notes) = columns("mt_insert_notes", n, ids, ts, text_lens, text)? else {
            return Ok(());
        };
        in_tx(&s.conn, || insert_all(&s.conn, INSERT_SQL, &notes, None))
    })
}

/// Inserts n notes in one transaction, as `mt_insert_notes` does, with
/// the caller's INSERT (sql), which takes (id, text, ts) and, when emb is
/// not NULL, emb: note i's embedding, bound as a blob, is the i-th run of
/// emb_size bytes of emb (its float32 values, little-endian, which
/// Turso's vector32 reads as is).
///
/// # Safety
/// sql must be NUL-terminated; ids, ts and text_lens must point to n
/// values each, text to their sum of bytes, emb to n * emb_size bytes; s
/// an open store; err a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn mt_insert_notes_emb(
    s: *mut MtStore,
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
            return Err("mt_insert_notes_emb: sql is NULL".to_string());
        }
        let sql = CStr::from_ptr(sql).to_str().map_err(|e| format!("sql is not UTF-8: {e}"))?;
        let Some(notes) = columns("mt_insert_notes_emb", n, ids, ts, text_lens, text)? else {
            return Ok(());
        };
        if emb.is_null() {
            return in_tx(&s.conn, || insert_all(&s.conn, sql, &notes, None));
        }
        if emb_size == 0 {
            return Err("mt_insert_notes_emb: embeddings of 0 bytes".to_string());
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
    let total: i64 = lens.iter().sum();
    if lens.iter().any(|&l| l < 0) || (total > 0 && text.is_null()) {
        return Err(format!("{what}: bad text lengths"));
    }
    let text = if total == 0 {
        &[][..]
    } else {
        std::slice::from_raw_parts(text, total as usize)
    };
    Ok(Some(Columns { ids, ts, lens, text }))
}

/// Runs f between BEGIN and COMMIT, or ROLLBACK when it fails.
fn in_tx(conn: &TursoConnection, f: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
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
fn insert_all(conn: &TursoConnection, sql: &str, notes: &Columns, emb: Option<(&[u8], usize)>) -> Result<(), String> {
    let mut st = conn.prepare_single(sql).map_err(|e| format!("prepare insert: {e}"))?;
    let mut off = 0usize;
    for i in 0..notes.ids.len() {
        let id = notes.ids[i];
        let end = off + notes.lens[i] as usize;
        let t = std::str::from_utf8(&notes.text[off..end]).map_err(|e| format!("note {id}: text is not UTF-8: {e}"))?;
        off = end;
        st.reset().map_err(|e| format!("insert note {id}: {e}"))?;
        st.bind_positional(1, Value::from_i64(id))
            .and_then(|_| st.bind_positional(2, Value::Text(t.to_string().into())))
            .and_then(|_| st.bind_positional(3, Value::from_i64(notes.ts[i])))
            .map_err(|e| format!("insert note {id}: {e}"))?;
        if let Some((emb, size)) = emb {
            let blob = Value::from_slice(&emb[i * size..(i + 1) * size]).map_err(|e| format!("note {id}'s embedding: {e}"))?;
            st.bind_positional(4, blob).map_err(|e| format!("insert note {id}: {e}"))?;
        }
        st.execute(None).map_err(|e| format!("insert note {id}: {e}"))?;
    }
    st.finalize(None).map_err(|e| format!("finalize insert: {e}"))?;
    Ok(())
}

/// Runs the caller's knn query (sql, prepared for this call and
/// finalized), bound with (q as a blob of q_size bytes, k), and writes the
/// first column of its first k rows, the ids in the query's order, to
/// ids; their number to *n.
///
/// # Safety
/// s must be an open store; sql NUL-terminated; q q_size bytes; ids room
/// for k values; n and err valid pointers.
#[no_mangle]
pub unsafe extern "C" fn mt_knn(
    s: *mut MtStore,
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
            return Err("mt_knn: NULL argument".to_string());
        }
        *n = 0;
        let sql = CStr::from_ptr(sql).to_str().map_err(|e| format!("sql is not UTF-8: {e}"))?;
        let q = Value::from_slice(std::slice::from_raw_parts(q, q_size)).map_err(|e| format!("query vector: {e}"))?;
        let out = std::slice::from_raw_parts_mut(ids, k);
        let mut st = s.conn.prepare_single(sql).map_err(|e| format!("{sql}: {e}"))?;
        st.bind_positional(1, q)
            .and_then(|_| st.bind_positional(2, Value::from_i64(k as i64)))
            .map_err(|e| format!("{sql}: bind: {e}"))?;
        let mut got = 0usize;
        while got < k {
            match st.step(None).map_err(|e| format!("{sql}: {e}"))? {
                TursoStatusCode::Row => {}
                TursoStatusCode::Done => break,
                other => return Err(format!("{sql}: step: status {other:?}")),
            }
            out[got] = integer(st.row_value(0).map_err(|e| format!("{sql}: {e}"))?, "id")?;
            got += 1;
        }
        st.finalize(None).map_err(|e| format!("{sql}: {e}"))?;
        *n = got;
        Ok(())
    })
}

/// Runs SELECT count(*) FROM notes and stores the result in *out.
///
/// # Safety
/// s must be an open store; out and err valid pointers.
#[no_mangle]
pub unsafe extern "C" fn mt_count(s: *mut MtStore, out: *mut i64, err: *mut *mut c_char) -> c_int {
    guard(err, || query_int(store(s)?, "SELECT count(*) FROM notes", out))
}

/// Runs the caller's query (sql, prepared for this call and finalized),
/// whose first row's first column is an integer, and stores it in *out.
///
/// # Safety
/// s must be an open store; sql NUL-terminated; out and err valid pointers.
#[no_mangle]
pub unsafe extern "C" fn mt_query_int(s: *mut MtStore, sql: *const c_char, out: *mut i64, err: *mut *mut c_char) -> c_int {
    guard(err, || {
        if sql.is_null() {
            return Err("mt_query_int: sql is NULL".to_string());
        }
        let sql = CStr::from_ptr(sql).to_str().map_err(|e| format!("sql is not UTF-8: {e}"))?;
        query_int(store(s)?, sql, out)
    })
}

/// Runs SQL and stores its first row's first column, an integer, in *out.
unsafe fn query_int(s: &MtStore, sql: &str, out: *mut i64) -> Result<(), String> {
    if out.is_null() {
        return Err("query: out is NULL".to_string());
    }
    let mut st = s.conn.prepare_single(sql).map_err(|e| format!("{sql}: {e}"))?;
    match st.step(None).map_err(|e| format!("{sql}: {e}"))? {
        TursoStatusCode::Row => {}
        other => return Err(format!("{sql}: no row (status {other:?})")),
    }
    let v = st.row_value(0).map_err(|e| format!("{sql}: {e}"))?;
    let n = match v {
        Value::Numeric(Numeric::Integer(n)) => n,
        other => return Err(format!("{sql}: got {other:?}, want an integer")),
    };
    st.finalize(None).map_err(|e| format!("{sql}: {e}"))?;
    *out = n;
    Ok(())
}

/// Runs PRAGMA wal_checkpoint(TRUNCATE): copies the WAL into the database
/// file, syncs it and truncates the WAL to zero bytes.
///
/// # Safety
/// s must be an open store; err a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn mt_checkpoint(s: *mut MtStore, err: *mut *mut c_char) -> c_int {
    guard(err, || exec(&store(s)?.conn, "PRAGMA wal_checkpoint(TRUNCATE)"))
}

/// Closes the store: the connection's close (which checkpoints the WAL
/// into the database file when it is the database's last connection),
/// then drops the connection and the database, closing their files. The
/// handle is freed even when an error is returned.
///
/// # Safety
/// s must be an open store, not used afterwards; err a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn mt_close(s: *mut MtStore, err: *mut *mut c_char) -> c_int {
    guard(err, || {
        if s.is_null() {
            return Err("store handle is NULL".to_string());
        }
        let s = Box::from_raw(s);
        let res = s.conn.close().map_err(|e| format!("close: {e}"));
        let MtStore { db, conn } = *s;
        drop(conn);
        drop(db);
        res
    })
}

/// A prepared statement whose rows are notes (id, text, ts), and the row
/// read last (its text stays valid until the next step).
pub struct MtStmt {
    st: Box<turso_sdk_kit::rsapi::TursoStatement>,
    text: Value,
}

fn stmt<'a>(st: *mut MtStmt) -> Result<&'a mut MtStmt, String> {
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
pub unsafe extern "C" fn mt_prepare(
    s: *mut MtStore,
    sql: *const c_char,
    out: *mut *mut MtStmt,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        let s = store(s)?;
        if sql.is_null() || out.is_null() {
            return Err("mt_prepare: NULL argument".to_string());
        }
        let sql = CStr::from_ptr(sql).to_str().map_err(|e| format!("sql is not UTF-8: {e}"))?;
        let st = s.conn.prepare_single(sql).map_err(|e| format!("{sql}: {e}"))?;
        *out = Box::into_raw(Box::new(MtStmt { st, text: Value::Null }));
        Ok(())
    })
}

/// Resets the statement and binds v to its first parameter.
///
/// # Safety
/// st must be a prepared statement; err a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn mt_rebind(st: *mut MtStmt, v: i64, err: *mut *mut c_char) -> c_int {
    guard(err, || {
        let st = stmt(st)?;
        st.st.reset().map_err(|e| format!("reset: {e}"))?;
        st.st.bind_positional(1, Value::from_i64(v)).map_err(|e| format!("bind: {e}"))?;
        Ok(())
    })
}

fn integer(v: Value, what: &str) -> Result<i64, String> {
    match v {
        Value::Numeric(Numeric::Integer(n)) => Ok(n),
        other => Err(format!("{what}: got {other:?}, want an integer")),
    }
}

/// Steps the statement: on a row of id, text, ts stores them in *id,
/// *text (UTF-8, *len bytes, valid until the next step or finalize) and
/// *ts and sets *row to 1; when done sets *row to 0.
///
/// # Safety
/// st must be a prepared statement; the out pointers and err valid.
#[no_mangle]
pub unsafe extern "C" fn mt_step_note(
    st: *mut MtStmt,
    row: *mut c_int,
    id: *mut i64,
    text: *mut *const u8,
    len: *mut usize,
    ts: *mut i64,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        let st = stmt(st)?;
        match st.st.step(None).map_err(|e| format!("step: {e}"))? {
            TursoStatusCode::Row => {}
            TursoStatusCode::Done => {
                *row = 0;
                return Ok(());
            }
            other => return Err(format!("step: status {other:?}")),
        }
        *id = integer(st.st.row_value(0).map_err(|e| format!("id: {e}"))?, "id")?;
        *ts = integer(st.st.row_value(2).map_err(|e| format!("ts: {e}"))?, "ts")?;
        st.text = st.st.row_value(1).map_err(|e| format!("text: {e}"))?;
        match &st.text {
            Value::Text(t) => {
                *text = t.as_str().as_ptr();
                *len = t.as_str().len();
            }
            other => return Err(format!("text: got {other:?}, want text")),
        }
        *row = 1;
        Ok(())
    })
}

/// Finalizes and frees the statement (freed even when an error is returned).
///
/// # Safety
/// st must be a prepared statement, not used afterwards; err a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn mt_finalize(st: *mut MtStmt, err: *mut *mut c_char) -> c_int {
    guard(err, || {
        if st.is_null() {
            return Err("statement handle is NULL".to_string());
        }
        let mut st = Box::from_raw(st);
        st.st.finalize(None).map_err(|e| format!("finalize: {e}"))?;
        Ok(())
    })
}
