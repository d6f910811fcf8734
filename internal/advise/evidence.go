package advise

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"manydb/internal/job"
	"manydb/internal/report"
	"manydb/internal/results"
	"manydb/internal/stats"
	"manydb/internal/workload"
)

// Evidence is what the records say of one variant, setting and layout:
// its figures without embeddings (Base) and, for a scenario with them, at
// its dims (Vec, nil when no record has them), and what the hold and
// serve records say of the per-process limits.
type Evidence struct {
	Key
	Base *report.Figures
	Vec  *report.Figures
	Dims int // of Vec's records
	// Objects is the notes per store of the base records.
	Objects int
	// Closed are its serve records' closed loops by pool size, and
	// Ladders their rate ladders (none without an open loop).
	Closed  map[int]Rung
	Ladders map[int][]Rung
	// ServeCounts are the store counts of its serve records (a pool
	// share is of one: ServeStores).
	ServeCounts []int
	// Files and VecFiles are the files the base and the vector records
	// of each phase came from.
	Files, VecFiles map[job.Phase][]string
	// FilesPerOpen is the open files per open store: the larger of the
	// hold's and serve's growth (NaN: not recorded); FDsBefore the files
	// a worker had open before its stores, OpenFileLimit the soft limit
	// its holds recorded.
	FilesPerOpen, FDsBefore, OpenFileLimit float64
	// KeysFreeBefore is the pthread keys a worker could still make before
	// its stores (NaN: not recorded).
	KeysFreeBefore float64
	// LimitsRecorded tells whether a hold of these records counted the
	// limits (open-file limit, pthread keys); older holds did not, and
	// OpenFileLimit is then the limit other holds recorded, of the
	// records' machine.
	LimitsRecorded bool
}

// Records are the records advise reads, with the files they came from.
type Records struct {
	Recs  []results.Record
	Files []string
}

// Collect gathers the evidence of every variant, setting and layout in
// recs, in the order they first appear: the base figures from the
// records without embeddings, and, when dims > 0, the vector figures
// from those with dims values per embedding, of one embedding workload:
// the first such record's data source, topic pool and noise
// (VectorWorkload). Records of another are left out, never pooled with
// it: recall depends on them. Records without embeddings are those of the
// synthetic notes (the reference's).
func Collect(recs []results.Record, dims int) []*Evidence {
	var base, vec []results.Record
	shape, _ := VectorWorkload(recs, dims)
	for _, r := range recs {
		switch {
		case r.Workload.Dims == 0 && r.Workload.Data == (workload.Data{}):
			base = append(base, r) // the reference's notes: a real data set's are of other sizes
		case r.Workload.Dims == dims && sameEmbeddings(r.Workload, shape):
			vec = append(vec, r)
		}
	}
	var out []*Evidence
	by := map[Key]*Evidence{}
	for _, f := range report.CollectFigures(base) {
		e := &Evidence{Key: Key{f.Variant, f.Setting, f.Layout}, Base: f, Files: map[job.Phase][]string{}, VecFiles: map[job.Phase][]string{}}
		by[e.Key], out = e, append(out, e)
	}
	if dims > 0 {
		for _, f := range report.CollectFigures(vec) {
			k := Key{f.Variant, f.Setting, f.Layout}
			if by[k] == nil { // measured with embeddings only
				by[k] = &Evidence{Key: k, Files: map[job.Phase][]string{}, VecFiles: map[job.Phase][]string{}}
				out = append(out, by[k])
			}
			by[k].Vec, by[k].Dims = f, dims
		}
	}
	machineLimit := nan // the open-file limit any hold recorded
	for _, e := range out {
		e.readRaw(base, vec)
		machineLimit = maxKnown(machineLimit, e.OpenFileLimit)
	}
	for _, e := range out {
		if math.IsNaN(e.OpenFileLimit) {
			e.OpenFileLimit = machineLimit
		}
	}
	return out
}

// VectorWorkload is the workload of the first record of recs with dims
// values per embedding (false: none), whose topic pool and noise Collect
// keeps.
func VectorWorkload(recs []results.Record, dims int) (workload.Spec, bool) {
	for _, r := range recs {
		if dims > 0 && r.Workload.Dims == dims {
			return r.Workload, true
		}
	}
	return workload.Spec{}, false
}

