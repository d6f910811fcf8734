// Package libsqlvec holds only the tests of the libsql_capi variant's
// vector search: package sqlitecapi run against libSQL's C library, which
// its own tests cannot link (they link mattn's SQLite, and both define
// SQLite's sqlite3_* symbols). They need the build tag libsql and the
// library scripts/build-capi.sh libsql builds.
package libsqlvec
