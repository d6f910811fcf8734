// Command worker-turso is manydb's worker for Turso Database (the Rust
// crates turso_sdk_kit/turso_core through rust/turso-capi, linked with
// cgo). It runs one phase of a study and is started by 'manydb run'.
package main

import (
	"os"

	"manydb/internal/engines/turso"
	"manydb/internal/worker"
)

func main() {
	os.Exit(worker.Main("worker-turso",
		turso.Factories()))
}
