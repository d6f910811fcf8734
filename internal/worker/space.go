package worker

import (
	"fmt"
	"sort"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/results"
)

// space measures each store's files on disk; in the shared layout the
// shared store's, once (results.Record.SharedBytes).
func space(j job.Job, v engine.Variant, rec *results.Record, loop *storeLoop) error {
	if a, ok := v.(*agents); ok {
		s, err := measure.DirSpace(a.dir)
		if err != nil {
			return fmt.Errorf("measure the shared store's space: %w", err)
		}
		rec.SharedBytes, rec.SharedApparentBytes, rec.Files = &s.Bytes, &s.ApparentBytes, uniqueSorted(s.Files)
		return nil
	}
	rec.Bytes = make([]int64, j.Stores)
	rec.ApparentBytes = make([]int64, j.Stores)
	var files []string
	dirs := storeDirs(j)
	err := loop.eachStore(j.Stores, nil, func(_, i int) error {
		s, err := measure.DirSpace(dirs[i])
		if err != nil {
			return storeError(j, i, "measure space", err)
		}
		rec.Bytes[i], rec.ApparentBytes[i] = s.Bytes, s.ApparentBytes
		files = append(files, s.Files...)
		return nil
	})
	if err != nil {
		return err
	}
	rec.Files = uniqueSorted(files)
	return nil
}

// uniqueSorted returns the distinct strings of xs in order.
func uniqueSorted(xs []string) []string {
	sort.Strings(xs)
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
