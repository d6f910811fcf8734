package worker

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"manydb/internal/datasource"
	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/workload"
)

// create makes every store: one span per store from before mkdir to after
// close (open the new store with its schema, write all notes in one
// transaction, close). The notes are generated before the span. In the
// shared layout a store is an agent of the shared store (made by
// withLayout): its span is the agent's open, the transaction of its
// notes and its close.
func create(j job.Job, v engine.Variant, data datasource.Source, rec *results.Record, loop *storeLoop) error {
	dirs := storeDirs(j)
	notes := make([]workload.Note, j.Workload.Objects)
	samples := make([]float64, j.Stores)
	mk, err := maker(j, v)
	if err != nil {
		return err
	}
	start := time.Now()
	err = loop.eachStore(j.Stores, nil, func(_, i int) error {
		dir := dirs[i]
		t := time.Now()
		data.Fill(i, notes)
		spend(&loop.spent.DataS, t)
		if a, ok := v.(*agents); ok {
			t0 := time.Now()
			err := createAgent(a, i, notes)
			samples[i] = ms(time.Since(t0))
			if err != nil {
				return storeError(j, i, "create", err)
			}
			return nil
		}
		if j.Fanout > 0 {
			// The layout's parent directories are made outside the span:
			// the span times the store's own directory, as in the flat
			// layout.
			if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
				return storeError(j, i, "mkdir the layout's directories", err)
			}
		}
		t0 := time.Now()
		if err := mkStoreDir(v.ID(), dir); err != nil {
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

// maker returns how a store of its own is made: with embeddings when the
// workload has them.
func maker(j job.Job, v engine.Variant) (func(dir string) (engine.Store, error), error) {
	if _, ok := v.(*agents); ok || j.Workload.Dims == 0 {
		// The agents of a shared store are made by their first write
		// (createAgent); the store itself by withLayout.
		return v.Create, nil
	}
	vv, err := vectorVariant(v)
	if err != nil {
		return nil, err
	}
	return func(dir string) (engine.Store, error) { return vv.CreateVectors(dir, j.Workload.Dims) }, nil
}

// createAgent writes agent i's notes to the shared store in one
// transaction: the agent's open, Insert and close.
func createAgent(a *agents, i int, notes []workload.Note) error {
	s, err := a.store.Agent(i)
	if err != nil {
		return fmt.Errorf("open the agent: %w", err)
	}
	if err := s.Insert(notes); err != nil {
		s.Close()
		return fmt.Errorf("insert %d notes: %w", len(notes), err)
	}
	return s.Close()
}
