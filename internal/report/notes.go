package report

// The notes under a study's tables: its title, versions, engine options,
// duplicate and renamed records.

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/settings"
)

// duplicates warns of each cell of the table that has several records,
// column by column.
func (t *table) duplicates() []duplicate {
	var out []duplicate
	for _, v := range t.variants {
		out = append(out, t.columns[v].recs.duplicates()...)
	}
	return out
}

// writeDuplicates writes the table's warnings of duplicate records.
func (t *table) writeDuplicates(w io.Writer) {
	for _, d := range t.duplicates() {
		fmt.Fprintf(w, "Warning: %v (a results file edited or joined by hand?).\n", d)
	}
}

// writeRenamed says which columns were recorded under an older id.
func (t *table) writeRenamed(w io.Writer) {
	for _, rv := range t.renamed {
		fmt.Fprintln(w, rv.note())
	}
}

// title names the table: "Study S, setting X", or with several studies
// "Studies S1, S2, setting X".
func (t *table) title() string {
	if len(t.studies) > 1 {
		return fmt.Sprintf("Studies %s, setting %s", strings.Join(t.studies, ", "), t.setting)
	}
	return fmt.Sprintf("Study %s, setting %s", t.study, t.setting)
}

// writeEngineOptions writes the line of engine options the columns'
// records name (the lean setting's), if any does, and with embeddings the
// line of each column's knn search.
func (t *table) writeEngineOptions(w io.Writer) {
	if opts := t.engineOptions(); opts != "" {
		fmt.Fprintf(w, "Engine options (docs/engines.md): %s.\n", opts)
	}
	if s := t.vectorSearches(); s != "" {
		fmt.Fprintf(w, "With embeddings a turn is open, knn, recent, append, close, and each held store answered one knn before the memory snapshot. knn search (docs/engines.md): %s.\n", s)
	}
}

// vectorSearches names each column's knn search, "" without embeddings.
func (t *table) vectorSearches() string {
	var parts []string
	for _, v := range t.variants {
		if c := t.columns[v]; c.search != "" {
			parts = append(parts, v+": "+c.search)
		}
	}
	return strings.Join(parts, "; ")
}

// engineOptions lists the engine options each column's records name (the
// lean setting's), "" when none does.
func (t *table) engineOptions() string {
	var parts []string
	for _, v := range t.variants {
		c := t.columns[v]
		if len(c.options) == 0 {
			continue
		}
		var opts []string
		for _, k := range slices.Sorted(maps.Keys(c.options)) {
			opts = append(opts, k+" "+strings.Join(c.options[k], " / "))
		}
		parts = append(parts, v+": "+strings.Join(opts, ", "))
	}
	return strings.Join(parts, "; ")
}

// versions lists each column's engine library versions (not its Go
// module versions, which the records keep); a library whose records name
// more than one version lists them all: "sqlite 3.54.1 / 3.55.0".
func (t *table) versions() string {
	var parts []string
	for _, v := range t.variants {
		c := t.columns[v]
		if c.na {
			continue
		}
		joined := map[string]string{}
		for k, vals := range c.version {
			joined[k] = strings.Join(vals, " / ")
		}
		libs := libraries(joined)
		if len(libs) == 0 {
			libs = []string{"unknown"}
		}
		parts = append(parts, v+": "+strings.Join(libs, ", "))
	}
	return strings.Join(parts, "; ")
}

// writeNA writes why the table's n/a columns do not apply: the malloc
// part of a setting, lean, wal, embeddings or the layout (notApplicable).
func (t *table) writeNA(w io.Writer) {
	na := t.notApplicable()
	if set, _ := settings.Lookup(t.setting); na.malloc != "" && set.Lean {
		fmt.Fprintf(w, "n/a: the setting %s combines lean with a change to the C allocator (malloc), which %s do not allocate with (pure Go); a combination applies only where each part does (lean alone applies to them).\n", t.setting, na.malloc)
	} else if na.malloc != "" {
		fmt.Fprintf(w, "n/a: the setting %s changes the C allocator (malloc) only, and %s do not allocate with it (pure Go).\n", t.setting, na.malloc)
	}
	for _, line := range []struct{ what, why string }{
		{"the lean setting has no engine option", na.lean.String()},
		{"the wal setting has no journal mode to set", na.wal.String()},
		{"no knn search", na.vectors.String()},
		{"not in the shared layout", na.shared.String()},
		{"not in the layout per agent", na.perAgent.String()},
		{"no cold cache", na.cold.String()},
	} {
		if line.why != "" {
			fmt.Fprintf(w, "n/a: %s %s.\n", line.what, line.why)
		}
	}
}

// naReasons are why a table's n/a columns do not apply: the columns a
// malloc setting does not apply to (pure-Go engines), and for each other
// cause its reasons with the columns they are given for.
type naReasons struct {
	malloc                                     string
	lean, wal, vectors, shared, perAgent, cold grouped
}

// grouped is reasons with the columns each is given for, in order.
type grouped struct {
	whys  []string
	byWhy map[string][]string
}

func (g *grouped) add(why, col string) {
	if g.byWhy == nil {
		g.byWhy = map[string][]string{}
	}
	if g.byWhy[why] == nil {
		g.whys = append(g.whys, why)
	}
	g.byWhy[why] = append(g.byWhy[why], col)
}

// String is "for a, b: why; for c: other".
func (g grouped) String() string { return forEach(g.whys, g.byWhy) }

