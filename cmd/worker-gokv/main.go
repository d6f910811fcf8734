// Command worker-gokv is manydb's worker for the pure-Go key-value engines:
// bbolt, Pebble and Badger. It runs one phase of a study and is started by
// 'manydb run'. It builds with CGO_ENABLED=0.
package main

import (
	"os"

	"manydb/internal/badger"
	"manydb/internal/bbolt"
	"manydb/internal/pebble"
	"manydb/internal/worker"
)

func main() {
	os.Exit(worker.Exit(worker.Run(os.Args[1:], os.Stdout, os.Stderr,
		worker.Factory{ID: "bbolt", New: bbolt.New},
		worker.Factory{ID: "pebble", New: pebble.New},
		worker.Factory{ID: "badger", New: badger.New})))
}
