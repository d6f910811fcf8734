package worker

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"time"

	"manydb/internal/datasource"
	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/results"
)

// space measures each store's files on disk, spread over the machine's
// cores; in the shared layout the shared store's, once
// (results.Record.SharedBytes).
func space(j job.Job, v engine.Variant, _ datasource.Source, rec *results.Record, loop *storeLoop) error {
	fs := filesOf(v)
	if a, ok := v.(*agents); ok {
		s, err := spaceOf(fs, a.dir)
		if err != nil {
			return fmt.Errorf("measure the shared store's space: %w", err)
		}
		rec.SharedBytes, rec.SharedApparentBytes, rec.Files = &s.Bytes, &s.ApparentBytes, recordedFiles(v, s.Files)
		return nil
	}
	rec.Bytes = make([]int64, j.Stores)
	rec.ApparentBytes = make([]int64, j.Stores)
	dirs := storeDirs(j)
	fs, err := listedFiles(v, dirs)
	if err != nil {
		return err
	}
	files := make([][]string, lanes(j.Stores))
	err = spread(j.Stores, func(g, i int) error {
		if g == 0 {
			loop.at(i)
			loop.progress.report(i, time.Now())
		}
		s, err := spaceOf(fs, dirs[i])
		if err != nil {
			return storeError(j, i, "measure space", err)
		}
		rec.Bytes[i], rec.ApparentBytes[i] = s.Bytes, s.ApparentBytes
		files[g] = append(files[g], s.Files...)
		return nil
	})
	if err != nil {
		return err
	}
	rec.Files = recordedFiles(v, slices.Concat(files...))
	return nil
}

// recordedFiles are the names of v's store files as the record keeps
// them, each once; a server's (base/16384/16390_fsm) as the kinds of file
// a store takes (base/N/N_fsm): one name per kind, not one per store.
func recordedFiles(v engine.Variant, names []string) []string {
	if _, ok := base(v).(engine.ServerVariant); ok {
		for i, n := range names {
			names[i] = digits.ReplaceAllString(n, "N")
		}
	}
	return uniqueSorted(names)
}

var digits = regexp.MustCompile(`[0-9]+`)

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

// spaceOf measures the space of the store in dir (fs finds its files).
func spaceOf(fs filer, dir string) (measure.Space, error) {
	files, err := fs(dir)
	if err != nil {
		return measure.Space{}, err
	}
	return measure.FilesSpace(files)
}
