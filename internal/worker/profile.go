package worker

import (
	"fmt"
	"os"
	"time"

	"manydb/internal/datasource"
	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/workload"
)

// profile makes every store as create does, but times each step on its
// own, for "where the create time goes" (manydb profile):
//
//  1. create: mkdir and Variant.Create (the new store, schema or model
//     committed)
//  2. fill: the notes built in memory (datasource.Source.Fill)
//  3. marshal: engine.Marshaler.Marshal, if the store implements it
//  4. insert: Insert, or InsertMarshaled for a Marshaler, commit included
//  5. close
//
// and the total, one span around all five. The steps are consecutive
// spans between six clock reads (the marshal span is absent without a
// Marshaler), so for every store they add up to the total. Unlike the
// create phase, the total includes building the notes, as the reference
// study's profile did.
func profile(j job.Job, v engine.Variant, data datasource.Source, rec *results.Record, loop *storeLoop) error {
	dirs := storeDirs(j)
	notes := make([]workload.Note, j.Workload.Objects)
	n := j.Stores
	prof := &results.Profile{
		CreateMs: make([]float64, n),
		FillMs:   make([]float64, n),
		InsertMs: make([]float64, n),
		CloseMs:  make([]float64, n),
		TotalMs:  make([]float64, n),
	}
	marshalMs := make([]float64, n) // kept only if the engine marshals
	marshals := false
	start := time.Now()
	err := loop.eachStore(n, nil, func(_, i int) error {
		dir := dirs[i]
		t0 := time.Now()
		if err := os.Mkdir(dir, 0o755); err != nil {
			return storeError(j, i, "mkdir", err)
		}
		s, err := v.Create(dir)
		if err != nil {
			return storeError(j, i, "create", err)
		}
		t1 := time.Now()
		data.Fill(i, notes)
		t2 := time.Now()
		t3 := t2
		if m, ok := s.(engine.Marshaler); ok {
			marshals = true
			mm, err := m.Marshal(notes)
			if err != nil {
				s.Close()
				return storeError(j, i, fmt.Sprintf("marshal %d notes", len(notes)), err)
			}
			t3 = time.Now()
			err = m.InsertMarshaled(mm)
			if err != nil {
				s.Close()
				return storeError(j, i, fmt.Sprintf("insert %d marshaled notes", len(notes)), err)
			}
		} else if err := s.Insert(notes); err != nil {
			s.Close()
			return storeError(j, i, fmt.Sprintf("insert %d notes", len(notes)), err)
		}
		t4 := time.Now()
		if err := s.Close(); err != nil {
			return storeError(j, i, "close", err)
		}
		t5 := time.Now()
		prof.CreateMs[i] = ms(t1.Sub(t0))
		prof.FillMs[i] = ms(t2.Sub(t1))
		marshalMs[i] = ms(t3.Sub(t2))
		prof.InsertMs[i] = ms(t4.Sub(t3))
		prof.CloseMs[i] = ms(t5.Sub(t4))
		prof.TotalMs[i] = ms(t5.Sub(t0))
		return nil
	})
	if err != nil {
		return err
	}
	rec.WallS = time.Since(start).Seconds()
	if marshals {
		prof.MarshalMs = marshalMs
	}
	rec.Profile = prof
	return nil
}
