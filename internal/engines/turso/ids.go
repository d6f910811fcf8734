// Package turso is manydb's adapter for Turso Database (the Rust crates
// turso_sdk_kit and turso_core 0.8.3 from crates.io), the engine the
// reference study measured through pyturso 0.8.1. Variant id: turso.
//
// Like Turso's own bindings, it is a small Rust library with a C ABI
// (rust/turso-capi, a staticlib built by scripts/build-turso.sh into
// third_party/turso-capi/target) called through cgo; it opens, executes,
// inserts, counts and closes exactly as pyturso does, through the same
// layer (turso_sdk_kit's rsapi, synchronous I/O driven by the library, no
// async runtime). See rust/turso-capi/src/lib.rs for each call.
//
// A store is a directory holding notes.db with
//
//	CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT NOT NULL, ts INTEGER NOT NULL)
//
// and, while open, notes.db-wal: Turso always runs in WAL mode, with its
// defaults (synchronous FULL: commits fsync the WAL; no experimental
// features; default I/O backend and open flags). Open opens notes.db
// (creating it if missing, so Open first checks that it exists), reads its
// header and schema and connects. Insert writes all notes with BEGIN, one
// prepared INSERT executed per note, COMMIT. Count runs SELECT count(*)
// FROM notes. The variants differ only in Close:
//
//   - turso: the connection's close, as pyturso's Connection.close, then
//     the connection and the database are dropped, closing the files.
//     The close would checkpoint the WAL when the database's last
//     connection closes, but in turso_core 0.8.x the database's open keeps
//     a connection of its own until the database is dropped, so it never
//     does: the notes stay in notes.db-wal (about 354 KB for 1,000 notes),
//     notes.db keeps only its first page, and every open reads the WAL.
//   - turso_ckpt: PRAGMA wal_checkpoint(TRUNCATE) first (the notes are
//     copied into notes.db, which is synced, and notes.db-wal is truncated
//     to zero bytes), then the same close. This is the close the reference
//     study's figures show (6.4 ms close, 316 KB per store).
//
// The library defines no global allocator, so Turso allocates with glibc
// malloc (glibc settings apply); its page buffers come from 3 MB arenas it
// maps itself and madvises MADV_HUGEPAGE.
package turso

// Variant ids.
const (
	IDTurso      = "turso"
	IDCheckpoint = "turso_ckpt"
)
