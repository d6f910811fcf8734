package enginetest

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/worker"
	"manydb/internal/workload"
)

// CheckWAL checks the wal setting of a SQLite variant whose stores keep
// their database in file: stores created and opened with the job's WAL
// set are in WAL mode (the database header's read and write versions,
// bytes 18 and 19, are 2; 1 is the rollback journal) and their records
// name the option; a store made before, without it, is not.
func CheckWAL(t *testing.T, v engine.Variant, file string) {
	t.Helper()
	j := job.Job{Variant: v.ID(), Phase: job.PhaseCreate, Dir: t.TempDir(), Stores: 2,
		Workload: workload.Spec{Name: "custom", Objects: 20, TextLen: 60}}
	if _, err := worker.RunJob(j, v, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := journalVersion(t, filepath.Join(job.StoreDir(j.Dir, 0, 0), file)); got != 1 {
		t.Errorf("without the wal setting: the database's file format is %d, want 1 (rollback journal)", got)
	}
	j.Dir, j.WAL = t.TempDir(), true
	for _, phase := range []job.Phase{job.PhaseCreate, job.PhaseOpen} {
		j.Phase, j.Seed = phase, 1
		rec, err := worker.RunJob(j, v, io.Discard)
		if err != nil {
			t.Fatalf("%s under wal: %v", phase, err)
		}
		if rec.EngineOptions["PRAGMA journal_mode"] != "WAL" {
			t.Errorf("%s under wal: engine_options %v, want PRAGMA journal_mode WAL", phase, rec.EngineOptions)
		}
	}
	if got := journalVersion(t, filepath.Join(job.StoreDir(j.Dir, 1, 0), file)); got != 2 {
		t.Errorf("under the wal setting: the database's file format is %d, want 2 (WAL)", got)
	}
}

// journalVersion is a SQLite database's file format write version
// (header byte 18), failing t unless the read version (byte 19) is the
// same.
func journalVersion(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 100 {
		t.Fatalf("read the database header of %s: %v (%d bytes)", path, err, len(b))
	}
	if b[18] != b[19] {
		t.Errorf("%s: write version %d, read version %d", path, b[18], b[19])
	}
	return int(b[18])
}
