package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	units "github.com/docker/go-units"

	"manydb/internal/job"
	"manydb/internal/results"
)

// writeServe writes a manydb serve study: one block of rows per pool size
// (columns: variants), then the summary "p99 latency and memory per pool
// size".
func (t *table) writeServe(w io.Writer) {
	fmt.Fprintf(w, "## Serve s%s\n\n", t.title()[1:])
	fmt.Fprintf(w, "Workload %s. %s; each request: open or take the agent's store, its 20 newest notes, one note appended, give it back.\n\n", t.workload, t.serveConfigText())
	if s := t.sessionsLine(); s != "" {
		fmt.Fprintf(w, "%s\n\n", s)
	}
	pools := t.servePools()
	for _, pool := range pools {
		fmt.Fprintf(w, "### Pool of %s open stores\n\n", thousands(float64(pool)))
		fmt.Fprintf(w, "| |%s|\n", " "+strings.Join(t.variants, " | ")+" ")
		fmt.Fprintf(w, "| --- |%s\n", strings.Repeat(" --- |", len(t.variants)))
		for _, r := range t.serveRows(pool) {
			vals := make([]string, len(t.variants))
			for i, v := range t.variants {
				vals[i] = t.serveCell(v, pool, r)
			}
			fmt.Fprintf(w, "| %s | %s |\n", r.label, strings.Join(vals, " | "))
		}
		fmt.Fprintln(w)
	}
	t.writeServeSummary(w, pools)
	for _, line := range []string{t.oomNote(), t.notWarmNote()} {
		if line != "" {
			fmt.Fprintln(w, line)
		}
	}
	t.writeNA(w)
	for _, v := range t.variants {
		if line := t.storesFromLine(v); line != "" {
			fmt.Fprintln(w, line)
		}
	}
	if len(t.loud) > 0 {
		fmt.Fprintf(w, "The load rose to --max-load or above during: %s.\n", strings.Join(t.loud, ", "))
	}
	t.writeDuplicates(w)
	t.writeRenamed(w)
	fmt.Fprintf(w, "Versions: %s.\n", t.versions())
	t.writeEngineOptions(w)
	t.writeSessions(w)
}

// serveConfigText describes the traffic of the study's first served
// pool size: requests, warm-up, goroutines, Zipf exponent, loop, time
// limit and memory limit.
func (t *table) serveConfigText() string {
	for _, v := range t.variants {
		for _, r := range t.columns[v].serves() {
			if r.Status != results.StatusOK {
				continue
			}
			s := r.Serve
			cfg := fmt.Sprintf("%s requests per pool size (after a warm-up of %s), %d goroutines, Zipf s = %g, %s", thousands(float64(s.Requests)),
				thousands(float64(s.Warmup)), s.Concurrency, s.Zipf, loop(s.Rate))
			if s.PoolTimeS > 0 {
				cfg += fmt.Sprintf(", at most %s per pool size (--pool-time; a step that reached it stopped early, and its figures are of the requests it served)", poolTime(s.PoolTimeS))
			}
			if s.Limit != nil {
				cfg += fmt.Sprintf(", each pool size's worker in a memory cgroup (%s) limited to %s (--memory-max; the stores' files evicted from the page cache first)", cgroupVersion(s.Limit), units.BytesSize(float64(s.Limit.LimitBytes)))
			}
			return cfg
		}
	}
	return ""
}

// writeServeSummary writes "p99 latency and memory per pool size" (a row
// per pool size) and each variant's memory per open store from its hold.
func (t *table) writeServeSummary(w io.Writer, pools []int) {
	fmt.Fprintln(w, "### p99 latency and memory per pool size")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Each cell: p99 latency / peak resident memory of the worker.")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| pool |%s|\n", " "+strings.Join(t.variants, " | ")+" ")
	fmt.Fprintf(w, "| --- |%s\n", strings.Repeat(" --- |", len(t.variants)))
	for _, pool := range pools {
		vals := make([]string, len(t.variants))
		for i, v := range t.variants {
			vals[i] = t.serveText(v, pool, func(s *results.Serve) string {
				text := millis(serveP99(s), 2) + " / " + mb(servePeakRSS(s))
				if s.StoppedEarly {
					text += fmt.Sprintf(" (stopped early: %s of %s requests)", thousands(float64(s.Done)), thousands(float64(s.Requests)))
				}
				return text
			}, true)
		}
		fmt.Fprintf(w, "| %s | %s |\n", thousands(float64(pool)), strings.Join(vals, " | "))
	}
	fmt.Fprintln(w)
	for _, v := range t.variants {
		if h := t.columns[v].last(job.PhaseHold); h != nil {
			fmt.Fprintf(w, "%s: %s KB resident per open store (hold phase, %d open). ", v, thousands(h.Hold.RssKB), h.Hold.Held)
		}
	}
	fmt.Fprintln(w)
}

func loop(rate float64) string {
	if rate > 0 {
		return fmt.Sprintf("open loop at %s requests/s (latency from each request's due time)", thousands(rate))
	}
	return "closed loop"
}

type serveRow struct {
	label string
	value func(s *results.Serve) string
	// limit: a figure of the memory cgroup's limit, which a step the
	// OOM killer ended has too.
	limit bool
}

