package results

import (
	"fmt"
	"math"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/vector"
)

// maxLimit bounds a process' limit of open files, mappings or threads:
// the kernel keeps each in an int.
const maxLimit = math.MaxInt32

// named is one count of a record and its JSON path.
type named struct {
	name string
	n    int64
}

// checkNotNegative refuses the first negative count of counts.
func checkNotNegative(counts []named) error {
	for _, c := range counts {
		if c.n < 0 {
			return fmt.Errorf("%s is %d: a count is not negative", c.name, c.n)
		}
	}
	return nil
}

// checkHoldCounts refuses a hold whose counts no process can have: a
// negative count of threads, files, goroutines, mappings or memory, a
// limit outside 1 to maxLimit, more open files or mappings than the
// processes' limits let them have, pthread keys free outside 0 to their
// maximum (or, not counted, other than the maximum's -1 or 0). Each
// process of a split hold is checked too. path names h ("hold").
func checkHoldCounts(h *Hold, path string) error {
	err := checkNotNegative([]named{{path + ".threads_before", int64(h.ThreadsBefore)}, {path + ".threads", int64(h.Threads)},
		{path + ".fds_before", int64(h.FDsBefore)}, {path + ".fds", int64(h.FDs)},
		{path + ".goroutines_before", int64(h.GoroutinesBefore)}, {path + ".goroutines", int64(h.Goroutines)},
		{path + ".mappings_before", int64(h.MappingsBefore)}, {path + ".mappings", int64(h.Mappings)},
		{path + ".rss_before_kb", h.RssBeforeKB}, {path + ".rss_after_kb", h.RssAfterKB},
		{path + ".anon_before_kb", h.AnonBeforeKB}, {path + ".anon_after_kb", h.AnonAfterKB},
		{path + ".pss_before_kb", h.PssBeforeKB}, {path + ".mem_available_kb", h.MemAvailableKB}})
	if err != nil {
		return err
	}
	if h.EngineS < 0 {
		return fmt.Errorf("%s.engine_s is %v: a time is not negative", path, h.EngineS)
	}
	if err := checkKeys(h, path); err != nil {
		return err
	}
	if err := checkLimits(h, path); err != nil {
		return err
	}
	for k := range h.Procs {
		if err := checkHoldCounts(&h.Procs[k], fmt.Sprintf("%s.procs[%d]", path, k)); err != nil {
			return err
		}
	}
	return nil
}

// checkKeys refuses pthread keys free outside 0 to their maximum; when
// they were not counted (maximum 0, or -1 a process in a worker without
// cgo), the free counts are the maximum too.
func checkKeys(h *Hold, path string) error {
	most := h.PthreadKeysMax
	for _, c := range []named{{path + ".pthread_keys_free_before", int64(h.PthreadKeysFreeBefore)}, {path + ".pthread_keys_free", int64(h.PthreadKeysFree)}} {
		switch {
		case most > 0 && (c.n < 0 || c.n > int64(most)):
			return fmt.Errorf("%s is %d, outside 0 to pthread_keys_max %d", c.name, c.n, most)
		case most <= 0 && c.n != int64(most):
			return fmt.Errorf("%s is %d with pthread_keys_max %d: keys not counted leave it %d", c.name, c.n, most, most)
		}
	}
	return nil
}

// checkLimits refuses a hold's limit outside 1 to maxLimit, and more open
// files or mappings than its processes' limits allow (each process has
// its own).
func checkLimits(h *Hold, path string) error {
	l := h.Limits
	if l == nil {
		return nil
	}
	for _, c := range []named{{path + ".limits.open_files", l.OpenFiles}, {path + ".limits.mappings", l.Mappings}, {path + ".limits.threads", l.Threads}} {
		if c.n < 1 || c.n > maxLimit {
			return fmt.Errorf("%s is %d, outside 1 to %d", c.name, c.n, maxLimit)
		}
	}
	procs := int64(max(len(h.Procs), 1))
	switch {
	case int64(h.FDs) > procs*l.OpenFiles:
		return fmt.Errorf("%s.fds is %d, more than %d process(es) of limits.open_files %d can have", path, h.FDs, procs, l.OpenFiles)
	case int64(h.Mappings) > procs*l.Mappings:
		return fmt.Errorf("%s.mappings is %d, more than %d process(es) of limits.mappings %d can have", path, h.Mappings, procs, l.Mappings)
	}
	return nil
}

