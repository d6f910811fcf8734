// Command worker-sqld is manydb's worker for libSQL's server, sqld
// (through libsql-client-go, Hrana over HTTP). It runs one phase of a
// study against the server the study started and is started by
// 'manydb run'; with replica.WorkerArg it runs the read-replica study of
// 'manydb replica' instead. It builds with CGO_ENABLED=0.
package main

import (
	"os"

	"manydb/internal/engines/sqld"
	"manydb/internal/engines/sqld/replicastudy"
	"manydb/internal/replica"
	"manydb/internal/worker"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == replica.WorkerArg {
		os.Exit(replicastudy.Main(os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(worker.Main("worker-sqld", sqld.Factories()))
}
