package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
	"manydb/internal/vector"
)

// A figure is one thing measured of a variant: its name, its label, its
// unit, the records it comes from and how to compute it from them. The
// list figures is the one place a figure is defined; the tables, the HTML
// report, the sweeps, compare and the exports all read it.
type figure struct {
	// name is the machine name compare, the exports and the sweep charts
	// use: "open-query-close". "" for a table row that is no figure.
	name string
	// label is the row's label in the tables, the report and the sweeps;
	// {objects} stands for the objects per store, {held} for the stores
	// held. A row that qualifies another figure, its base, reads "same,
	// …": "same, p99" for its base at another statistic (sameAt).
	label string
	// base, when set, is the name of the figure this row qualifies, whose
	// row stands above it; statistic is, for a figure of its base's
	// samples at another statistic, that statistic's name ("p99").
	base, statistic string
	unit            string        // ms, µs, KB, stores/s or %
	phase           job.Phase     // the phase whose records give the figure
	cache           job.CacheMode // their cache mode (open runs: warm, cold, drop)
	// perRun: one value per run, stat over the samples of one store each
	// in the run's record; else one value per study, value of its record.
	// samples are also what the report draws of a drawn figure.
	perRun  bool
	samples func(r *results.Record) []float64
	stat    func(xs []float64) float64
	// value is NaN when the record has no value (a space record without
	// bytes): the tables show it as –, the charts leave it out.
	value func(r *results.Record) float64
	// na, when set, says why a column's records of the figure have no
	// value to show ("" when they have one): "n/a (needs a memory cgroup)".
	na func(recs []*results.Record) string
	// when, when set, says whether a table shows the row: rows of a
	// measurement a study made or not (--queries, --cache, --turns).
	when func(t *table) bool
	// text, for a table row that is no figure, is its text in a column
	// (given the row's figure: its held).
	text func(t *table, c *column, f figure) string
	// held, for a hold phase's figure in a table of several hold counts,
	// is the hold count of its row; 0: the table's (table.held).
	held int
	uses use
}

// use says where else than in the tables a figure appears.
type use uint8

const (
	exported  use = 1 << iota // compare and the csv, json and gobench exports
	swept                     // the sweep tables and charts
	runSpread                 // Figures.Spread: the interquartile range of a run
	drawn                     // the report's charts: its samples per store as a CDF
	// overview: a column of the report's overview (one row per variant)
	// and a decision chart; a p99 figure joins the chart of its base.
	inOverview
)

// figures is every figure and table row, in the tables' order (the
// exports, compare and the sweeps keep it too).
var figures = registry()

