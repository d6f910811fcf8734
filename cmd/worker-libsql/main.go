// Command worker-libsql is manydb's worker for libSQL through its Rust SDK
// (the crate libsql 0.10, rust/libsql-capi). It runs one phase of a study
// and is started by 'manydb run'. libSQL defines the same sqlite3_*
// symbols as SQLite, so it has a binary of its own.
package main

import (
	"os"

	"manydb/internal/engines/libsql"
	"manydb/internal/worker"
)

func main() {
	os.Exit(worker.Main("worker-libsql",
		libsql.Factories()))
}