// sameEmbeddings tells whether two workloads draw embeddings alike: the
// same data source (--data: recall depends on the data more than on the
// index), topic pool and noise around a topic.
func sameEmbeddings(a, b workload.Spec) bool {
	return a.Data == b.Data && a.TopicPool == b.TopicPool && a.NoteSpread() == b.NoteSpread()
}

// readRaw reads from the ok records of e what no figure holds: the files
// and the store counts, and the per-process limits.
func (e *Evidence) readRaw(base, vec []results.Record) {
	var perOpen, before, limit, keysFree []float64
	for k, set := range [][]results.Record{base, vec} {
		files := []map[job.Phase][]string{e.Files, e.VecFiles}[k]
		for i := range set {
			r := &set[i]
			if r.Status != results.StatusOK || (Key{r.Variant, r.Setting, r.Layout}) != e.Key {
				continue
			}
			if r.File != "" && !slices.Contains(files[r.Phase], r.File) {
				files[r.Phase] = append(files[r.Phase], r.File)
			}
			if k == 1 {
				continue
			}
			e.Objects = r.Workload.Objects
			if h := r.Hold; h != nil && h.Held > 0 {
				perOpen = append(perOpen, float64(h.FDs-h.FDsBefore)/float64(h.Held))
				before = append(before, float64(h.FDsBefore))
				if h.Limits != nil {
					limit, e.LimitsRecorded = append(limit, float64(h.Limits.OpenFiles)), true
				}
				if h.PthreadKeysMax > 0 {
					keysFree = append(keysFree, float64(h.PthreadKeysFreeBefore))
				}
			}
			if r.Serve != nil && r.Phase == job.PhaseServe {
				if !slices.Contains(e.ServeCounts, r.Stores) {
					e.ServeCounts = append(e.ServeCounts, r.Stores)
				}
			}
		}
	}
	e.readLadders(base)
	e.FilesPerOpen = maxKnown(stats.Median(perOpen), e.serveFilesPerOpen(base))
	e.FDsBefore, e.OpenFileLimit, e.KeysFreeBefore = stats.Median(before), stats.Median(limit), stats.Median(keysFree)
}

// serveFilesPerOpen is the growth of the serve worker's open files per
// pool slot: (peak at pool P − peak at pool 0) / P, the largest over its
// pools (NaN without serve records of pool 0 and another).
func (e *Evidence) serveFilesPerOpen(base []results.Record) float64 {
	peaks := map[int][]float64{}
	for i := range base {
		r := &base[i]
		if r.Status == results.StatusOK && r.Serve != nil && (Key{r.Variant, r.Setting, r.Layout}) == e.Key && len(r.Serve.FDs) > 0 {
			peaks[r.Serve.Pool] = append(peaks[r.Serve.Pool], float64(slices.Max(r.Serve.FDs)))
		}
	}
	none, ok := peaks[0]
	if !ok {
		return nan
	}
	best := nan
	for pool, xs := range peaks {
		if pool > 0 {
			best = maxKnown(best, (stats.Median(xs)-stats.Median(none))/float64(pool))
		}
	}
	return best
}

// ServeStores is the stores of e's serve records, the last count when
// they have several; 0 without serve records.
func (e *Evidence) ServeStores() int {
	if len(e.ServeCounts) == 0 {
		return 0
	}
	return e.ServeCounts[len(e.ServeCounts)-1]
}

// base is a figure of e's records without embeddings: the median of
// its values (at level, for a serve figure, when level ≥ 0), with where
// it comes from.
func (e *Evidence) base(name report.FigureName, level int) Number {
	return e.figure(e.Base, e.Files, 0, name, level)
}

// vec is a figure of e's records with embeddings (NaN without them).
func (e *Evidence) vec(name report.FigureName) Number {
	return e.figure(e.Vec, e.VecFiles, e.Dims, name, -1)
}

