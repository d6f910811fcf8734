package report

import (
	"fmt"
	"math"
	"slices"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
	"manydb/internal/vector"
)

// The values of the registry's figures: how each picks its samples or
// its value from a record, and when a column has none to show.

// mappingsPerStore is the memory mappings a hold added per open store;
// NaN in a record made before they were counted.
func mappingsPerStore(h *results.Hold) float64 {
	if h.Limits == nil {
		return math.NaN()
	}
	return float64(h.Mappings-h.MappingsBefore) / float64(h.Held)
}

// pthreadKeysPerStore is the pthread keys a hold took per open store;
// NaN where they were not counted (an older record, a worker without
// cgo).
func pthreadKeysPerStore(h *results.Hold) float64 {
	if h.Limits == nil || h.PthreadKeysMax <= 0 {
		return math.NaN()
	}
	return float64(h.PthreadKeysFreeBefore-h.PthreadKeysFree) / float64(h.Held)
}

// holdProcesses is how many worker processes held the stores under
// --procs; NaN for a hold without it (oneProcess says 1), so that the
// exports of other studies do not gain the figure.
func holdProcesses(h *results.Hold) float64 {
	if len(h.Procs) == 0 && h.ProcsChosenBy == nil {
		return math.NaN()
	}
	return float64(max(len(h.Procs), 1))
}

// oneProcess: a hold made without --procs, in one worker process.
func oneProcess(recs []*results.Record) string {
	if h := recs[len(recs)-1].Hold; h != nil && h.Held > 0 && math.IsNaN(holdProcesses(h)) {
		return "1"
	}
	return ""
}

// workerPss is the median Pss of a split hold's processes with no store
// open (each shares the libraries with the processes alive then); NaN
// for a hold in one process.
func workerPss(h *results.Hold) float64 {
	if len(h.Procs) < 2 {
		return math.NaN()
	}
	pss := make([]float64, len(h.Procs))
	for k, p := range h.Procs {
		pss[k] = float64(p.PssBeforeKB)
	}
	return stats.Median(pss)
}

// storesUntilLimit is how many open stores the first limit lets the
// worker hold (results.Hold.Walls); NaN when the stores use up none
// (noWall says so) or the limits were not recorded.
func storesUntilLimit(h *results.Hold) float64 {
	ws := h.Walls()
	if len(ws) == 0 {
		return math.NaN()
	}
	return ws[0].Stores
}

// limitsNotRecorded: a hold record made before the limits were.
func limitsNotRecorded(recs []*results.Record) string {
	if h := recs[len(recs)-1].Hold; h != nil && h.Limits == nil {
		return "– (not recorded)"
	}
	return ""
}

// noWall: limits not recorded, or open stores that took nothing of any.
func noWall(recs []*results.Record) string {
	h := recs[len(recs)-1].Hold
	switch {
	case h == nil || h.Held < 1:
		return ""
	case h.Limits == nil:
		return "– (not recorded)"
	case len(h.Walls()) == 0:
		return "none reached"
	}
	return ""
}

// serverLimits is what a hold of a server's stores leaves out of its
// limits: the hold reads the worker's limits and counts the server's
// memory, not the server's own limits (docs/engines.md gives sqld's: 5
// open files per loaded namespace, 2 per connection).
const serverLimits = "the server's own limits, as sqld's open files or PostgreSQL's max_connections, not counted: docs/engines.md"

// pthreadKeysNA: not recorded, or a worker without cgo (no C library to
// ask; its engine is pure Go).
func pthreadKeysNA(recs []*results.Record) string {
	h := recs[len(recs)-1].Hold
	switch {
	case h == nil:
		return ""
	case h.Limits == nil:
		return "– (not recorded)"
	case h.PthreadKeysMax < 0:
		return "n/a (worker without cgo)"
	}
	return ""
}

func openMs(r *results.Record) []float64 { return r.OpenMs }

func createMs(r *results.Record) []float64 { return r.CreateMs }

func queryMs(r *results.Record) []float64 { return r.QueryMs }

func closeMs(r *results.Record) []float64 { return r.CloseMs }

func totalMs(r *results.Record) []float64 { return r.TotalMs }

// countSamples picks the count's own samples: with --queries, the count's
// of the queries (none when it was left out), else the query span, which
// is the count alone.
func countSamples(r *results.Record) []float64 {
	if len(r.Queries) > 0 {
		return r.QueriesMs[job.QueryCount]
	}
	return r.QueryMs
}

// querySamples picks one query's own samples (--queries, and turns).
func querySamples(name job.Query) func(r *results.Record) []float64 {
	return func(r *results.Record) []float64 { return r.QueriesMs[name] }
}

// recallPercent picks each store's knn recall@10, in percent.
func recallPercent(r *results.Record) []float64 {
	xs := make([]float64, len(r.Recall))
	for i, x := range r.Recall {
		xs[i] = 100 * x
	}
	return xs
}

// served gives a serve figure's value of a record from its serve step;
// NaN for a record without one.
func served(of func(s *results.Serve) float64) func(r *results.Record) float64 {
	return func(r *results.Record) float64 {
		if r.Serve == nil {
			return math.NaN()
		}
		return of(r.Serve)
	}
}

// The figures of a serve step, which serve's tables, its charts and the
// registry's serve figures share.
func serveP50(s *results.Serve) float64 { return s.P50Ms }

func serveP99(s *results.Serve) float64 { return s.P99Ms }

func servePeakRSS(s *results.Serve) float64 { return peak(s.RssKB) }

func servePeakAnon(s *results.Serve) float64 { return peak(s.AnonKB) }

func serveHitRate(s *results.Serve) float64 { return 100 * float64(s.Hits) / float64(s.Served()) }

