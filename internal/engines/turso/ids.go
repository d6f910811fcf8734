// Package turso is manydb's adapter for Turso Database 0.8 (the crates
// turso_sdk_kit and turso_core), the engine the reference study measured
// through pyturso. It calls rust/turso-capi, a small C ABI of ours built
// with cargo by scripts/build-capi.sh turso, through cgo, and is compiled only
// with the build tag turso (turso_disabled.go otherwise). Variants: turso
// (the connection's own close) and turso_ckpt (a WAL checkpoint, then the
// same close). A store is a directory holding notes.db and notes.db-wal.
// docs/engines.md says what each call does and why. With vectors
// (CreateVectors) both use Turso's vector functions in an exact scan
// (sqlnotes.Turso; Turso 0.8 has no dense vector index): vectors.go.
//
// Its queries are sqlnotes.Queries over the statement of queries.go; its
// cgo wrappers (exec, insert, count, close, a statement's rows) have the
// shape of package libsql's, each a call of its own library's C ABI.
// They stay apart: cgo gives each package its own C types, so one Go
// function could call both libraries only from a package that links both
// Rust static libraries, which would put libSQL into worker-turso and
// Turso into worker-libsql.
package turso

// Variant ids.
const (
	IDTurso      = "turso"
	IDCheckpoint = "turso_ckpt"
)
