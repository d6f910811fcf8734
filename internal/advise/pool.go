package advise

import (
	"fmt"
	"math"

	"manydb/internal/report"
)

// at is e's option at its serve records' pool of level stores, scaled to
// s's agents: the same share of them kept open, and at least one store
// when serve kept any open.
func at(s Scenario, e *Evidence, level int) Option {
	share := float64(level) / float64(e.ServeStores())
	pool := int(math.Round(share * float64(s.Agents)))
	if level > 0 {
		pool = max(1, pool)
	}
	o := Option{Key: e.Key, Pool: pool, PoolShare: share, Scale: float64(s.Agents) / float64(e.ServeStores()), ServedAgents: e.ServeStores(),
		Machines: 1, AgentsPerMachine: s.Agents}
	o.P99, o.Load, o.Spread = e.p99At(level, s.RequestRate())
	o.HitRate = e.base(report.FigureServeHitRate, level)
	o.Served = e.base(report.FigureServeRequestsPerSecond, level)
	if s.Dims > 0 {
		knn := e.vec(report.FigureKNNP99)
		o.Spread = o.Spread.plus(knn.Value)
		o.P99 = derived(o.P99.Value+knn.Value, "ms", fmt.Sprintf("the sum of %s and %s (serve measured no knn)", o.P99.From, knn.From), o.P99, knn)
		o.Recall, o.RecallP5, o.RecallNone = e.vec(report.FigureRecall), e.vec(report.FigureRecallP5), e.vec(report.FigureRecallNone)
	}
	o.Procs, o.Limit = procs(s, e, pool)
	o.Memory = memoryAt(s, e, level, pool, o.Procs)
	o.Disk = disk(s, e)
	return o
}

// charged tells whether e's memory is counted as a container's charge:
// in a container scenario, when e's holds measured that charge (a server
// variant's processes are outside the worker's container: its resident
// memory, Pss, is counted instead).
func charged(s Scenario, e *Evidence) bool {
	return s.Container && e.base(report.FigureContainerPerOpenStore, -1).known()
}

// serveMemory is the serve figure e's memory grows from: the worker's
// peak resident memory, or in a container its peak anonymous memory (the
// page cache is added per open store: perOpen).
func serveMemory(s Scenario, e *Evidence) report.FigureName {
	if charged(s, e) {
		return report.FigureServePeakAnon
	}
	return report.FigureServePeakRSS
}

// memoryAt is the memory of a pool of pool open stores in procs
// processes, each process' peak with no pool under serve plus the pool
// times what an open store costs at serve's level (perOpen). At serve's
// own scale and in one process it is the peak serve measured there (and
// in a container the open stores' page cache).
func memoryAt(s Scenario, e *Evidence, level, pool, procs int) Number {
	none := e.base(serveMemory(s, e), 0)
	if pool == 0 {
		return derived(float64(procs)*none.Value, "KB", fmt.Sprintf("%d × %s (%s)", procs, none.Text(), none.From), none)
	}
	per := perOpen(s, e, level)
	v := float64(max(procs, 1))*none.Value + float64(pool)*per.Value
	return derived(v, "KB", fmt.Sprintf("%d × %s (%s) + %s open × %s per open store (%s)", procs, none.Text(), none.From, thousands(float64(pool)), per.Text(), per.From), none, per)
}

// perOpen is what one more open store costs at serve's pool level:
// serve's growth per pool slot there ((peak at level − peak with no
// pool) / level, not below 0); in a container also the page cache an
// open store's files bring in (the hold's charge less its anonymous
// memory; with embeddings the vector study's hold's); with embeddings
// also what an open store's embeddings add to the process (the vector
// study's hold less the hold without them).
func perOpen(s Scenario, e *Evidence, level int) Number {
	name := serveMemory(s, e)
	at, none := e.base(name, level), e.base(name, 0)
	out := derived(max(0, (at.Value-none.Value)/float64(level)), "KB",
		fmt.Sprintf("(%s − %s) / %s", at.From, none.From, thousands(float64(level))), at, none)
	hold := report.FigureRSSPerOpenStore
	if charged(s, e) {
		hold = report.FigureAnonPerOpenStore
		charge, anon := e.base(report.FigureContainerPerOpenStore, -1), e.base(hold, -1)
		if c, a := e.vec(report.FigureContainerPerOpenStore), e.vec(hold); s.Dims > 0 && c.known() && a.known() {
			charge, anon = c, a // the files with embeddings are larger
		}
		// without the hold's anonymous memory the page cache is unknown,
		// and so is the memory (NaN), not understated
		out = derived(out.Value+charge.Value-anon.Value, "KB", fmt.Sprintf("%s + page cache per open store: %s − %s", out.From, charge.From, anon.From), out, charge, anon)
	}
	if s.Dims > 0 {
		with, without := e.vec(hold), e.base(hold, -1)
		if with.known() && without.known() {
			out = derived(out.Value+max(0, with.Value-without.Value), "KB", fmt.Sprintf("%s + the embeddings per open store: %s − %s", out.From, with.From, without.From), out, with, without)
		}
	}
	return out
}

// procs is how many processes a pool of pool open stores needs for the
// per-process limits (open files: s.OpenFiles, else the limit the
// records' holds recorded; pthread keys as the holds counted them), and
// which limit set it ("" for one process); 0 when the open files per
// store are known but no limit is.
func procs(s Scenario, e *Evidence, pool int) (int, string) {
	n, limit := 1, ""
	fileLimit := e.OpenFileLimit
	if s.OpenFiles > 0 {
		fileLimit = float64(s.OpenFiles)
	}
	if pool > 0 && e.FilesPerOpen > 0 {
		if math.IsNaN(fileLimit) {
			return 0, "the open-file limit is not in these records: give --open-files"
		}
		room := fileLimit - e.FDsBefore // the files a worker opens before its stores
		if math.IsNaN(e.FDsBefore) {
			room = fileLimit
		}
		if room < 1 {
			return 0, fmt.Sprintf("an open-file limit of %s leaves no room for a store", thousands(fileLimit))
		}
		if k := int(math.Ceil(float64(pool) * e.FilesPerOpen / room)); k > n {
			n, limit = k, fmt.Sprintf("open files: %.3g per open store, %s per process", e.FilesPerOpen, thousands(fileLimit))
		}
	}
	keys := e.base(report.FigurePthreadKeysPerOpenStore, -1)
	if pool > 0 && keys.known() && keys.Value > 0 && e.KeysFreeBefore > 0 {
		if k := int(math.Ceil(float64(pool) * keys.Value / e.KeysFreeBefore)); k > n {
			n, limit = k, fmt.Sprintf("pthread keys: %.3g per open store, %s free per process", keys.Value, thousands(e.KeysFreeBefore))
		}
	}
	return n, limit
}

// disk is the space of s's agents' stores: space per store (with
// embeddings, the vector study's) × agents.
func disk(s Scenario, e *Evidence) Number {
	per := e.base(report.FigureSpacePerStore, -1)
	if s.Dims > 0 {
		per = e.vec(report.FigureSpacePerStore)
	}
	return derived(per.Value*float64(s.Agents), "KB", fmt.Sprintf("%s agents × %s (%s)", thousands(float64(s.Agents)), per.Text(), per.From), per)
}

// distance is how far a scale (the scenario's agents over those
// measured) is from a measurement: 1 when measured, else how many times
// more or fewer agents.
func distance(scale float64) float64 { return max(scale, 1/scale) }
