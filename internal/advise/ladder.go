package advise

import (
	"fmt"
	"slices"

	"manydb/internal/report"
	"manydb/internal/stats"
)

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
func (e *Evidence) p99At(level int, rate float64) (Number, Load, Interval) {
	closed, spread := e.base(report.FigureServeP99, level), e.Closed[level].Spread
	rungs := e.Ladders[level]
	if len(rungs) == 0 {
		return closed, Load{Why: noLadder}, spread
	}
	k := slices.IndexFunc(rungs, func(g Rung) bool { return g.Rate >= rate })
	if k < 0 {
		return closed, Load{Why: fmt.Sprintf(pastLadder, report.Natural(rungs[len(rungs)-1].Rate, ""))}, spread
	}
	if j := slices.IndexFunc(rungs[:k+1], func(g Rung) bool { return g.Saturated }); j >= 0 {
		return closed, Load{Why: fmt.Sprintf(pastPoint, report.Natural(rungs[j].Rate, ""))}, spread
	}
	g := rungs[k]
	files := g.Files
	src := Source{Key: e.Key, Figure: string(report.FigureServeP99), Level: level, Rate: g.Rate, Values: len(g.P99s), Median: stats.Median(g.P99s), Files: files}
	return Number{Value: src.Median, Unit: "ms", Sources: []Source{src},
			From: fmt.Sprintf("%s at pool %s, open loop at %s requests/s offered, the median of %d values in %s",
				report.FigureServeP99, thousands(float64(level)), report.Natural(g.Rate, ""), len(g.P99s), FilesText(files))},
		Load{Rate: g.Rate, Why: "the lowest rate of its ladder at or above yours"}, g.Spread
}
