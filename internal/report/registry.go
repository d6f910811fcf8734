package report

import (
	"manydb/internal/vector"
	"slices"
	"strings"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// A FigureName is a figure's machine name, as manydb tables, compare and
// the exports write it, and its key in Figures.Values. Other packages
// name the figures they read by the constants below, each next to its
// entry, so that a renamed or removed figure fails to compile there
// (TestFigureNamesAreRegistered checks that each names an entry).
type FigureName string

// figures is every figure and table row, in the tables' order (the
// exports, compare and the sweeps keep it too).
var figures = registry()

// registry lists every figure and table row. A figure at another
// statistic of the same samples (a p99) is made from its base's entry
// (sameAt), so that it knows its base and statistic.
func registry() []figure {
	return slices.Concat(openFigures(), cacheFigures(), turnFigures(), holdFigures(), ladderFigures(), deleteFigures(), serveFigures())
}

// The delete phase's figures other packages read.
const (
	FigureExportAgent FigureName = "export-agent"
	FigureDeleteAgent FigureName = "delete-agent"
	FigureDeleteFreed FigureName = "delete-freed"
)

// deleteFigures are the delete phase's: an agent exported to a file of
// its own, then deleted, and the space that gave back.
func deleteFigures() []figure {
	deleted := func(t *table) bool { return t.deleted }
	median := func(samples func(*results.Record) []float64) func(*results.Record) float64 {
		return func(r *results.Record) float64 { return stats.Median(samples(r)) }
	}
	exportMs := func(r *results.Record) []float64 { return r.ExportMs }
	deleteMs := func(r *results.Record) []float64 { return r.DeleteMs }
	return []figure{
		{name: string(FigureExportAgent), label: "Export an agent: its notes to a file of its own, synced (median)", unit: "ms", phase: job.PhaseDelete,
			samples: exportMs, value: median(exportMs), when: deleted, uses: exported | inOverview},
		{name: string(FigureDeleteAgent), label: "Delete an agent, space given back as the engine can (median)", unit: "ms", phase: job.PhaseDelete,
			samples: deleteMs, value: median(deleteMs), when: deleted, uses: exported | inOverview},
		{name: string(FigureDeleteFreed), base: "delete-agent", label: "same, space given back on disk (median)", unit: "KB", phase: job.PhaseDelete,
			samples: freedKB, value: median(freedKB), when: deleted, uses: exported},
	}
}

// The create's and the warm open runs' figures other packages read.
const (
	FigureCreate            FigureName = "create"
	FigureStoresPerSecond   FigureName = "stores-per-second"
	FigureKNN               FigureName = "knn"
	FigureOpenQueryClose    FigureName = "open-query-close"
	FigureOpenQueryCloseP99 FigureName = "open-query-close-p99"
	FigureKNNP99            FigureName = "knn-p99"
	FigureRecall            FigureName = "recall"
	FigureRecallP5          FigureName = "recall-p5"
	FigureRecallNone        FigureName = "recall-none"
	FigureKNNShort          FigureName = "knn-short"
)

// openFigures are the create's figures and the warm open runs'.
func openFigures() []figure {
	openQueryClose := warm(FigureOpenQueryClose, "Open, query, close (median)", totalMs, stats.Median, exported|swept|runSpread|drawn|inOverview)
	recent := warmIf("recent", "Recent 20 notes (median)", querySamples(job.QueryRecent), stats.Median, exported|drawn, made(job.QueryRecent))
	get := warmIf("get", "Get 10 notes by id (median)", querySamples(job.QueryGet), stats.Median, exported|drawn, made(job.QueryGet))
	scan := warmIf("scan", "Scan all notes (median)", querySamples(job.QueryScan), stats.Median, exported|drawn, made(job.QueryScan))
	knn := warmIf(FigureKNN, "knn: 10 nearest by embedding (median)", querySamples(job.QueryKNN), stats.Median, exported|drawn|inOverview, made(job.QueryKNN))
	recall := figure{name: string(FigureRecall), label: "knn recall@10 (mean)", unit: "%", phase: job.PhaseOpen, perRun: true, samples: recallPercent, stat: stats.Mean,
		when: made(job.QueryKNN), uses: exported | inOverview}
	return []figure{
		{name: string(FigureCreate), label: "Create, write {objects} objects, close (median)", unit: "ms", phase: job.PhaseCreate,
			samples: createMs, value: func(r *results.Record) float64 { return stats.Median(r.CreateMs) }, uses: exported | swept | drawn | inOverview},
		{name: string(FigureStoresPerSecond), label: "Stores per second", unit: "stores/s", phase: job.PhaseCreate,
			value: storesPerSecond, na: madeWithMoreStores, uses: exported},
		{label: "Warm open runs pooled", text: (*table).runsPooled},
		warm("open", "Open (median)", openMs, stats.Median, exported|swept|runSpread|drawn),
		// query is the span of every query between open and close: the count
		// alone without --queries, when the count row shows the same samples.
		warmIf("query", "Queries between open and close (median)", queryMs, stats.Median, exported|runSpread, (*table).showsCountInstead),
		warm("count", "Count query (median)", countSamples, stats.Median, exported|swept|runSpread|drawn),
		openQueryClose,
		sameAt(openQueryClose, string(FigureOpenQueryCloseP99), "p99", stats.P99, exported|swept|inOverview),
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
		sameAt(knn, string(FigureKNNP99), "p99", stats.P99, exported),
		recall,
		sameAt(recall, string(FigureRecallP5), "5th percentile", stats.P5, exported),
		sameAt(recall, "recall-below-50", "share of answers below 50 %", shareBelow(50), exported),
		sameAt(recall, string(FigureRecallNone), "share of answers that found none of the 10", shareBelow(100.0/vector.K), exported),
		{name: string(FigureKNNShort), label: "knn answers with fewer than 10 ids", unit: "%", phase: job.PhaseOpen, perRun: true, samples: shortAnswers, stat: stats.Mean,
			when: made(job.QueryKNN), uses: exported},
	}
}

// The cold open runs' figures other packages read.
const (
	FigureColdOpen           FigureName = "cold-open"
	FigureColdOpenQueryClose FigureName = "cold-open-query-close"
)

// cacheFigures are the figures of the open runs with a cold or dropped
// cache.
func cacheFigures() []figure {
	coldTotal := cached(job.CacheCold, FigureColdOpenQueryClose, "Open, query, close, cold cache (median)", totalMs, stats.Median, exported)
	dropTotal := cached(job.CacheDrop, "drop-open-query-close", "Open, query, close, drop cache (median)", totalMs, stats.Median, 0)
	return []figure{
		cached(job.CacheCold, FigureColdOpen, "Open, cold cache (median)", openMs, stats.Median, exported|drawn|inOverview),
		coldTotal,
		sameAt(coldTotal, "cold-open-query-close-p99", "p99", stats.P99, 0),
		coldKNN(cached(job.CacheCold, "cold-knn", "knn, cold cache (median)", querySamples(job.QueryKNN), stats.Median, exported)),
		{name: "cold-resident", label: "Store pages resident before a cold open (median)", unit: "%", phase: job.PhaseOpen, cache: job.CacheCold,
			perRun: true, samples: residentPercent, stat: stats.Median, when: madeCache(job.CacheCold)},
		cached(job.CacheDrop, "drop-open", "Open, drop cache (median)", openMs, stats.Median, 0),
		dropTotal,
		sameAt(dropTotal, "drop-open-query-close-p99", "p99", stats.P99, 0),
	}
}

// The turn runs' figures other packages read.
const (
	FigureTurn       FigureName = "turn"
	FigureTurnP99    FigureName = "turn-p99"
	FigureTurnAppend FigureName = "turn-append"
)

// turnFigures are the turn runs' figures.
func turnFigures() []figure {
	turnTotal := turn(FigureTurn, "Turn: open, recent, append, close (median)", totalMs, stats.Median, exported|drawn|inOverview)
	turnAppend := turn(FigureTurnAppend, "Turn: append, own transaction (median)", querySamples(job.QueryAppend), stats.Median, exported)
	turnRecall := turn("turn-recall", "Turn: knn recall@10 (mean)", recallPercent, stats.Mean, exported)
	turnRecall.unit = "%"
	return []figure{
		{label: "Turn runs pooled", text: (*table).turnRunsPooled, when: (*table).madeTurns},
		turnTotal,
		sameAt(turnTotal, string(FigureTurnP99), "p99", stats.P99, exported|inOverview),
		turn("turn-recent", "Turn: recent (median)", querySamples(job.QueryRecent), stats.Median, 0),
		turnAppend,
		sameAt(turnAppend, "turn-append-p99", "p99", stats.P99, 0),
		turnKNN(turn("turn-knn", "Turn: knn for the new note (median)", querySamples(job.QueryKNN), stats.Median, exported)),
		turnKNN(turnRecall),
	}
}

// The hold's and the space's figures other packages read.
const (
	FigureRSSPerOpenStore         FigureName = "rss-per-open-store"
	FigureAnonPerOpenStore        FigureName = "anon-per-open-store"
	FigureContainerPerOpenStore   FigureName = "container-per-open-store"
	FigurePthreadKeysPerOpenStore FigureName = "pthread-keys-per-open-store"
	FigureSpacePerStore           FigureName = "space-per-store"
)

// holdFigures are the hold's figures (memory, the n-th open, the limits)
// and, in the tables' order among them, the load and the space rows.
func holdFigures() []figure {
	return []figure{
		{name: string(FigureRSSPerOpenStore), label: "Memory per open store ({held} open), resident", unit: "KB", phase: job.PhaseHold,
			value: held(func(h *results.Hold) float64 { return h.RssKB }), uses: exported | swept},
		{name: string(FigureAnonPerOpenStore), base: string(FigureRSSPerOpenStore), label: "same, anonymous (process' own memory)", unit: "KB", phase: job.PhaseHold,
			value: held(func(h *results.Hold) float64 { return h.AnonKB }), uses: exported | swept | inOverview},
		{name: string(FigureContainerPerOpenStore), label: "Memory charged to a container per open store", unit: "KB", phase: job.PhaseHold,
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
		{name: "open-growth-per-1000-open-in-process", base: "open-held-first10", label: "same, growth per 1,000 open in its own process (slope, median of the processes)", unit: "µs", phase: job.PhaseHold,
			value: openGrowthInProcess, when: (*table).splitHolds, uses: exported},
		{label: "Load at start of the warm open runs (max)", text: (*table).loadAtStart},
		{label: "Requests the server refused unrun, sent again (by phase)", text: (*table).retriesByPhase, when: (*table).retried},
		{name: string(FigureSpacePerStore), label: "Space per store, files", unit: "KB", phase: job.PhaseSpace,
			value: spacePerStore, uses: exported | swept | inOverview},
		{label: "Threads, open files, goroutines per open store", phase: job.PhaseHold, text: (*table).perOpenStore},
		// a hold split over several worker processes (--procs)
		{name: "hold-processes", label: "Worker processes holding the {held} stores (--procs)", unit: "processes", phase: job.PhaseHold,
			value: held(holdProcesses), na: oneProcess, when: (*table).splitHolds, uses: exported},
		{name: "pss-per-worker-process", base: "hold-processes", label: "same, each one's memory with no store open (Pss, median)", unit: "KB", phase: job.PhaseHold,
			value: held(workerPss), when: (*table).splitHolds, uses: exported},
		{base: "hold-processes", label: "same, chosen by (--procs auto)", phase: job.PhaseHold, text: (*table).procsChosenBy, when: (*table).splitHolds},
		// the limits open stores use up besides memory (results.Hold.Walls)
		{name: "mappings-per-open-store", label: "Memory mappings per open store", unit: "mappings", phase: job.PhaseHold,
			value: held(mappingsPerStore), na: limitsNotRecorded, when: (*table).recordedLimits, uses: exported},
		{name: string(FigurePthreadKeysPerOpenStore), label: "pthread keys per open store", unit: "keys", phase: job.PhaseHold,
			value: held(pthreadKeysPerStore), na: pthreadKeysNA, when: (*table).recordedLimits, uses: exported},
		{name: "open-stores-until-limit", label: "Open stores until the first limit here, in the hold's processes together", unit: "stores", phase: job.PhaseHold,
			value: held(storesUntilLimit), na: noWall, when: (*table).recordedLimits, uses: exported},
		{base: "open-stores-until-limit", label: "same, which limit (per open store; left before the first open)", phase: job.PhaseHold, text: (*table).firstLimit, when: (*table).recordedLimits},
	}
}

// serve's figures other packages read.
const (
	FigureServeP99               FigureName = "serve-p99"
	FigureServeRequestsPerSecond FigureName = "serve-requests-per-second"
	FigureServeHitRate           FigureName = "serve-hit-rate"
	FigureServePeakRSS           FigureName = "serve-peak-rss"
	FigureServePeakAnon          FigureName = "serve-peak-anon"
)

// serveFigures are serve's figures (manydb serve).
func serveFigures() []figure {
	return []figure{
		// serve's figures (manydb serve): one value per pool size, shown in
		// serve's own tables (serve.go), not in a study's rows.
		{name: "serve-p50", label: "Serve: latency p50", unit: "ms", phase: job.PhaseServe, value: served(serveP50), uses: exported},
		{name: string(FigureServeP99), label: "Serve: latency p99", unit: "ms", phase: job.PhaseServe, value: served(serveP99), uses: exported},
		{name: string(FigureServeRequestsPerSecond), label: "Serve: requests per second", unit: "requests/s", phase: job.PhaseServe, value: served(servePerSecond), uses: exported},
		{name: string(FigureServeHitRate), label: "Serve: pool hit rate", unit: "%", phase: job.PhaseServe, value: served(serveHitRate), uses: exported},
		{name: string(FigureServePeakRSS), label: "Serve: resident memory of the worker, peak", unit: "KB", phase: job.PhaseServe, value: served(servePeakRSS), uses: exported},
		{name: string(FigureServePeakAnon), label: "Serve: anonymous memory of the worker, peak", unit: "KB", phase: job.PhaseServe, value: served(servePeakAnon), uses: exported},
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

// splitHolds tells whether a hold of the table was split over several
// worker processes (the rows of --procs are left out of other tables).
func (t *table) splitHolds() bool {
	for _, c := range t.columns {
		for _, r := range c.records(job.PhaseHold, "") {
			if r.Hold != nil && (len(r.Hold.Procs) > 1 || r.Hold.ProcsChosenBy != nil) {
				return true
			}
		}
	}
	return false
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
func warm(name FigureName, label string, samples func(r *results.Record) []float64, stat func([]float64) float64, uses use) figure {
	return figure{name: string(name), label: label, unit: "ms", phase: job.PhaseOpen, perRun: true, samples: samples, stat: stat, uses: uses}
}

// warmIf is a timing figure of the warm open runs that a table shows only
// when it made what when says.
func warmIf(name FigureName, label string, samples func(r *results.Record) []float64, stat func([]float64) float64, uses use, when func(t *table) bool) figure {
	f := warm(name, label, samples, stat, uses)
	f.when = when
	return f
}

// cached is a timing figure of the open runs of a cache mode, shown when
// the table has such runs and not when the stores were not cold.
func cached(mode job.CacheMode, name FigureName, label string, samples func(r *results.Record) []float64, stat func([]float64) float64, uses use) figure {
	f := warm(name, label, samples, stat, uses)
	f.cache, f.na, f.when = mode, notCold, madeCache(mode)
	return f
}

// turn is a timing figure of the turn runs.
func turn(name FigureName, label string, samples func(r *results.Record) []float64, stat func([]float64) float64, uses use) figure {
	return figure{name: string(name), label: label, unit: "ms", phase: job.PhaseTurn, perRun: true, samples: samples, stat: stat,
		when: (*table).madeTurns, uses: uses}
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

// PhaseOf is the phase whose records give figure name ("" for no figure
// of that name).
func PhaseOf(name string) job.Phase { return figureNamed(name).phase }
