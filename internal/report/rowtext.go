package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// The text of the table rows that are no figure (the runs pooled, the
// load, the threads and files per open store, the first limit), and of a
// hold figure's record.

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

// retried says whether a record of the table counts requests its
// client sent again (results.Record.Retries: sqld's pool).
func (t *table) retried() bool {
	for _, c := range t.columns {
		if slices.ContainsFunc(c.all, func(r *results.Record) bool { return r.Retries > 0 }) {
			return true
		}
	}
	return false
}

// retriesByPhase is how many requests a column's client sent again, by
// phase in the order of its records ("create 17, open 6"), or "0".
func (t *table) retriesByPhase(c *column, _ figure) string {
	var phases []job.Phase
	sum := map[job.Phase]int{}
	for _, r := range c.all {
		if r.Retries > 0 && sum[r.Phase] == 0 {
			phases = append(phases, r.Phase)
		}
		sum[r.Phase] += r.Retries
	}
	if len(phases) == 0 {
		return "0"
	}
	parts := make([]string, len(phases))
	for i, p := range phases {
		parts[i] = fmt.Sprintf("%s %d", p, sum[p])
	}
	return strings.Join(parts, ", ")
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

// procsChosenBy says which limit set the processes of a column's hold
// (--procs auto), "given" when --procs did.
func (t *table) procsChosenBy(c *column, f figure) string {
	hold := t.holdRecord(c, f)
	switch {
	case hold == nil || hold.Hold == nil:
		return t.noHold(c, f)
	case hold.Hold.ProcsChosenBy == nil:
		return "given (--procs)"
	}
	ch := hold.Hold.ProcsChosenBy
	switch {
	case ch.FirstHold:
		return "one process: the first hold, which measures what a store takes"
	case ch.Limit == "":
		return fmt.Sprintf("one process: within %.0f %% of each limit of a process", 100*ch.Headroom)
	}
	return fmt.Sprintf("%s: %s stores per process within %.0f %% of its limit of %s (%.2f per store)",
		ch.Limit, thousands(ch.PerProcess), 100*ch.Headroom, thousands(ch.Most), ch.PerStore)
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
	text := firstWall(hold.Hold.Walls())
	if hold.Hold.Server != nil {
		text += " (" + serverLimits + ")"
	}
	return text
}

// firstWall names the first of a hold's walls, or says there is none.
func firstWall(ws []results.Wall) string {
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