// registry lists every figure and table row. A figure at another
// statistic of the same samples (a p99) is made from its base's entry
// (sameAt), so that it knows its base and statistic.
func registry() []figure {
	openQueryClose := warm("open-query-close", "Open, query, close (median)", totalMs, stats.Median, exported|swept|runSpread|drawn|inOverview)
	recent := warmIf("recent", "Recent 20 notes (median)", querySamples(job.QueryRecent), stats.Median, exported|drawn, made(job.QueryRecent))
	get := warmIf("get", "Get 10 notes by id (median)", querySamples(job.QueryGet), stats.Median, exported|drawn, made(job.QueryGet))
	scan := warmIf("scan", "Scan all notes (median)", querySamples(job.QueryScan), stats.Median, exported|drawn, made(job.QueryScan))
	knn := warmIf("knn", "knn: 10 nearest by embedding (median)", querySamples(job.QueryKNN), stats.Median, exported|drawn|inOverview, made(job.QueryKNN))
	recall := figure{name: "recall", label: "knn recall@10 (mean)", unit: "%", phase: job.PhaseOpen, perRun: true, samples: recallPercent, stat: stats.Mean,
		when: made(job.QueryKNN), uses: exported | inOverview}
	coldTotal := cached(job.CacheCold, "cold-open-query-close", "Open, query, close, cold cache (median)", totalMs, stats.Median, exported)
	dropTotal := cached(job.CacheDrop, "drop-open-query-close", "Open, query, close, drop cache (median)", totalMs, stats.Median, 0)
	turnTotal := turn("turn", "Turn: open, recent, append, close (median)", totalMs, stats.Median, exported|drawn|inOverview)
	turnAppend := turn("turn-append", "Turn: append, own transaction (median)", querySamples(job.QueryAppend), stats.Median, exported)
	turnRecall := turn("turn-recall", "Turn: knn recall@10 (mean)", recallPercent, stats.Mean, exported)
	turnRecall.unit = "%"
	return []figure{
		{name: "create", label: "Create, write {objects} objects, close (median)", unit: "ms", phase: job.PhaseCreate,
			samples: createMs, value: func(r *results.Record) float64 { return stats.Median(r.CreateMs) }, uses: exported | swept | drawn | inOverview},
		{name: "stores-per-second", label: "Stores per second", unit: "stores/s", phase: job.PhaseCreate,
			value: storesPerSecond, na: madeWithMoreStores, uses: exported},
		{label: "Warm open runs pooled", text: (*table).runsPooled},
		warm("open", "Open (median)", openMs, stats.Median, exported|swept|runSpread|drawn),
		// query is the span of every query between open and close: the count
		// alone without --queries, when the count row shows the same samples.
		warmIf("query", "Queries between open and close (median)", queryMs, stats.Median, exported|runSpread, (*table).showsCountInstead),
		warm("count", "Count query (median)", countSamples, stats.Median, exported|swept|runSpread|drawn),
		openQueryClose,
		sameAt(openQueryClose, "open-query-close-p99", "p99", stats.P99, exported|swept|inOverview),
		sameAt(openQueryClose, "open-query-close-p90", "p90", stats.P90, exported|swept),
		warm("close", "Close (median)", closeMs, stats.Median, exported|swept|runSpread|drawn),
		recent,
		sameAt(recent, "recent-p99", "p99", stats.P99, 0),
		get,
		sameAt(get, "get-p99", "p99", stats.P99, 0),
		scan,
		sameAt(scan, "scan-p99", "p99", stats.P99, 0),
		// knn (--dims): the nearest notes by embedding, and how many of the
		// true nearest the engine found (exact searches: all)
		knn,
		sameAt(knn, "knn-p99", "p99", stats.P99, exported),
		recall,
		sameAt(recall, "recall-p5", "5th percentile", stats.P5, exported),
		sameAt(recall, "recall-below-50", "share of answers below 50 %", shareBelow(50), exported),
		{name: "knn-short", label: "knn answers with fewer than 10 ids", unit: "%", phase: job.PhaseOpen, perRun: true, samples: shortAnswers, stat: stats.Mean,
			when: made(job.QueryKNN), uses: exported},
		cached(job.CacheCold, "cold-open", "Open, cold cache (median)", openMs, stats.Median, exported|drawn|inOverview),
		coldTotal,
		sameAt(coldTotal, "cold-open-query-close-p99", "p99", stats.P99, 0),
		coldKNN(cached(job.CacheCold, "cold-knn", "knn, cold cache (median)", querySamples(job.QueryKNN), stats.Median, exported)),
		{name: "cold-resident", label: "Store pages resident before a cold open (median)", unit: "%", phase: job.PhaseOpen, cache: job.CacheCold,
			perRun: true, samples: residentPercent, stat: stats.Median, when: madeCache(job.CacheCold)},
		cached(job.CacheDrop, "drop-open", "Open, drop cache (median)", openMs, stats.Median, 0),
		dropTotal,
		sameAt(dropTotal, "drop-open-query-close-p99", "p99", stats.P99, 0),
		{label: "Turn runs pooled", text: (*table).turnRunsPooled, when: (*table).madeTurns},
		turnTotal,
		sameAt(turnTotal, "turn-p99", "p99", stats.P99, inOverview),
		turn("turn-recent", "Turn: recent (median)", querySamples(job.QueryRecent), stats.Median, 0),
		turnAppend,
		sameAt(turnAppend, "turn-append-p99", "p99", stats.P99, 0),
		turnKNN(turn("turn-knn", "Turn: knn for the new note (median)", querySamples(job.QueryKNN), stats.Median, exported)),
		turnKNN(turnRecall),
		{name: "rss-per-open-store", label: "Memory per open store ({held} open), resident", unit: "KB", phase: job.PhaseHold,
			value: held(func(h *results.Hold) float64 { return h.RssKB }), uses: exported | swept},
		{name: "anon-per-open-store", base: "rss-per-open-store", label: "same, anonymous (process' own memory)", unit: "KB", phase: job.PhaseHold,
			value: held(func(h *results.Hold) float64 { return h.AnonKB }), uses: exported | swept | inOverview},
		{name: "container-per-open-store", label: "Memory charged to a container per open store", unit: "KB", phase: job.PhaseHold,
			value: perHeldStore(func(c *results.Container) int64 { return c.BytesAfter - c.BytesBefore }), na: needsCgroup, uses: exported | inOverview},
		{name: "container-file-per-open-store", base: "container-per-open-store", label: "same, page cache", unit: "KB", phase: job.PhaseHold,
			value: perHeldStore(func(c *results.Container) int64 { return c.FileAfter - c.FileBefore }), na: needsCgroup},
		{name: "container-anon-per-open-store", base: "container-per-open-store", label: "same, anonymous", unit: "KB", phase: job.PhaseHold,
			value: perHeldStore(func(c *results.Container) int64 { return c.AnonAfter - c.AnonBefore }), na: needsCgroup},
		// the n-th open (nthopen.go): the hold phase's opens, store i opened
		// with i stores already open
		{name: "open-held-first10", label: "Open with stores already open: first 10 % of {held} (median)", unit: "µs", phase: job.PhaseHold,
			value: heldOpenEdge(false), when: (*table).timedHeldOpens, uses: exported},
		{name: "open-held-last10", base: "open-held-first10", label: "same, last 10 % (median)", unit: "µs", phase: job.PhaseHold,
			value: heldOpenEdge(true), when: (*table).timedHeldOpens, uses: exported},
		{name: "open-growth-per-1000-open", base: "open-held-first10", label: "same, growth per 1,000 open (slope)", unit: "µs", phase: job.PhaseHold,
			value: openGrowth, when: (*table).timedHeldOpens, uses: exported},
		{label: "Load at start of the warm open runs (max)", text: (*table).loadAtStart},
		{name: "space-per-store", label: "Space per store, files", unit: "KB", phase: job.PhaseSpace,
			value: spacePerStore, uses: exported | swept | inOverview},
		{label: "Threads, open files, goroutines per open store", phase: job.PhaseHold, text: (*table).perOpenStore},
		// the limits open stores use up besides memory (results.Hold.Walls)
		{name: "mappings-per-open-store", label: "Memory mappings per open store", unit: "mappings", phase: job.PhaseHold,
			value: held(mappingsPerStore), na: limitsNotRecorded, when: (*table).recordedLimits, uses: exported},
		{name: "pthread-keys-per-open-store", label: "pthread keys per open store", unit: "keys", phase: job.PhaseHold,
			value: held(pthreadKeysPerStore), na: pthreadKeysNA, when: (*table).recordedLimits, uses: exported},
		{name: "open-stores-until-limit", label: "Open stores until the first limit here", unit: "stores", phase: job.PhaseHold,
			value: held(storesUntilLimit), na: noWall, when: (*table).recordedLimits, uses: exported},
		{base: "open-stores-until-limit", label: "same, which limit (per open store; left before the first open)", phase: job.PhaseHold, text: (*table).firstLimit, when: (*table).recordedLimits},
		// serve's figures (manydb serve): one value per pool size, shown in
		// serve's own tables (serve.go), not in a study's rows.
		{name: "serve-p50", label: "Serve: latency p50", unit: "ms", phase: job.PhaseServe, value: served(serveP50), uses: exported},
		{name: "serve-p99", label: "Serve: latency p99", unit: "ms", phase: job.PhaseServe, value: served(serveP99), uses: exported},
		{name: "serve-requests-per-second", label: "Serve: requests per second", unit: "requests/s", phase: job.PhaseServe, value: served(servePerSecond), uses: exported},
		{name: "serve-hit-rate", label: "Serve: pool hit rate", unit: "%", phase: job.PhaseServe, value: served(serveHitRate), uses: exported},
		{name: "serve-peak-rss", label: "Serve: resident memory of the worker, peak", unit: "KB", phase: job.PhaseServe, value: served(servePeakRSS), uses: exported},
	}
}

