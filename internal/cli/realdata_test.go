package cli

import (
	"context"
	"path/filepath"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
)

// TestUserVectorsEndToEnd runs a study of the real bbolt worker (an exact
// search in Go) on a file of the user's vectors: the study prepares the
// corpus, the worker opens it from the cache, every answer is checked,
// and the records name the file and the SHA-256 of its content.
func TestUserVectorsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a study with the real bbolt worker")
	}
	needWorkers(t)
	dir := t.TempDir()
	t.Setenv("MANYDB_CACHE", filepath.Join(dir, "cache"))
	vecs := filepath.Join(dir, "mine.fvecs")
	writeVectors(t, vecs, 2000, 16, 0.5)
	o, _, errOut := options(t)
	out := filepath.Join(dir, "r.jsonl")
	err := Run(context.Background(), []string{"run", "--engines", "bbolt", "--data", vecs, "--dims", "16", "--objects", "100",
		"--stores", "8", "--runs", "1", "--hold", "4", "--queries", "count,knn", "--root", filepath.Join(dir, "root"), "--out", out}, o)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, errOut)
	}
	recs, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	opened := false
	for _, r := range recs {
		if r.Phase == job.PhaseEnv {
			continue
		}
		if r.Status != results.StatusOK {
			t.Errorf("%s: %s %s", r.Phase, r.Status, r.Error)
		}
		if d := r.Workload.Data; d.Name != "file" || d.Version != vecs || len(d.SHA256) != 64 {
			t.Errorf("%s names the data %+v, want the file %s and its SHA-256", r.Phase, d, vecs)
		}
		if r.Phase == job.PhaseOpen {
			opened = true
			for _, x := range r.Recall {
				if x != 1 {
					t.Errorf("an exact search's recall %v", r.Recall)
					break
				}
			}
			if len(r.Recall) != 8 {
				t.Errorf("open run: %d recalls for 8 stores", len(r.Recall))
			}
		}
	}
	if !opened {
		t.Error("no open run recorded")
	}
}
