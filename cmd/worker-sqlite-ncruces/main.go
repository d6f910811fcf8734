// Command worker-sqlite-ncruces is manydb's worker for SQLite's Wasm build
// translated to Go (github.com/ncruces/go-sqlite3). It runs one phase of a
// study and is started by 'manydb run'. It builds with CGO_ENABLED=0.
//
// It is a binary of its own because the module's database/sql driver
// registers the name "sqlite3", as mattn/go-sqlite3 does.
package main

import (
	"os"

	"manydb/internal/engines/sqlitencruces"
	"manydb/internal/worker"
)

func main() {
	os.Exit(worker.Main("worker-sqlite-ncruces",
		sqlitencruces.Factories()))
}
