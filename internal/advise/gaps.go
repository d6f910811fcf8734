package advise

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/report"
)

// gaps says what the records do not cover for s, each with the command
// that measures it: the options' variants (or the unserved ones) are the
// engines it names.
func gaps(s Scenario, evs []*Evidence, opts []Option, unserved []Key) []Gap {
	var engines []string
	serveStores, objects := 0, 0
	for _, o := range opts {
		engines = addOnce(engines, o.Variant)
	}
	for _, e := range evs {
		serveStores, objects = max(serveStores, e.ServeStores()), max(objects, e.Objects)
	}
	list := strings.Join(engines, ",")
	if list == "" {
		list = "all"
	}
	if serveStores == 0 {
		serveStores = s.Agents // no serve records: measure at the scenario's
	}
	var out []Gap
	if objects > 0 && s.Notes != objects {
		out = append(out, Gap{
			What:    fmt.Sprintf("Stores of %s notes: the records' stores hold %s, and every figure is of those (serve makes stores of 1,000 or 10 notes only).", thousands(float64(s.Notes)), thousands(float64(objects))),
			Command: fmt.Sprintf("manydb run --engines %s --objects %d --queries count,recent,get --turns 2 --hold 1000 --stores 2000", list, s.Notes)})
	}
	if serveStores > 0 && s.Agents != serveStores {
		out = append(out, agentsGap(s, serveStores, list))
	}
	if slices.ContainsFunc(evs, func(e *Evidence) bool { return e.ServeStores() > 0 && len(e.Ladders) == 0 }) {
		out = append(out, trafficGap(s, serveStores, list))
	}
	if s.Dims > 0 {
		out = append(out, Gap{
			What:    fmt.Sprintf("Embeddings of %d values under traffic: serve measured no knn, so each p99 above is serve's plus the vector study's knn p99 (not measured together).", s.Dims),
			Command: fmt.Sprintf("manydb serve --engines %s --dims %d --stores %d --pool 0,1%%,10%%", list, s.Dims, min(s.Agents, serveStores))})
	}
	var shared []string
	for _, o := range opts {
		if fam, _ := engine.Lookup(o.Variant); o.Layout.Stores() == job.OneStore && fam.Server == "" { // a server's memory is outside any container of the worker
			shared = addOnce(shared, o.Variant)
		}
	}
	if s.Container && len(shared) > 0 {
		out = append(out, Gap{
			What:    "The page cache of a shared store in a container: the memory above counts an open store's page cache per agent, which a shared store has not; the pages of its one file that requests read (bbolt maps it whole) are charged to the container too.",
			Command: fmt.Sprintf("manydb serve --layout shared --engines %s --stores %d --memory-max %s --pool 0,1%%,10%%", strings.Join(shared, ","), min(s.Agents, serveStores), memoryMaxFlag(s))})
	}
	if keys := unlimited(evs, opts); len(keys) > 0 {
		against := "against the limit other holds recorded"
		if slices.ContainsFunc(opts, func(o Option) bool { return o.Procs == 0 }) {
			against = "against the open-file limit given (--open-files; no hold here recorded one, so without it their processes are ?)"
		}
		out = append(out, Gap{
			What: fmt.Sprintf("Per-process limits of %s: their holds in these records predate the counts of open files' limit and pthread keys, so their processes count only the open files per store %s (ObjectBox also takes a pthread key per open store: 1,024 per process).",
				strings.Join(keys, ", "), against),
			Command: fmt.Sprintf("manydb run --engines %s --stores 2000 --hold 1000 --queries count", strings.Join(keys, ","))})
	}
	if len(unserved) > 0 {
		var names, variants, settings []string
		for _, k := range unserved {
			names = append(names, k.Name())
			variants = addOnce(variants, k.Variant)
			settings = addOnce(settings, cmp.Or(k.Setting, "default"))
		}
		out = append(out, Gap{
			What: "Variants without serve records: " + strings.Join(names, ", ") + ".",
			Command: fmt.Sprintf("manydb serve --engines %s --settings %s --stores %d --pool 0,1%%,10%%",
				strings.Join(variants, ","), strings.Join(settings, ","), min(s.Agents, serveStores))})
	}
	return out
}

// addOnce appends x to xs unless xs holds it.
func addOnce(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// unlimited names the options' variants whose holds recorded no limits.
func unlimited(evs []*Evidence, opts []Option) []string {
	var names []string
	for _, o := range opts {
		for _, e := range evs {
			if e.Key == o.Key && !e.LimitsRecorded {
				names = addOnce(names, o.Variant)
			}
		}
	}
	return names
}

// memoryMaxFlag is the --memory-max of a command measuring s in a
// container: its memory, or 1G without one.
func memoryMaxFlag(s Scenario) string {
	if s.MemoryBytes < 16<<20 {
		return "1G"
	}
	return fmt.Sprintf("%dM", s.MemoryBytes>>20)
}

// agentsGap is the gap of s's agents when serve measured serveStores
// (list: the engines to measure), called far outside the records from
// farScale times more or fewer.
func agentsGap(s Scenario, serveStores int, list string) Gap {
	far := ""
	if d := distance(float64(s.Agents) / float64(serveStores)); d >= farScale {
		far = fmt.Sprintf("Far outside the records (%s times the agents serve measured): ", report.Natural(d, ""))
		if s.Agents < serveStores {
			far = fmt.Sprintf("Far outside the records (a %s-th of the agents serve measured): ", report.Natural(d, ""))
		}
	}
	return Gap{
		What: far + fmt.Sprintf("%s agents: serve measured %s. The pools above are the same shares of your agents; their memory is arithmetic (the fixed part plus the pool × the memory per open store), their p99 is the one measured with %s.",
			thousands(float64(s.Agents)), thousands(float64(serveStores)), thousands(float64(serveStores))),
		Command: fmt.Sprintf("manydb serve --engines %s --stores %d --pool 0,1%%,10%%,100%% --requests 20000", list, s.Agents)}
}

// trafficGap is the scenario's traffic when some variant's serve records
// have no rate ladder: their p99 is the closed loop's.
func trafficGap(s Scenario, serveStores int, list string) Gap {
	return Gap{
		What: fmt.Sprintf("Your traffic, %s requests/s: serve's records are a closed loop (8 goroutines as fast as the machine serves, Zipf 1.1 over the agents), so their p99 includes the queueing of a saturated machine; at a lower rate it is lower.",
			report.Natural(s.RequestRate(), "")),
		Command: fmt.Sprintf("manydb serve --engines %s --stores %d --rate %.6g --pool 0,1%%,10%%,100%%", list, min(s.Agents, serveStores), s.RequestRate())}
}