// recordedLimits tells whether a hold of the table recorded the limits
// (the limit rows are left out of tables of older records).
func (t *table) recordedLimits() bool {
	for _, c := range t.columns {
		for _, r := range c.records(job.PhaseHold, "") {
			if r.Hold != nil && r.Hold.Limits != nil {
				return true
			}
		}
	}
	return false
}

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

// exportedFigures are the figures of compare and the exports, in order.
func exportedFigures() []figure {
	var out []figure
	for _, f := range figures {
		if f.uses&exported != 0 {
			out = append(out, f)
		}
	}
	return out
}

// warm is a timing figure of the warm open runs.
func warm(name, label string, samples func(r *results.Record) []float64, stat func([]float64) float64, uses use) figure {
	return figure{name: name, label: label, unit: "ms", phase: job.PhaseOpen, perRun: true, samples: samples, stat: stat, uses: uses}
}

// warmIf is a timing figure of the warm open runs that a table shows only
// when it made what when says.
func warmIf(name, label string, samples func(r *results.Record) []float64, stat func([]float64) float64, uses use, when func(t *table) bool) figure {
	f := warm(name, label, samples, stat, uses)
	f.when = when
	return f
}

// cached is a timing figure of the open runs of a cache mode, shown when
// the table has such runs and not when the stores were not cold.
func cached(mode job.CacheMode, name, label string, samples func(r *results.Record) []float64, stat func([]float64) float64, uses use) figure {
	f := warm(name, label, samples, stat, uses)
	f.cache, f.na, f.when = mode, notCold, madeCache(mode)
	return f
}

