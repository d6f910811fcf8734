package worker

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/workload"
)

// create makes every store: one span per store from before mkdir to after
// close (open the new store with its schema, write all notes in one
// transaction, close). The notes are generated before the span.
func create(j job.Job, v engine.Variant, rec *results.Record, loop *storeLoop) error {
	dirs := storeDirs(j)
	notes := make([]workload.Note, j.Workload.Objects)
	samples := make([]float64, j.Stores)
	mk := v.Create
	if j.Workload.Dims > 0 {
		vv, err := vectorVariant(v)
		if err != nil {
			return err
		}
		mk = func(dir string) (engine.Store, error) { return vv.CreateVectors(dir, j.Workload.Dims) }
	}
	start := time.Now()
	err := loop.eachStore(j.Stores, nil, func(_, i int) error {
		dir := dirs[i]
		j.Workload.Fill(i, notes)
		if j.Fanout > 0 {
			// The layout's parent directories are made outside the span:
			// the span times the store's own directory, as in the flat
			// layout.
			if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
				return storeError(j, i, "mkdir the layout's directories", err)
			}
		}
		t0 := time.Now()
		if err := os.Mkdir(dir, 0o755); err != nil {
			return storeError(j, i, "mkdir", err)
		}
		s, err := mk(dir)
		if err != nil {
			return storeError(j, i, "create", err)
		}
		if err := s.Insert(notes); err != nil {
			s.Close()
			return storeError(j, i, fmt.Sprintf("insert %d notes", len(notes)), err)
		}
		if err := s.Close(); err != nil {
			return storeError(j, i, "close", err)
		}
		samples[i] = ms(time.Since(t0))
		return nil
	})
	if err != nil {
		return err
	}
	rec.WallS = time.Since(start).Seconds()
	rec.CreateMs = samples
	return nil
}
