// Command worker-gokv is manydb's worker for the pure-Go key-value engines:
// bbolt, Pebble and Badger. It runs one phase of a study and is started by
// 'manydb run'. It builds with CGO_ENABLED=0.
package main

import (
	"os"

	"manydb/internal/engines/badger"
	"manydb/internal/engines/bbolt"
	"manydb/internal/engines/pebble"
	"manydb/internal/worker"
)

func main() {
	os.Exit(worker.Main("worker-gokv",
		bbolt.Factories(),
		pebble.Factories(),
		badger.Factories()))
}
