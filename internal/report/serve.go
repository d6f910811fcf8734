package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	units "github.com/docker/go-units"

	"manydb/internal/job"
	"manydb/internal/results"
)

// ladderText is a step's rate for a table of a rate ladder: at (before a
// rate) or closed (before "closed loop") and its text; "" without a
// ladder, whose one rate the study's line gives.
func (t *table) ladderText(rate float64, at, closed string) string {
	switch {
	case !t.rateLadder():
		return ""
	case rate == 0:
		return closed + rateText(rate)
	}
	return at + rateText(rate)
}

// perSecondLabel is the row of the requests served per second (for the
// open loop, the rate achieved).
const perSecondLabel = "Requests per second"

type serveRow struct {
	label string
	value func(s *results.Serve) string
	// limit: a figure of the memory cgroup's limit, which a step the
	// OOM killer ended has too.
	limit bool
	// record, when set, gives the row's value from the whole record (a
	// figure kept beside the serve's, as its retries) instead of value.
	record func(r *results.Record) string
}

// of is the row's value for a serve record.
func (r serveRow) of(rec *results.Record) string {
	if r.record != nil {
		return r.record(rec)
	}
	return r.value(rec.Serve)
}

// ofServe gives a value of a serve record's serve figures.
func ofServe(value func(s *results.Serve) string) func(*results.Record) string {
	return func(r *results.Record) string { return value(r.Serve) }
}

// serveRows are the rows of a step's block (serveRows), with the open
// loop's rows when a step of it kept them, and the memory limit's rows
// when a step of it ran under one.
func (t *table) serveRows(st serveStep) []serveRow {
	rows := serveRows(t.stoppedEarly(st))
	if t.keptAchieved(st) { // under the rate achieved
		i := slices.IndexFunc(rows, func(r serveRow) bool { return r.label == perSecondLabel })
		rows = slices.Insert(rows, i+1, openLoopRows()...)
	}
	if t.limited(st) {
		rows = append(rows, limitRows()...)
	}
	if t.splitServes(st) {
		rows = append(rows, serveRow{label: "Worker processes (--procs)", value: func(s *results.Serve) string { return strconv.Itoa(max(len(s.Procs), 1)) }})
	}
	if t.retriedIn(st) {
		rows = append(rows, serveRow{label: "Requests the server refused unrun, sent again", record: func(r *results.Record) string { return thousands(float64(r.Retries)) }})
	}
	return rows
}

// retriedIn tells whether a serve record of step st counts requests its
// client sent again (results.Record.Retries: sqld's pool).
func (t *table) retriedIn(st serveStep) bool {
	for _, v := range t.variants {
		for _, r := range t.columns[v].serves() {
			if stepOf(r.Serve) == st && r.Retries > 0 {
				return true
			}
		}
	}
	return false
}

// splitServes tells whether the serve step was split over several worker
// processes (--procs) in any column.
func (t *table) splitServes(st serveStep) bool {
	for _, v := range t.variants {
		for _, r := range t.columns[v].serves() {
			if stepOf(r.Serve) == st && len(r.Serve.Procs) > 1 {
				return true
			}
		}
	}
	return false
}

// limited tells whether the serve step ran under a memory limit (serve
// --memory-max) in any column.
func (t *table) limited(st serveStep) bool {
	for _, v := range t.variants {
		for _, r := range t.columns[v].serves() {
			if stepOf(r.Serve) == st && r.Serve.Limit != nil {
				return true
			}
		}
	}
	return false
}

// pageBytes is the size of the pages the cgroup counts (refaults,
// reclaim) on the machines manydb runs on.
const pageBytes = 4096

