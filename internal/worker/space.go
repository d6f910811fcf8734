package worker

import (
	"sort"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/results"
)

// space measures each store's files on disk.
func space(j job.Job, v engine.Variant, rec *results.Record, p *progress) error {
	rec.Bytes = make([]int64, j.Stores)
	rec.ApparentBytes = make([]int64, j.Stores)
	var files []string
	for i, dir := range storeDirs(j) {
		p.at(i)
		s, err := measure.DirSpace(dir)
		if err != nil {
			return storeError(j, i, "measure space", err)
		}
		rec.Bytes[i], rec.ApparentBytes[i] = s.Bytes, s.ApparentBytes
		files = append(files, s.Files...)
		p.step(i + 1)
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