// figure is the median of figure name's values in f, the figures of e's
// records with dims values per embedding (at level when level ≥ 0),
// naming the figure, the level, the values and the files of its phase's
// records.
func (e *Evidence) figure(f *report.Figures, files map[job.Phase][]string, dims int, figure report.FigureName, level int) Number {
	if f == nil {
		return Number{Value: nan}
	}
	name := string(figure) // the key of f's maps, and the name a Source keeps
	xs := f.Values[name]
	at := ""
	if level >= 0 {
		xs, at = f.ValuesAt(name, level), " at pool "+thousands(float64(level))
	}
	if len(xs) == 0 {
		return Number{Value: nan, Unit: f.Units[name]}
	}
	count := "1 value"
	if len(xs) > 1 {
		count = fmt.Sprintf("the median of %d values", len(xs))
	}
	src := Source{Key: e.Key, Dims: dims, Figure: name, Level: level, Values: len(xs), Median: stats.Median(xs), Files: files[report.PhaseOf(name)]}
	if v, ok := f.Pooled[name]; ok && level < 0 {
		// a figure of each run's samples: over the runs' samples pooled,
		// as the tables give it
		src.Median, src.Pooled = v, true
		count = fmt.Sprintf("the samples of %d runs pooled", len(xs))
	}
	return Number{Value: src.Median, Unit: f.Units[name], Sources: []Source{src},
		From: fmt.Sprintf("%s%s, %s in %s", name, at, count, FilesText(src.Files))}
}

// maxKnown is the larger of a and b, either when the other is NaN.
func maxKnown(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return max(a, b)
}

// A Rung is one rate of a serve rate ladder at one pool size: the open
// loop's p99s at that offered rate (one per record) and their spread
// (runsSpread), and whether any of those records saturated
// (report.Saturated, against the closed loop of the same file's pool, as
// the study's own tables judge it).
type Rung struct {
	Pool      int       `json:"pool"`
	Rate      float64   `json:"rate"` // requests per second offered
	P99s      []float64 `json:"p99s_ms"`
	Spread    Interval  `json:"spread"`
	Saturated bool      `json:"saturated"`
	// Files are the files of its records.
	Files []string `json:"files"`
}

// step is one serve step of a ladder and the file that holds it.
type step struct {
	serve *results.Serve
	file  string
}

// ladder is the rungs of e's serve records at pool size level from base,
// the records without embeddings: the closed loop's (rate 0) and the open
// loop's by rate (none without an open loop).
func ladder(e Key, base []results.Record, level int) (Rung, []Rung) {
	by := map[float64][]step{}
	for i := range base {
		r := &base[i]
		if r.Status != results.StatusOK || r.Phase != job.PhaseServe || r.Serve == nil || r.Serve.Pool != level || r.Serve.Served() == 0 ||
			(Key{r.Variant, r.Setting, r.Layout}) != e {
			continue
		}
		by[r.Serve.Rate] = append(by[r.Serve.Rate], step{r.Serve, r.File})
	}
	closedP99 := map[string][]float64{} // a file's closed loops' p99s
	for _, st := range by[0] {
		closedP99[st.file] = append(closedP99[st.file], st.serve.P99Ms)
	}
	closed := rungOf(level, 0, by[0], closedP99)
	var open []Rung
	for rate, steps := range by {
		if rate > 0 {
			open = append(open, rungOf(level, rate, steps, closedP99))
		}
	}
	slices.SortFunc(open, func(a, b Rung) int { return cmp.Compare(a.Rate, b.Rate) })
	return closed, open
}

// rungOf is the rung of the serve steps at rate (0: the closed loop); an
// open-loop step saturated when report.Saturated says so against the
// median closed-loop p99 of its own file (NaN, so only the served rate
// counts, when its file has no closed loop at that pool).
func rungOf(level int, rate float64, steps []step, closedP99 map[string][]float64) Rung {
	g := Rung{Pool: level, Rate: rate}
	ss := make([]*results.Serve, len(steps))
	for i, st := range steps {
		ss[i] = st.serve
		g.P99s = append(g.P99s, st.serve.P99Ms)
		g.Saturated = g.Saturated || (rate > 0 && report.Saturated(st.serve, stats.Median(closedP99[st.file])))
		if !slices.Contains(g.Files, st.file) {
			g.Files = append(g.Files, st.file)
		}
	}
	g.Spread = runsSpread(ss)
	return g
}

// readLadders reads e's closed loops and rate ladders by pool size from
// base (no ladder at a pool without an open loop).
func (e *Evidence) readLadders(base []results.Record) {
	e.Closed, e.Ladders = map[int]Rung{}, map[int][]Rung{}
	for _, level := range e.poolLevels() {
		closed, rungs := ladder(e.Key, base, level)
		e.Closed[level] = closed
		if len(rungs) > 0 {
			e.Ladders[level] = rungs
		}
	}
}

// poolLevels are the pool sizes of e's serve figures.
func (e *Evidence) poolLevels() []int {
	if e.Base == nil {
		return nil
	}
	return e.Base.Levels(string(report.FigureServeP99))
}