// limitRows are the figures of a serve step under a memory limit, over
// the whole step (warm-up included), from the worker's cgroup; a step
// without a limit reads "n/a" in each (limitRow).
func limitRows() []serveRow {
	return []serveRow{
		{label: "Memory limit (cgroup)", limit: true, value: func(s *results.Serve) string {
			if s.Limit == nil {
				return "none"
			}
			return units.BytesSize(float64(s.Limit.LimitBytes)) + " (" + cgroupVersion(s.Limit) + ")"
		}},
		limitRow("Charged to the cgroup, peak", func(l *results.MemoryLimit, _ *results.Serve) string {
			if l.PeakBytes == 0 {
				return "n/a"
			}
			return mb(float64(l.PeakBytes) / 1024)
		}),
		limitRow("Limit reached (times)", func(l *results.MemoryLimit, _ *results.Serve) string {
			if l.LimitHits < 0 {
				return "n/a (v1: see the peak)"
			}
			return thousands(float64(l.LimitHits))
		}),
		limitRow("Refaults: MB / pages per request", func(l *results.MemoryLimit, s *results.Serve) string {
			if l.RefaultPages < 0 {
				return "n/a (not counted)"
			}
			text := fmt.Sprintf("%.1f", float64(l.RefaultPages*pageBytes)/(1<<20))
			if n := s.Warmup + s.Served(); n > 0 {
				text += fmt.Sprintf(" / %.1f", float64(l.RefaultPages)/float64(n))
			}
			return text
		}),
		limitRow("Pages reclaimed", func(l *results.MemoryLimit, _ *results.Serve) string {
			if l.ReclaimedPages < 0 {
				return "n/a (v1: no count)"
			}
			return thousands(float64(l.ReclaimedPages))
		}),
		limitRow("OOM kills", func(l *results.MemoryLimit, _ *results.Serve) string {
			return thousands(float64(l.OOMKills))
		}),
	}
}

// limitRow is a row of a memory limit's figure: "n/a" for a step without
// a limit, else value of the step's limit.
func limitRow(label string, value func(l *results.MemoryLimit, s *results.Serve) string) serveRow {
	return serveRow{label: label, limit: true, value: func(s *results.Serve) string {
		if s.Limit == nil {
			return "n/a"
		}
		return value(s.Limit, s)
	}}
}

func cgroupVersion(l *results.MemoryLimit) string {
	if l.V2 {
		return "v2"
	}
	return "v1"
}

// serveCell is row r's text of variant v's step of the pool size: as
// serveText (a skipped step's reason in skippedServeNote, below the table:
// a reason per cell would widen it), but a limit's figure of a step the
// OOM killer ended too.
func (t *table) serveCell(v string, st serveStep, r serveRow) string {
	if r.limit {
		for _, rec := range t.columns[v].serves() {
			if stepOf(rec.Serve) == st && rec.Status == results.StatusOOMKilled {
				return r.of(rec)
			}
		}
	}
	return t.serveText(v, st, r.of, false)
}

