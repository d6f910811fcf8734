// Command worker-sqlite-modernc is manydb's worker for SQLite transpiled
// to Go (modernc.org/sqlite). It runs one phase of a study and is started
// by 'manydb run'. It builds with CGO_ENABLED=0.
package main

import (
	"os"

	"manydb/internal/engines/sqlitemodernc"
	"manydb/internal/worker"
)

func main() {
	os.Exit(worker.Main("worker-sqlite-modernc",
		sqlitemodernc.Factories()))
}
