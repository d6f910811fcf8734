package advise

import (
	"cmp"
	"fmt"
	"slices"

	"manydb/internal/job"
	"manydb/internal/report"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// A Rung is one rate of a serve rate ladder at one pool size: the open
// loop's p99s at that offered rate (one per record), and whether any of
// those records saturated (report.Saturated, against the same pool's
// closed loop).
type Rung struct {
	Pool      int       `json:"pool"`
	Rate      float64   `json:"rate"` // requests per second offered
	P99s      []float64 `json:"p99s_ms"`
	Saturated bool      `json:"saturated"`
}

// ladder is the rungs of e's serve records at pool size level, by rate,
// from base, the records without embeddings (none without an open loop).
func ladder(e Key, base []results.Record, level int) []Rung {
	var closed []float64
	var open []*results.Serve
	for i := range base {
		r := &base[i]
		if r.Status != results.StatusOK || r.Phase != job.PhaseServe || r.Serve == nil || r.Serve.Pool != level || r.Serve.Served() == 0 ||
			(Key{r.Variant, r.Setting, r.Layout}) != e {
			continue
		}
		if r.Serve.Rate == 0 {
			closed = append(closed, r.Serve.P99Ms)
		} else {
			open = append(open, r.Serve)
		}
	}
	closedP99 := stats.Median(closed) // NaN without a closed loop
	by := map[float64]*Rung{}
	var rungs []*Rung
	for _, s := range open {
		if by[s.Rate] == nil {
			by[s.Rate] = &Rung{Pool: level, Rate: s.Rate}
			rungs = append(rungs, by[s.Rate])
		}
		g := by[s.Rate]
		g.P99s = append(g.P99s, s.P99Ms)
		g.Saturated = g.Saturated || report.Saturated(s, closedP99)
	}
	slices.SortFunc(rungs, func(a, b *Rung) int { return cmp.Compare(a.Rate, b.Rate) })
	out := make([]Rung, len(rungs))
	for i, g := range rungs {
		out[i] = *g
	}
	return out
}

// Load tells at which offered load an option's p99 was measured: at the
// ladder's rate Rate (open loop), or at saturation (the closed loop;
// Rate 0) and why.
type Load struct {
	Rate float64 `json:"rate,omitempty"`
	Why  string  `json:"why"`
}

// Text is the load as the options' table shows it.
func (l Load) Text() string {
	if l.Rate > 0 {
		return report.Natural(l.Rate, "") + "/s"
	}
	return "saturation"
}

// The reasons a p99 is the closed loop's.
const (
	noLadder   = "its serve records have no rate ladder (the closed loop's p99)"
	pastLadder = "your rate is above its ladder's highest rate, %s requests/s (the closed loop's p99)"
	pastPoint  = "its ladder saturates at %s requests/s, at or below the measured rate next above yours (the closed loop's p99)"
)

// p99At is e's serve p99 at pool size level for rate requests per second
// (one machine's): from a rate ladder, the p99 at the lowest measured rate
// at or above rate; the closed loop's (saturation) without a ladder, above
// it, or when that rate or a lower one saturated.
func (e *Evidence) p99At(level int, rate float64) (Number, Load) {
	closed := e.base(report.FigureServeP99, level)
	rungs := e.Ladders[level]
	if len(rungs) == 0 {
		return closed, Load{Why: noLadder}
	}
	k := slices.IndexFunc(rungs, func(g Rung) bool { return g.Rate >= rate })
	if k < 0 {
		return closed, Load{Why: fmt.Sprintf(pastLadder, report.Natural(rungs[len(rungs)-1].Rate, ""))}
	}
	if j := slices.IndexFunc(rungs[:k+1], func(g Rung) bool { return g.Saturated }); j >= 0 {
		return closed, Load{Why: fmt.Sprintf(pastPoint, report.Natural(rungs[j].Rate, ""))}
	}
	g := rungs[k]
	files := e.Files[job.PhaseServe]
	src := Source{Key: e.Key, Figure: string(report.FigureServeP99), Level: level, Values: len(g.P99s), Median: stats.Median(g.P99s), Files: files}
	return Number{Value: src.Median, Unit: "ms", Sources: []Source{src},
			From: fmt.Sprintf("%s at pool %s, open loop at %s requests/s offered, the median of %d values in %s",
				report.FigureServeP99, thousands(float64(level)), report.Natural(g.Rate, ""), len(g.P99s), FilesText(files))},
		Load{Rate: g.Rate, Why: "the lowest rate of its ladder at or above yours"}
}

// ladders are e's rate ladders by pool size (none without an open loop).
func (e *Evidence) ladders(base []results.Record) map[int][]Rung {
	out := map[int][]Rung{}
	for _, level := range e.poolLevels() {
		if rungs := ladder(e.Key, base, level); len(rungs) > 0 {
			out[level] = rungs
		}
	}
	return out
}

// poolLevels are the pool sizes of e's serve figures.
func (e *Evidence) poolLevels() []int {
	if e.Base == nil {
		return nil
	}
	return e.Base.Levels(string(report.FigureServeP99))
}