// turn is a timing figure of the turn runs.
func turn(name, label string, samples func(r *results.Record) []float64, stat func([]float64) float64, uses use) figure {
	return figure{name: name, label: label, unit: "ms", phase: job.PhaseTurn, perRun: true, samples: samples, stat: stat,
		when: (*table).madeTurns, uses: uses}
}

func openMs(r *results.Record) []float64   { return r.OpenMs }
func createMs(r *results.Record) []float64 { return r.CreateMs }
func queryMs(r *results.Record) []float64  { return r.QueryMs }
func closeMs(r *results.Record) []float64  { return r.CloseMs }
func totalMs(r *results.Record) []float64  { return r.TotalMs }

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

// coldKNN shows a cold figure of the knn query only in tables of cold
// runs that made it.
func coldKNN(f figure) figure {
	f.when = func(t *table) bool { return madeCache(job.CacheCold)(t) && made(job.QueryKNN)(t) }
	return f
}

// turnKNN shows a figure of the turns' knn only in tables of turns of a
// workload with embeddings.
func turnKNN(f figure) figure {
	f.when = func(t *table) bool { return t.turned && t.dims > 0 }
	return f
}

// level is the count a hold or serve figure's value of r is of: the
// stores held, or the pool size (levelText names it); false for another
// figure, or a record without the phase's part.
func (f figure) level(r *results.Record) (n int, ok bool) {
	switch {
	case f.phase == job.PhaseHold && r.Hold != nil:
		return r.Hold.Held, true
	case f.phase == job.PhaseServe && r.Serve != nil:
		return r.Serve.Pool, true
	}
	return 0, false
}

