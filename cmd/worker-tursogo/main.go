// Command worker-tursogo is manydb's worker for Turso Database through
// turso-go (purego, the Rust library embedded in the Go module and
// extracted to the user's cache directory at start-up). It runs one phase
// of a study and is started by 'manydb run'.
package main

import (
	"os"

	"manydb/internal/engines/tursogo"
	"manydb/internal/worker"
)

func main() {
	os.Exit(worker.Main("worker-tursogo",
		tursogo.Factories()))
}