// skippedServeNote names each serve step skipped before it started, with
// its record's reason ("" when none); a variant that is n/a altogether has
// its reason in the n/a notes instead.
func (t *table) skippedServeNote() string {
	var parts []string
	for _, v := range t.variants {
		c := t.columns[v]
		for _, r := range c.serves() {
			if !c.na && r.Status != results.StatusOK && r.Status != results.StatusOOMKilled {
				parts = append(parts, fmt.Sprintf("%s, pool of %s%s: %s", v, thousands(float64(r.Serve.Pool)), t.ladderText(r.Serve.Rate, " at ", ", "), r.Error))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Skipped before they started: " + strings.Join(parts, "; ") + "."
}

// poolTime writes a time limit in seconds as Go writes a duration (20m0s).
func poolTime(s float64) string {
	return time.Duration(s * float64(time.Second)).String()
}

// stoppedEarly tells whether the serve step stopped early at its time
// limit in any column.
func (t *table) stoppedEarly(st serveStep) bool {
	for _, v := range t.variants {
		for _, r := range t.columns[v].serves() {
			if r.Status == results.StatusOK && stepOf(r.Serve) == st && r.Serve.StoppedEarly {
				return true
			}
		}
	}
	return false
}

// serveRows are the rows of a pool size's block; stopped adds a first row
// saying how many requests each step served, for a block where a step
// stopped early at its time limit. Every figure is of the requests served.
func serveRows(stopped bool) []serveRow {
	perSec := func(n int64, s *results.Serve) string { return thousands(float64(n) / s.WallS) }
	var rows []serveRow
	if stopped {
		rows = append(rows, serveRow{label: "Requests served", value: func(s *results.Serve) string {
			if !s.StoppedEarly {
				return thousands(float64(s.Requests))
			}
			return fmt.Sprintf("%s of %s, stopped early at the %s limit", thousands(float64(s.Done)), thousands(float64(s.Requests)), poolTime(s.PoolTimeS))
		}})
	}
	return append(rows, []serveRow{
		{label: "Latency p50", value: func(s *results.Serve) string { return millis(serveP50(s), 3) }},
		{label: "p90", value: func(s *results.Serve) string { return millis(s.P90Ms, 3) }},
		{label: "p99", value: func(s *results.Serve) string { return millis(serveP99(s), 3) }},
		{label: "p99.9", value: func(s *results.Serve) string { return millis(s.P999Ms, 3) }},
		{label: "max", value: func(s *results.Serve) string { return millis(s.MaxMs, 3) }},
		{label: perSecondLabel, value: func(s *results.Serve) string { return thousands(servePerSecond(s)) }},
		{label: "Pool hit rate", value: func(s *results.Serve) string { return fmt.Sprintf("%.1f %%", serveHitRate(s)) }},
		{label: "same, one request at a time (LRU)", value: lruHitRate},
		{label: "Opens per second", value: func(s *results.Serve) string { return perSec(s.Opens, s) }},
		{label: "Closes per second", value: func(s *results.Serve) string { return perSec(s.Closes, s) }},
		{label: "Most stores open at once", value: func(s *results.Serve) string { return thousands(float64(s.MaxOpen)) }},
		{label: "Resident memory, end / peak", value: func(s *results.Serve) string { return mb(last(s.RssKB)) + " / " + mb(servePeakRSS(s)) }},
		{label: "Anonymous memory, end / peak", value: func(s *results.Serve) string { return mb(last(s.AnonKB)) + " / " + mb(peak(s.AnonKB)) }},
		{label: "Threads, end / peak", value: func(s *results.Serve) string { return fmt.Sprintf("%d / %d", lastInt(s.Threads), peakInt(s.Threads)) }},
		{label: "Open files, end / peak", value: func(s *results.Serve) string { return fmt.Sprintf("%d / %d", lastInt(s.FDs), peakInt(s.FDs)) }},
		{label: "Errors", value: func(s *results.Serve) string { return "0" }}, // a wrong answer fails the phase
	}...)
}

// lruHitRate is the hit rate a pool of the step's size would have served
// its requests one at a time (results.Serve.LRUHits); – in records made
// before it was computed.
func lruHitRate(s *results.Serve) string {
	if s.LRUHits == 0 && s.Pool > 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(s.LRUHits)/float64(s.Requests))
}

func peakInt(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	return slices.Max(xs)
}
func lastInt(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	return xs[len(xs)-1]
}

// serveRowsHTML are the serve blocks as rows of one table: "pool P:
// figure" ("pool P at R requests/s: figure" for a ladder).
func (t *table) serveRowsHTML() [][]string {
	var rows [][]string
	for _, st := range t.serveSteps() {
		for _, sr := range t.serveRows(st) {
			row := []string{fmt.Sprintf("pool %s%s: %s", thousands(float64(st.pool)), t.ladderText(st.rate, " at ", ", "), sr.label)}
			for _, v := range t.variants {
				row = append(row, t.serveCell(v, st, sr))
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// storesFromLine says whose stores variant v served, when not only its
// own: the stores another study kept, for every pool or (when a resumed
// session made the stores again) for some. "" when v made its stores.
// Serve records name the study whose stores they served (stores_from);
// in older files only the create record does, for every pool.
func (t *table) storesFromLine(v string) string {
	c := t.columns[v]
	var kept, own []string
	from := c.storesFrom
	for _, r := range c.serves() {
		pool := thousands(float64(r.Serve.Pool))
		switch {
		case r.Status != results.StatusOK:
		case r.StoresFrom == "": // an older record: the create record tells
			if c.storesFrom != "" {
				kept = append(kept, pool)
			}
		case r.StoresFrom == r.Study:
			own = append(own, pool)
		default:
			kept, from = append(kept, pool), r.StoresFrom
		}
	}
	switch {
	case len(kept) == 0:
		return ""
	case len(own) == 0:
		return fmt.Sprintf("%s served the stores kept by study %s (no create phase of its own).", v, from)
	}
	return fmt.Sprintf("%s served the stores kept by study %s with pools %s, and stores it made again (after a resume; that create is not recorded) with pools %s.",
		v, from, strings.Join(kept, ", "), strings.Join(own, ", "))
}

// servePools returns the pool sizes of the table's serve records, sorted.
func (t *table) servePools() []int {
	var pools []int
	for _, v := range t.variants {
		for _, r := range t.columns[v].serves() {
			if !slices.Contains(pools, r.Serve.Pool) {
				pools = append(pools, r.Serve.Pool)
			}
		}
	}
	slices.Sort(pools)
	return pools
}

// serveSteps returns the steps (pool size and rate) of the table's serve
// records, by pool size, then rate (compareSteps).
func (t *table) serveSteps() []serveStep {
	var steps []serveStep
	for _, v := range t.variants {
		for _, r := range t.columns[v].serves() {
			if !slices.Contains(steps, stepOf(r.Serve)) {
				steps = append(steps, stepOf(r.Serve))
			}
		}
	}
	slices.SortFunc(steps, compareSteps)
	return steps
}

// serveText is what variant v shows for a step: value of its serve
// record (or, for a step whose time limit passed in its warm-up, that it
// stopped early), "skipped" (with the reason when why is set) for a pool skipped
// for memory, "failed" when a serve phase of v failed and this pool has no
// record, else "–".
func (t *table) serveText(v string, st serveStep, value func(r *results.Record) string, why bool) string {
	c := t.columns[v]
	for _, rec := range c.serves() {
		switch {
		case stepOf(rec.Serve) != st:
		case rec.Status == results.StatusOOMKilled: // why: oomNote, below the table
			return "OOM-killed"
		case rec.Status != results.StatusOK && why:
			return "skipped: " + rec.Error
		case rec.Status != results.StatusOK:
			return "skipped"
		case rec.Serve.Served() == 0:
			// The time limit passed in the warm-up: no figure.
			return fmt.Sprintf("stopped early: none of %s requests served in %s", thousands(float64(rec.Serve.Requests)), poolTime(rec.Serve.PoolTimeS))
		default:
			return value(rec)
		}
	}
	switch {
	case c.failed[job.PhaseServe]:
		return "failed"
	case c.na: // why: the n/a notes, below the table (a reason per cell would widen it)
		return "n/a"
	}
	return "–"
}

// oomNote says which serve steps the OOM killer ended, and why (their
// records say): "" when none.
func (t *table) oomNote() string {
	var parts []string
	for _, v := range t.variants {
		for _, r := range t.columns[v].serves() {
			if r.Status == results.StatusOOMKilled {
				parts = append(parts, fmt.Sprintf("%s, pool of %s%s: %s", v, thousands(float64(r.Serve.Pool)), t.ladderText(r.Serve.Rate, " at ", ", "), r.Error))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "OOM-killed (an outcome of the step under --memory-max, not a failure): " + strings.Join(parts, "; ") + "."
}

// serveStep is one step of a serve study: a pool size served at a rate
// (requests per second offered, open loop; 0: the closed loop).
type serveStep struct {
	pool int
	rate float64
}

func stepOf(s *results.Serve) serveStep { return serveStep{pool: s.Pool, rate: s.Rate} }

// compareSteps orders steps by pool size, then by rate, the closed loop
// (the heaviest load) last.
func compareSteps(a, b serveStep) int {
	return cmp.Or(cmp.Compare(a.pool, b.pool), cmp.Compare(ladderOrder(a.rate), ladderOrder(b.rate)))
}

// keptAchieved tells whether a record of the serve step kept the open
// loop's achieved rate (records made before it was kept have none).
func (t *table) keptAchieved(st serveStep) bool {
	for _, v := range t.variants {
		for _, r := range t.columns[v].serves() {
			if stepOf(r.Serve) == st && r.Serve.AchievedRate > 0 {
				return true
			}
		}
	}
	return false
}

// openLoopRows are the open loop's own figures of a step: the rate
// offered (the rate achieved is "Requests per second") and the senders
// it started.
func openLoopRows() []serveRow {
	return []serveRow{
		{label: "Requests per second offered (open loop)", value: func(s *results.Serve) string { return thousands(s.Rate) }},
		{label: "Senders started (open loop)", value: func(s *results.Serve) string { return thousands(float64(s.Senders)) }},
	}
}

// rateLadder tells whether the table's serve steps are at several rates.
func (t *table) rateLadder() bool {
	rates := map[float64]bool{}
	for _, st := range t.serveSteps() {
		rates[st.rate] = true
	}
	return len(rates) > 1
}
