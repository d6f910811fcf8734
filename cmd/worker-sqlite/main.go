// Command worker-sqlite is manydb's worker for SQLite (mattn/go-sqlite3).
// It runs one phase of a study and is started by 'manydb run'.
package main

import (
	"os"

	"manydb/internal/engines/sqlite"
	"manydb/internal/worker"
)

func main() {
	os.Exit(worker.Main("worker-sqlite",
		sqlite.Factories()))
}