// checkServeCounts refuses a serve step with a negative count or memory
// sample, or more LRU hits than requests served; each process of a split
// step is checked too. path names s ("serve").
func checkServeCounts(s *Serve, path string) error {
	counts := []named{{path + ".warmup", int64(s.Warmup)}, {path + ".concurrency", int64(s.Concurrency)},
		{path + ".opens", s.Opens}, {path + ".closes", s.Closes}, {path + ".max_open", s.MaxOpen}, {path + ".lru_hits", s.LRUHits},
		{path + ".sample_ms", int64(s.SampleMs)}, {path + ".base_rss_kb", s.BaseRssKB}, {path + ".server_processes", int64(s.ServerProcesses)}}
	for name, xs := range map[string][]int64{"rss_kb": s.RssKB, "anon_kb": s.AnonKB} {
		for i, x := range xs {
			counts = append(counts, named{fmt.Sprintf("%s.%s[%d]", path, name, i), x})
		}
	}
	for name, xs := range map[string][]int{"threads": s.Threads, "fds": s.FDs} {
		for i, x := range xs {
			counts = append(counts, named{fmt.Sprintf("%s.%s[%d]", path, name, i), int64(x)})
		}
	}
	if err := checkNotNegative(counts); err != nil {
		return err
	}
	if s.LRUHits > int64(s.Served()) {
		return fmt.Errorf("%s.lru_hits is %d, more than the %d requests served", path, s.LRUHits, s.Served())
	}
	if s.WallS < 0 {
		return fmt.Errorf("%s.wall_s is %v: a time is not negative", path, s.WallS)
	}
	for k := range s.Procs {
		if err := checkServeCounts(&s.Procs[k], fmt.Sprintf("%s.procs[%d]", path, k)); err != nil {
			return err
		}
	}
	return nil
}

// checkVectorFigures refuses knn figures in a record of a workload
// without embeddings, an answer length outside 0 to vector.K, and a knn
// that asked the engine for fewer than vector.K notes.
func (r *Record) checkVectorFigures() error {
	if r.Workload.Dims == 0 && (len(r.Recall) > 0 || len(r.KNNReturned) > 0 || r.KNNAsked != 0) {
		return fmt.Errorf("knn figures (recall, knn_returned, knn_asked) in a record of a workload without embeddings (dims 0)")
	}
	if r.KNNAsked != 0 && r.KNNAsked < vector.K {
		return fmt.Errorf("knn_asked is %d: a knn asks for at least %d notes", r.KNNAsked, vector.K)
	}
	for i, n := range r.KNNReturned {
		if n < 0 || n > vector.K {
			return fmt.Errorf("knn_returned[%d] is %d, outside 0 to %d", i, n, vector.K)
		}
	}
	return nil
}

// checkVariantLayout refuses a measured record (not n/a) of a layout its
// variant does not have, as the engine catalog says (Family.LayoutGaps:
// always, with embeddings, in a serve step). A variant the catalog does
// not know is not checked.
func (r *Record) checkVariantLayout() error {
	f, ok := engine.Lookup(r.Variant)
	if !ok || r.Status == StatusNotApplicable {
		return nil
	}
	gaps := f.LayoutGaps(r.Layout)
	why := gaps.Always[r.Variant]
	if why == "" && r.Workload.Dims > 0 {
		why = gaps.Vectors[r.Variant]
	}
	if why == "" && r.Phase == job.PhaseServe {
		why = gaps.Serve[r.Variant]
	}
	if why != "" {
		return fmt.Errorf("%s in layout %s, which it does not have, with status %s: %s", r.Variant, r.Layout.Name(), r.Status, why)
	}
	return nil
}
