// Command worker-libsql-go is manydb's worker for libSQL (go-libsql, cgo with
// the static library shipped in the Go module). It runs one phase of a
// study and is started by 'manydb run'. libSQL defines the same sqlite3_*
// symbols as SQLite, so it has a binary of its own.
package main

import (
	"os"

	"manydb/internal/engines/libsqlgo"
	"manydb/internal/worker"
)

func main() {
	os.Exit(worker.Main("worker-libsql-go",
		libsqlgo.Factories()))
}
