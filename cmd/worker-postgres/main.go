// Command worker-postgres is manydb's worker for PostgreSQL (through
// jackc/pgx). It runs one phase of a study against the server the study
// started (or the user's) and is started by 'manydb run'. It builds with
// CGO_ENABLED=0.
package main

import (
	"os"

	"manydb/internal/engines/postgres"
	"manydb/internal/worker"
)

func main() {
	os.Exit(worker.Main("worker-postgres", postgres.Factories()))
}