// serveRows are the rows of a pool size's block (serveRows), with the
// memory limit's rows when a step of it ran under one.
func (t *table) serveRows(pool int) []serveRow {
	rows := serveRows(t.stoppedEarly(pool))
	if t.limited(pool) {
		rows = append(rows, limitRows()...)
	}
	if t.splitServes(pool) {
		rows = append(rows, serveRow{"Worker processes (--procs)", func(s *results.Serve) string { return strconv.Itoa(max(len(s.Procs), 1)) }, false})
	}
	return rows
}

// splitServes tells whether a serve step of the pool size was split over
// several worker processes (--procs) in any column.
func (t *table) splitServes(pool int) bool {
	for _, v := range t.variants {
		for _, r := range t.columns[v].serves() {
			if r.Serve.Pool == pool && len(r.Serve.Procs) > 1 {
				return true
			}
		}
	}
	return false
}

// limited tells whether a serve step of the pool size ran under a memory
// limit (serve --memory-max) in any column.
func (t *table) limited(pool int) bool {
	for _, v := range t.variants {
		for _, r := range t.columns[v].serves() {
			if r.Serve.Pool == pool && r.Serve.Limit != nil {
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
func (t *table) serveCell(v string, pool int, r serveRow) string {
	if r.limit {
		for _, rec := range t.columns[v].serves() {
			if rec.Serve.Pool == pool && rec.Status == results.StatusOOMKilled {
				return r.value(rec.Serve)
			}
		}
	}
	return t.serveText(v, pool, r.value, false)
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
				parts = append(parts, fmt.Sprintf("%s, pool of %s: %s", v, thousands(float64(r.Serve.Pool)), r.Error))
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

// stoppedEarly tells whether a serve step of the pool size stopped early
// at its time limit in any column.
func (t *table) stoppedEarly(pool int) bool {
	for _, v := range t.variants {
		for _, r := range t.columns[v].serves() {
			if r.Status == results.StatusOK && r.Serve.Pool == pool && r.Serve.StoppedEarly {
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
		{"Latency p50", func(s *results.Serve) string { return millis(serveP50(s), 3) }, false},
		{"p90", func(s *results.Serve) string { return millis(s.P90Ms, 3) }, false},
		{"p99", func(s *results.Serve) string { return millis(serveP99(s), 3) }, false},
		{"p99.9", func(s *results.Serve) string { return millis(s.P999Ms, 3) }, false},
		{"max", func(s *results.Serve) string { return millis(s.MaxMs, 3) }, false},
		{"Requests per second", func(s *results.Serve) string { return thousands(servePerSecond(s)) }, false},
		{"Pool hit rate", func(s *results.Serve) string { return fmt.Sprintf("%.1f %%", serveHitRate(s)) }, false},
		{"same, one request at a time (LRU)", lruHitRate, false},
		{"Opens per second", func(s *results.Serve) string { return perSec(s.Opens, s) }, false},
		{"Closes per second", func(s *results.Serve) string { return perSec(s.Closes, s) }, false},
		{"Most stores open at once", func(s *results.Serve) string { return thousands(float64(s.MaxOpen)) }, false},
		{"Resident memory, end / peak", func(s *results.Serve) string { return mb(last(s.RssKB)) + " / " + mb(servePeakRSS(s)) }, false},
		{"Anonymous memory, end / peak", func(s *results.Serve) string { return mb(last(s.AnonKB)) + " / " + mb(peak(s.AnonKB)) }, false},
		{"Threads, end / peak", func(s *results.Serve) string { return fmt.Sprintf("%d / %d", lastInt(s.Threads), peakInt(s.Threads)) }, false},
		{"Open files, end / peak", func(s *results.Serve) string { return fmt.Sprintf("%d / %d", lastInt(s.FDs), peakInt(s.FDs)) }, false},
		{"Errors", func(s *results.Serve) string { return "0" }, false}, // a wrong answer fails the phase
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

// serveRowsHTML are the serve blocks as rows of one table: "pool P: figure".
func (t *table) serveRowsHTML() [][]string {
	var rows [][]string
	for _, pool := range t.servePools() {
		for _, sr := range t.serveRows(pool) {
			row := []string{fmt.Sprintf("pool %s: %s", thousands(float64(pool)), sr.label)}
			for _, v := range t.variants {
				row = append(row, t.serveCell(v, pool, sr))
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

// serveText is what variant v shows for a pool size: value of its serve
// record (or, for a step whose time limit passed in its warm-up, that it
// stopped early), "skipped" (with the reason when why is set) for a pool skipped
// for memory, "failed" when a serve phase of v failed and this pool has no
// record, else "–".
func (t *table) serveText(v string, pool int, value func(s *results.Serve) string, why bool) string {
	c := t.columns[v]
	for _, rec := range c.serves() {
		switch {
		case rec.Serve.Pool != pool:
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
			return value(rec.Serve)
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
				parts = append(parts, fmt.Sprintf("%s, pool of %s: %s", v, thousands(float64(r.Serve.Pool)), r.Error))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "OOM-killed (an outcome of the step under --memory-max, not a failure): " + strings.Join(parts, "; ") + "."
}