// levelText names a level of f: "1,000 held", "pool of 100".
func (f figure) levelText(n int) string {
	if f.phase == job.PhaseServe {
		return "pool of " + thousands(float64(n))
	}
	return thousands(float64(n)) + " held"
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
func serveP50(s *results.Serve) float64     { return s.P50Ms }
func serveP99(s *results.Serve) float64     { return s.P99Ms }
func servePeakRSS(s *results.Serve) float64 { return peak(s.RssKB) }
func serveHitRate(s *results.Serve) float64 { return 100 * float64(s.Hits) / float64(s.Served()) }

// servePerSecond is the requests served per second of the recorded
// requests' wall time.
func servePerSecond(s *results.Serve) float64 { return float64(s.Served()) / s.WallS }

// sameAt is base's samples at another statistic, named name: its row
// reads "same, STATISTIC" under its base's, with uses of its own.
func sameAt(base figure, name, statistic string, stat func([]float64) float64, uses use) figure {
	f := base
	f.name, f.label, f.base, f.statistic, f.stat, f.uses = name, "same, "+statistic, base.name, statistic, stat, uses
	return f
}

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

// spacePerStore is the median space per store of a space record in KB;
// NaN for a record without bytes.
func spacePerStore(r *results.Record) float64 {
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

func needsCgroup(recs []*results.Record) string {
	if h := recs[len(recs)-1].Hold; h != nil && h.Container == nil {
		return "n/a (needs a memory cgroup)"
	}
	return ""
}

// notColdAbove is the median residency above which a cold run is not
// shown as cold: eviction did not work on that filesystem.
const notColdAbove = 0.05

// notCold says that the stores of cold runs were not cold.
func notCold(recs []*results.Record) string {
	if r := residency(recs); r > notColdAbove {
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

// made says whether a table's open runs made a query of --queries.
func made(query job.Query) func(t *table) bool {
	return func(t *table) bool { return slices.Contains(t.queries, query) }
}

// madeCache says whether a table has open runs of a cache mode.
func madeCache(mode job.CacheMode) func(t *table) bool {
	return func(t *table) bool { return slices.Contains(t.modes, mode) }
}

// showsCountInstead: the tables show no row of the query span, whose
// samples the count row shows for every record made without --queries.
func (t *table) showsCountInstead() bool { return false }
func (t *table) madeTurns() bool         { return t.turned }

// labelFor is the figure's label for a workload of objects per store and
// held stores.
func (f figure) labelFor(objects, held int) string {
	return strings.NewReplacer("{objects}", thousands(float64(objects)), "{held}", thousands(float64(held))).Replace(f.label)
}

// title is the figure's label standing alone (a chart's title): a row
// that qualifies a base names it, "Open, query, close, p99" for the row
// "same, p99" under "Open, query, close (median)".
func (f figure) title(objects, held int) string {
	label := f.labelFor(objects, held)
	rest, ok := strings.CutPrefix(label, "same, ")
	if f.base == "" || !ok {
		return label
	}
	base, median := strings.CutSuffix(figureNamed(f.base).labelFor(objects, held), " (median)")
	if i := strings.LastIndex(base, ", "); !median && i >= 0 {
		base = base[:i]
	}
	return base + ", " + rest
}

// figureNamed returns the figure of the registry named name (the zero
// figure if there is none).
func figureNamed(name string) figure {
	for _, f := range figures {
		if f.name == name {
			return f
		}
	}
	return figure{}
}

// of computes the figure from one record: its value for a run (stat over
// its samples) or for a study; NaN when the record has none.
func (f figure) of(r *results.Record) float64 {
	if f.perRun {
		return f.stat(f.samples(r))
	}
	return f.value(r)
}

// is tells whether the figure comes from records of r's phase and cache mode.
func (f figure) is(r *results.Record) bool {
	return f.name != "" && f.phase == r.Phase && f.cache == r.Cache
}

// runsPooled says how many warm runs a column's open figures pool, of the
// runs the study asked for, and which are missing or failed.
func (t *table) runsPooled(c *column, _ figure) string {
	return pooledRuns(c, c.opens(), c.failedRuns, c.runs)
}

// turnRunsPooled says the same of the turn runs.
func (t *table) turnRunsPooled(c *column, _ figure) string {
	return pooledRuns(c, c.turns(), c.failedTurn, c.turnRuns)
}

// loadAtStart is the highest load at the start of a column's warm runs.
func (t *table) loadAtStart(c *column, _ figure) string {
	opens := c.opens()
	if len(opens) == 0 {
		return missing(c, job.PhaseOpen)
	}
	var loads []float64
	for _, r := range opens {
		loads = append(loads, r.Load1)
	}
	return fmt.Sprintf("%.2f", stats.Max(loads))
}

// perOpenStore is the threads, open files and goroutines a column's hold
// phase added per open store.
func (t *table) perOpenStore(c *column, f figure) string {
	hold := t.holdRecord(c, f)
	if hold == nil {
		return t.noHold(c, f)
	}
	h := hold.Hold
	per := func(before, after int) string { return fmt.Sprintf("%.1f", float64(after-before)/float64(h.Held)) }
	return per(h.ThreadsBefore, h.Threads) + ", " + per(h.FDsBefore, h.FDs) + ", " + per(h.GoroutinesBefore, h.Goroutines)
}

// firstLimit names the limit that stops a column's open stores first,
// what each open store takes of it and what was left of it before the
// hold's first open (results.Hold.Walls).
func (t *table) firstLimit(c *column, f figure) string {
	hold := t.holdRecord(c, f)
	if hold == nil {
		return t.noHold(c, f)
	}
	switch {
	case hold.Hold.Held < 1:
		return missing(c, job.PhaseHold)
	case hold.Hold.Limits == nil:
		return "– (not recorded)"
	}
	ws := hold.Hold.Walls()
	if len(ws) == 0 {
		return "none: the open stores took nothing of any limit"
	}
	w := ws[0]
	if w.Name == "memory" {
		return fmt.Sprintf("memory (%s anonymous per store; %s available)", memory(w.PerStore), memory(w.Left))
	}
	return fmt.Sprintf("%s (%s per store; %s left)", w.Name, significant(w.PerStore), thousands(w.Left))
}

// holdRecord is a column's last ok hold record of the row's hold count
// (heldOf); with one hold count, its last hold record. nil when it has
// none.
func (t *table) holdRecord(c *column, f figure) *results.Record {
	recs := c.records(job.PhaseHold, "")
	for i := len(recs) - 1; i >= 0; i-- {
		if len(t.holds) <= 1 || (recs[i].Hold != nil && recs[i].Hold.Held == t.heldOf(f)) {
			return recs[i]
		}
	}
	return nil
}

// noHold is a hold row's text in a column without a hold of its count:
// "skipped" when that hold was skipped before it started (the notes say
// why), else as missing.
func (t *table) noHold(c *column, f figure) string {
	if _, ok := c.skippedHolds[t.heldOf(f)]; ok {
		return "skipped"
	}
	return missing(c, job.PhaseHold)
}

// pooledRuns says how many of want runs recs hold, and which failed or are
// missing.
func pooledRuns(c *column, recs []*results.Record, failedRuns map[int]bool, want int) string {
	if c.na {
		return "n/a"
	}
	have := map[int]bool{}
	for _, r := range recs {
		have[r.Repeat()] = true
	}
	var failed, missing []int
	for r := 1; r <= want; r++ {
		switch {
		case have[r]:
		case failedRuns[r]:
			failed = append(failed, r)
		default:
			missing = append(missing, r)
		}
	}
	s := fmt.Sprintf("%d of %d", len(recs), want)
	if len(failed) > 0 {
		s += "; failed: run " + runRanges(failed)
	}
	if len(missing) > 0 {
		s += "; missing: run " + runRanges(missing)
	}
	return s
}

// missing is what a table shows for a figure without a record.
func missing(c *column, phase job.Phase) string {
	if c.na {
		return "n/a"
	}
	if c.failed[phase] {
		return "failed"
	}
	return "–"
}

// heldOf is the hold count of a hold figure's row: its own in a table of
// several hold counts, else the table's.
func (t *table) heldOf(f figure) int { return cmp.Or(f.held, t.held) }

// runRanges lists ascending run numbers with each stretch of consecutive
// runs as a range: 1, 3–7, 9. An edited record's run 1000000 gives a short
// line, not a million numbers.
func runRanges(runs []int) string {
	var parts []string
	for i := 0; i < len(runs); {
		j := i
		for j+1 < len(runs) && runs[j+1] == runs[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, fmt.Sprint(runs[i]))
		case j == i+1:
			parts = append(parts, fmt.Sprint(runs[i]), fmt.Sprint(runs[j]))
		default:
			parts = append(parts, fmt.Sprintf("%d–%d", runs[i], runs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
