// Package libsql is manydb's adapter for libSQL through its Rust SDK, the
// crate libsql 0.10 with local files only, as the reference study used it
// through Python. It calls rust/libsql-capi, a small C ABI of ours built
// with cargo by scripts/build-capi.sh libsql, through cgo, and is compiled only
// with the build tag libsql (libsql_disabled.go otherwise). Every call,
// the close included, runs on the calling thread. Variant ids: libsql, and
// libsql_capi, the C API of the same library called directly. A store is a
// directory holding notes.db; docs/engines.md has the details. With
// vectors (CreateVectors) the libsql variant uses libSQL's DiskANN index
// (sqlnotes.LibSQL), with its default options, or the lean ones under
// lean (vectors.go). Its queries are sqlnotes.Queries over the statement
// of queries.go; its cgo wrappers have the shape of package turso's, each
// a call of its own library (package turso says why they stay apart).
package libsql

// Variant ids: the SDK, and SQLite's C API of the same library called
// directly (package sqlitecapi), its floor.
const (
	ID     = "libsql"
	IDCapi = "libsql_capi"
)
