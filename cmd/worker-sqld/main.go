// Command worker-sqld is manydb's worker for libSQL's server, sqld
// (through libsql-client-go, Hrana over HTTP). It runs one phase of a
// study against the server the study started and is started by
// 'manydb run'. It builds with CGO_ENABLED=0.
package main

import (
	"os"

	"manydb/internal/engines/sqld"
	"manydb/internal/worker"
)

func main() {
	os.Exit(worker.Main("worker-sqld", sqld.Factories()))
}
