package advise

import (
	"cmp"
	"slices"

	"manydb/internal/report"
)

// A rankFigure is a figure advise ranks the variants by, with how the
// answer names it.
type rankFigure struct {
	name  report.FigureName
	label string
}

// rankFigures are the figures advise ranks the variants by.
func rankFigures() []rankFigure {
	return []rankFigure{
		{report.FigureOpenQueryCloseP99, "a warm open, its queries and close, p99"},
		{report.FigureTurnP99, "a turn (open, recent 20, an append committed, close), p99"},
		{report.FigureAnonPerOpenStore, "anonymous memory per open store"},
		{report.FigureContainerPerOpenStore, "memory charged to a container per open store"},
		{report.FigureSpacePerStore, "disk per store"},
	}
}

// ranks orders the evidence's variants by each rank figure (in the
// records without embeddings, or with them for a scenario with dims),
// leaving out a figure no variant has; a value outside the figure's
// domain, or a timing of runs not all warm, is set apart, not ranked.
func ranks(s Scenario, evs []*Evidence) []Rank {
	var out []Rank
	figs := rankFigures()
	if s.Dims > 0 {
		figs = append(figs, rankFigure{report.FigureKNNP99, "a knn query for the 10 nearest notes, p99"})
	}
	for _, f := range figs {
		r := Rank{Figure: f.name, Label: f.label}
		for _, e := range evs {
			n := e.base(f.name, -1)
			if s.Dims > 0 {
				n = e.vec(f.name)
			}
			switch {
			case n.known() && report.OutsideDomain(n.Value, n.Unit):
				r.Outside = append(r.Outside, Ranked{e.Key, n})
			case n.known() && n.Unit == "ms" && e.notWarm(s.Dims > 0):
				r.NotWarm = append(r.NotWarm, Ranked{e.Key, n})
			case n.known():
				r.Order = append(r.Order, Ranked{e.Key, n})
			}
		}
		if len(r.Order)+len(r.Outside)+len(r.NotWarm) > 0 {
			slices.SortStableFunc(r.Order, func(a, b Ranked) int { return cmp.Compare(a.Value.Value, b.Value.Value) })
			out = append(out, r)
		}
	}
	return out
}

// notWarm tells whether some warm run of e's records (its vector records
// when vec) was not warm.
func (e *Evidence) notWarm(vec bool) bool {
	f := e.Base
	if vec {
		f = e.Vec
	}
	return f != nil && len(f.NotWarm) > 0
}
