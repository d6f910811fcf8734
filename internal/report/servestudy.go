package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

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
	steps := t.serveSteps()
	for _, st := range steps {
		fmt.Fprintf(w, "### Pool of %s open stores%s\n\n", thousands(float64(st.pool)), t.ladderText(st.rate, " at ", ", "))
		fmt.Fprintf(w, "| |%s|\n", " "+strings.Join(t.variants, " | ")+" ")
		fmt.Fprintf(w, "| --- |%s\n", strings.Repeat(" --- |", len(t.variants)))
		for _, r := range t.serveRows(st) {
			vals := make([]string, len(t.variants))
			for i, v := range t.variants {
				vals[i] = t.serveCell(v, st, r)
			}
			fmt.Fprintf(w, "| %s | %s |\n", r.label, strings.Join(vals, " | "))
		}
		fmt.Fprintln(w)
	}
	t.writeServeSummary(w, steps)
	t.writeRateLadder(w)
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
// step: requests, warm-up, goroutines, Zipf exponent, loop, time
// limit and memory limit.
func (t *table) serveConfigText() string {
	for _, v := range t.variants {
		for _, r := range t.columns[v].serves() {
			if r.Status != results.StatusOK {
				continue
			}
			s := r.Serve
			step := "pool size"
			if t.rateLadder() {
				step = "step (a pool size at a rate)"
			}
			cfg := fmt.Sprintf("%s requests per %s (after a warm-up of %s), %d goroutines, Zipf s = %g, %s", thousands(float64(s.Requests)), step,
				thousands(float64(s.Warmup)), s.Concurrency, s.Zipf, t.loopText(s.Rate))
			if s.PoolTimeS > 0 {
				cfg += fmt.Sprintf(", at most %s per %s (--pool-time; a step that reached it stopped early, and its figures are of the requests it served)", poolTime(s.PoolTimeS), step)
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
// per pool size, or per pool size and rate of a ladder) and each
// variant's memory per open store from its hold.
func (t *table) writeServeSummary(w io.Writer, steps []serveStep) {
	fmt.Fprintln(w, "### p99 latency and memory per pool size")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Each cell: p99 latency / peak resident memory of the worker.")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| pool |%s|\n", " "+strings.Join(t.variants, " | ")+" ")
	fmt.Fprintf(w, "| --- |%s\n", strings.Repeat(" --- |", len(t.variants)))
	for _, st := range steps {
		vals := make([]string, len(t.variants))
		for i, v := range t.variants {
			vals[i] = t.serveText(v, st, ofServe(func(s *results.Serve) string {
				text := millis(serveP99(s), 2) + " / " + mb(servePeakRSS(s))
				if s.StoppedEarly {
					text += fmt.Sprintf(" (stopped early: %s of %s requests)", thousands(float64(s.Done)), thousands(float64(s.Requests)))
				}
				return text
			}), true)
		}
		fmt.Fprintf(w, "| %s%s | %s |\n", thousands(float64(st.pool)), t.ladderText(st.rate, " at ", ", "), strings.Join(vals, " | "))
	}
	fmt.Fprintln(w)
	for _, v := range t.variants {
		if h := t.columns[v].last(job.PhaseHold); h != nil {
			fmt.Fprintf(w, "%s: %s KB resident per open store (hold phase, %d open). ", v, thousands(h.Hold.RssKB), h.Hold.Held)
		}
	}
	fmt.Fprintln(w)
}

// loopText describes the loop of the study's steps: closed, open at a
// rate, or a ladder of rates.
func (t *table) loopText(rate float64) string {
	if t.rateLadder() {
		var rates []string
		steps := t.serveSteps()
		for _, st := range steps {
			if st.pool == steps[0].pool {
				rates = append(rates, rateText(st.rate))
			}
		}
		return "each pool size at each rate of a ladder (" + strings.Join(rates, ", ") + "; open loop, latency from each request's due time)"
	}
	if rate > 0 {
		return fmt.Sprintf("open loop at %s requests/s (latency from each request's due time)", thousands(rate))
	}
	return "closed loop"
}

// saturationShare is the share of the offered rate below which a rung of
// a rate ladder counts as saturated (docs/method.md).
const saturationShare = 0.95

// Saturated tells whether the open-loop step s is past its engine's
// saturation point: it served less than saturationShare of the rate
// offered, or its p99 is above closedP99 (the same pool's closed loop;
// NaN when there is none). manydb advise reads a ladder by the same rule.
func Saturated(s *results.Serve, closedP99 float64) bool {
	return servePerSecond(s) < saturationShare*s.Rate || serveP99(s) > closedP99
}

// ladderCaption says what the table of latency against the offered rate
// shows, and the saturation point's rule.
var ladderCaption = fmt.Sprintf("Each cell: p50 / p99 latency (from each request's due time) and the requests served per second. Saturates at: the first rate served at under %.0f %% of the rate offered, or with a p99 above the same pool's closed loop.", 100*saturationShare)

// writeRateLadder writes, for a study with a rate ladder, a table per
// pool size of p50 / p99 latency against the offered rate (rows) per
// variant (columns), ending with each variant's saturation point.
func (t *table) writeRateLadder(w io.Writer) {
	if !t.rateLadder() {
		return
	}
	fmt.Fprintf(w, "### Latency against the offered rate\n\n%s\n\n", ladderCaption)
	for _, pool := range t.servePools() {
		fmt.Fprintf(w, "| pool of %s |%s|\n", thousands(float64(pool)), " "+strings.Join(t.variants, " | ")+" ")
		fmt.Fprintf(w, "| --- |%s\n", strings.Repeat(" --- |", len(t.variants)))
		for _, r := range t.ladderRows(pool) {
			vals := make([]string, len(t.variants))
			for i, v := range t.variants {
				vals[i] = r.cell(v)
			}
			fmt.Fprintf(w, "| %s | %s |\n", r.label, strings.Join(vals, " | "))
		}
		fmt.Fprintln(w)
	}
}

// ladderRow is a row of the table of latency against the offered rate:
// its label and each variant's cell.
type ladderRow struct {
	label string
	cell  func(v string) string
}

// ladderRows are the rows of the pool size's table of latency against
// the offered rate: one per rate of the ladder, then the saturation
// point.
func (t *table) ladderRows(pool int) []ladderRow {
	var rows []ladderRow
	for _, st := range t.serveSteps() {
		if st.pool == pool {
			rows = append(rows, ladderRow{rateText(st.rate), func(v string) string {
				return t.serveText(v, st, ofServe(func(s *results.Serve) string {
					return fmt.Sprintf("%s / %s (%s/s)", millis(serveP50(s), 2), millis(serveP99(s), 2), thousands(servePerSecond(s)))
				}), false)
			}})
		}
	}
	return append(rows, ladderRow{"Saturates at", func(v string) string { return t.saturationText(v, pool) }})
}

// saturationText is variant v's saturation point at the pool size: the
// first rate of the ladder that saturated, or "not within the ladder".
func (t *table) saturationText(v string, pool int) string {
	var open []*results.Serve
	closedP99 := math.NaN()
	for _, r := range t.columns[v].serves() {
		switch {
		case r.Status != results.StatusOK || r.Serve.Pool != pool || r.Serve.Served() == 0:
		case r.Serve.Rate == 0:
			closedP99 = serveP99(r.Serve)
		default:
			open = append(open, r.Serve)
		}
	}
	if len(open) == 0 {
		return "–"
	}
	slices.SortFunc(open, func(a, b *results.Serve) int { return cmp.Compare(a.Rate, b.Rate) })
	for _, s := range open {
		if Saturated(s, closedP99) {
			return rateText(s.Rate)
		}
	}
	return "not within the ladder"
}

// ladderRowsHTML are a rate ladder's tables of latency against the
// offered rate as rows of the serve table: "pool P, latency at R: p50 /
// p99"; none without a ladder.
func (t *table) ladderRowsHTML() [][]string {
	if !t.rateLadder() {
		return nil
	}
	var rows [][]string
	for _, pool := range t.servePools() {
		for _, lr := range t.ladderRows(pool) {
			row := []string{fmt.Sprintf("pool %s, latency against the offered rate: %s", thousands(float64(pool)), lr.label)}
			for _, v := range t.variants {
				row = append(row, lr.cell(v))
			}
			rows = append(rows, row)
		}
	}
	return rows
}
