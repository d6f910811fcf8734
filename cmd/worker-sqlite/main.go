// Command worker-sqlite is manydb's worker for SQLite (mattn/go-sqlite3).
// It runs one phase of a study and is started by 'manydb run'.
package main

import (
	"os"

	"manydb/internal/sqlite"
	"manydb/internal/worker"
)

func main() {
	os.Exit(worker.Exit(worker.Run(os.Args[1:], os.Stdout, os.Stderr,
		worker.Factory{ID: "sqlite", New: sqlite.New})))
}