// servePerSecond is the requests served per second of the recorded
// requests' wall time.
func servePerSecond(s *results.Serve) float64 { return float64(s.Served()) / s.WallS }

// shareBelow is the percentage of samples below limit.
func shareBelow(limit float64) func(xs []float64) float64 {
	return func(xs []float64) float64 {
		if len(xs) == 0 {
			return math.NaN()
		}
		n := 0
		for _, x := range xs {
			if x < limit {
				n++
			}
		}
		return 100 * float64(n) / float64(len(xs))
	}
}

// shortAnswers picks, for each knn answer of a record, 100 when it held
// fewer than vector.K ids (or fewer than the store's notes) and 0 when
// it held them all; none for a record made before the ids were counted.
func shortAnswers(r *results.Record) []float64 {
	xs := make([]float64, len(r.KNNReturned))
	want := min(vector.K, r.Workload.Objects+r.Appended)
	for i, n := range r.KNNReturned {
		if n < want {
			xs[i] = 100
		}
	}
	return xs
}

// residentPercent picks the percentage of each store's pages resident
// before its cold open.
func residentPercent(r *results.Record) []float64 {
	xs := make([]float64, len(r.Resident))
	for i, x := range r.Resident {
		xs[i] = 100 * x
	}
	return xs
}

// storesPerSecond is the create phase's stores per second of wall time;
// NaN without a wall time (a sweep's smaller count: made with more stores).
func storesPerSecond(r *results.Record) float64 {
	if r.WallS <= 0 {
		return math.NaN()
	}
	return float64(len(r.CreateMs)) / r.WallS
}

// spacePerStore is the median space per store of a space record in KB,
// in the shared layout the shared store's space over its agents; NaN for
// a record without bytes.
func spacePerStore(r *results.Record) float64 {
	if r.SharedBytes != nil && r.Stores > 0 {
		return float64(*r.SharedBytes) / float64(r.Stores) / 1024
	}
	if len(r.Bytes) == 0 {
		return math.NaN()
	}
	return stats.Median(stats.Ints(r.Bytes)) / 1024
}

// held picks a figure of a hold record; NaN for a record without one or
// without stores held.
func held(pick func(h *results.Hold) float64) func(r *results.Record) float64 {
	return func(r *results.Record) float64 {
		if r.Hold == nil || r.Hold.Held < 1 {
			return math.NaN()
		}
		return pick(r.Hold)
	}
}

// perHeldStore is a memory cgroup's charge per held store that delta
// picks, in KB; NaN without a memory cgroup or stores held.
func perHeldStore(delta func(c *results.Container) int64) func(r *results.Record) float64 {
	return func(r *results.Record) float64 {
		if r.Hold == nil || r.Hold.Container == nil || r.Hold.Held < 1 {
			return math.NaN()
		}
		return float64(delta(r.Hold.Container)) / 1024 / float64(r.Hold.Held)
	}
}

func madeWithMoreStores(recs []*results.Record) string {
	if recs[len(recs)-1].StoresFrom != "" {
		return "n/a (made with more stores)"
	}
	return ""
}

// needsCgroup says why a hold has no container figure: no memory cgroup
// could be made, or the stores live in a server whose processes are
// outside the worker's cgroup (results.Hold.ContainerNA says more).
func needsCgroup(recs []*results.Record) string {
	switch h := recs[len(recs)-1].Hold; {
	case h == nil || h.Container != nil:
		return ""
	case h.Server != nil:
		return "n/a (the server's processes are outside it)"
	}
	return "n/a (needs a memory cgroup)"
}

// notCold says that the stores of cold runs were not cold.
func notCold(recs []*results.Record) string {
	if r := residency(recs); r > results.NotColdAbove {
		return fmt.Sprintf("not cold (%.0f %% resident)", 100*r)
	}
	return ""
}

// residency is the median fraction of store pages resident before the
// opens of recs (0 when they recorded none: drop runs).
func residency(recs []*results.Record) float64 {
	xs := pooled(recs, func(r *results.Record) []float64 { return r.Resident })
	if len(xs) == 0 {
		return 0
	}
	return stats.Median(xs)
}

// peak and last are the largest and the last of a serve step's memory
// samples, NaN without samples.
func peak(xs []int64) float64 { return stats.Max(stats.Ints(xs)) }

func last(xs []int64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return float64(xs[len(xs)-1])
}

// freedKB is each deleted agent's space given back, in KB.
func freedKB(r *results.Record) []float64 {
	xs := stats.Ints(r.FreedBytes)
	for i := range xs {
		xs[i] /= 1024
	}
	return xs
}

// ladderOrder places the closed loop (rate 0) above every rate.
func ladderOrder(rate float64) float64 {
	if rate == 0 {
		return math.Inf(1)
	}
	return rate
}

// atLoad keeps, of serve records, those of each study's heaviest load:
// its closed loop's when it has one (a ladder's max, or a study without
// --rate), else those of its highest rate. Records of other phases are
// kept. A ladder's lighter rates are read in the table of latency
// against the offered rate; the figures and the charts keep one load per
// pool size, as for a study without a ladder.
func atLoad(recs []*results.Record) []*results.Record {
	load := map[string]float64{}
	for _, r := range recs {
		if r.Phase == job.PhaseServe && r.Serve != nil {
			if l, ok := load[r.Study]; !ok || ladderOrder(r.Serve.Rate) > ladderOrder(l) {
				load[r.Study] = r.Serve.Rate
			}
		}
	}
	return slices.DeleteFunc(slices.Clone(recs), func(r *results.Record) bool {
		return r.Phase == job.PhaseServe && r.Serve != nil && r.Serve.Rate != load[r.Study]
	})
}