// notApplicable says why the table's n/a columns do not apply: with
// embeddings, why a variant keeps none (engine.Family.NoVectors); a
// column of the shared layout, as its record says; a column of the layout
// per agent, the catalog's reason (engine.Family.NoPerAgent); the wal
// setting, the
// catalog's reason (engine.Family.NoWAL); lean, the catalog's reason
// (engine.Family.NoLean), else the record's; the others are columns a
// malloc setting does not apply to.
func (t *table) notApplicable() naReasons {
	set, _ := settings.Lookup(t.setting)
	var na naReasons
	var malloc []string
	for _, v := range t.variants {
		c := t.columns[v]
		for _, why := range c.naCache {
			na.cold.add(why, v)
		}
		if !c.na {
			continue
		}
		fam, ok := engine.Lookup(c.variant)
		switch {
		case t.dims > 0 && fam.NoVectors[c.variant] != "":
			na.vectors.add(fam.NoVectors[c.variant], v)
		case c.layout == job.LayoutPerAgent && fam.NoPerAgent[c.variant] != "":
			na.perAgent.add(fam.NoPerAgent[c.variant], v)
		case t.dims > 0 && fam.Server != "" && set.NotApplicable(fam, c.variant) == "" && c.naWhy != "":
			na.vectors.add(c.naWhy, v) // the record's: the server's pgvector is missing or cannot run here
		case c.layout == job.LayoutShared && set.NotApplicable(fam, c.variant) == "":
			na.shared.add(c.naWhy, v) // not the setting: the layout
		case set.WAL && fam.NoWAL[c.variant] != "":
			na.wal.add(fam.NoWAL[c.variant], v)
		case !set.Lean || (set.CgoOnly && (!ok || !fam.Cgo) && fam.NoLean[c.variant] == ""):
			malloc = append(malloc, v) // the malloc part does not apply; lean has no reason against it
		case fam.NoLean[c.variant] != "":
			na.lean.add(fam.NoLean[c.variant], v)
		default:
			na.lean.add(c.naWhy, v)
		}
	}
	na.malloc = strings.Join(malloc, ", ")
	return na
}

// forEach writes each reason with the variants it is given for: "for a,
// b: why; for c: other".
func forEach(whys []string, byWhy map[string][]string) string {
	var parts []string
	for _, why := range whys {
		parts = append(parts, fmt.Sprintf("for %s: %s", strings.Join(byWhy[why], ", "), why))
	}
	return strings.Join(parts, "; ")
}

// WarmResident is the least share of a warm run's sampled store pages in
// the page cache, before and after it, for the run to count as warm.
const WarmResident = results.WarmResident

// notWarm describes a warm run (a warm open run, a turn run, serve
// without a memory limit: a record with a residency before it) whose
// sampled store pages were below WarmResident in the page cache before or
// after it, "run 1 (before 83.7 %, after 99.5 %)"; "" for any other
// record.
func notWarm(r *results.Record) string {
	if r.ResidentBefore == nil || (r.Phase == job.PhaseOpen && r.Cache != "") {
		return ""
	}
	before, after := *r.ResidentBefore, 1.0
	if r.ResidentAfter != nil {
		after = *r.ResidentAfter
	}
	if before >= WarmResident && after >= WarmResident {
		return ""
	}
	what := fmt.Sprintf("%s (before %s", warmRunName(r), percentDown(before))
	if r.ResidentAfter != nil {
		what += ", after " + percentDown(after)
	}
	return what + ")"
}

// warmRuns are the column's runs that assume a warm page cache: the warm
// open runs, the turn runs and serve's pools.
func (c *column) warmRuns() []*results.Record {
	return slices.Concat(c.opens(), c.turns(), c.serves())
}

// warmRunName names a warm run in a note: "run 2", "turn run 1", "serve
// at pool 100".
func warmRunName(r *results.Record) string {
	switch {
	case r.Phase == job.PhaseTurn:
		return fmt.Sprintf("turn run %d", r.Repeat())
	case r.Phase == job.PhaseServe && r.Serve != nil:
		if r.Serve.Rate > 0 {
			return fmt.Sprintf("serve at pool %d, %s", r.Serve.Pool, rateText(r.Serve.Rate))
		}
		return fmt.Sprintf("serve at pool %d", r.Serve.Pool)
	}
	return fmt.Sprintf("run %d", r.Run)
}

// percentDown writes a fraction as a percentage with one decimal, rounded
// down, so that a share below WarmResident never reads as 99.0 %.
func percentDown(x float64) string {
	return fmt.Sprintf("%.1f %%", math.Floor(1000*x)/10)
}

// notWarmNote names the table's warm runs that were not warm, per column:
// their figures include reads from disk.
func (t *table) notWarmNote() string {
	var cols []string
	for _, v := range t.variants {
		var runs []string
		for _, r := range t.columns[v].warmRuns() {
			if what := notWarm(r); what != "" {
				runs = append(runs, what)
			}
		}
		if len(runs) > 0 {
			cols = append(cols, v+": "+strings.Join(runs, ", "))
		}
	}
	if len(cols) == 0 {
		return ""
	}
	return fmt.Sprintf("Not warm: these warm runs had less than %.0f %% of their sampled store pages in the page cache before or after them, so their figures include reads from disk: %s.", 100*WarmResident, strings.Join(cols, "; "))
}

// withReason returns m (made when nil) with why set for cache mode k.
func withReason(m map[job.CacheMode]string, k job.CacheMode, why string) map[job.CacheMode]string {
	if m == nil {
		m = map[job.CacheMode]string{}
	}
	m[k] = why
	return m
}
