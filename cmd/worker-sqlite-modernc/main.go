// Command worker-sqlite-modernc is manydb's worker for SQLite transpiled
// to Go (modernc.org/sqlite). It runs one phase of a study and is started
// by 'manydb run'. It builds with CGO_ENABLED=0.
package main

import (
	"os"

	"manydb/internal/sqlitemodernc"
	"manydb/internal/worker"
)

func main() {
	os.Exit(worker.Exit(worker.Run(os.Args[1:], os.Stdout, os.Stderr,
		worker.Factory{ID: "sqlite_modernc", New: sqlitemodernc.New})))
}
