package advise

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// A Rank orders the variants by one per-store figure, lowest first: what
// the records say one request at a time, with or without serve.
type Rank struct {
	Figure string   `json:"figure"`
	Label  string   `json:"label"`
	Order  []Ranked `json:"order"`
}

// Ranked is one variant's value in a Rank.
type Ranked struct {
	Key
	Value Number `json:"value"`
}

// rankFigures are the figures advise ranks the variants by, with how
// the answer names them.
func rankFigures() []struct{ name, label string } {
	return []struct{ name, label string }{
		{"open-query-close-p99", "a warm open, its queries and close, p99"},
		{"turn-p99", "a turn (open, recent 20, an append committed, close), p99"},
		{"anon-per-open-store", "anonymous memory per open store"},
		{"container-per-open-store", "memory charged to a container per open store"},
		{"space-per-store", "disk per store"},
	}
}

// ranks orders the evidence's variants by each rank figure (in the
// records without embeddings, or with them for a scenario with dims),
// leaving out a figure no variant has.
func ranks(s Scenario, evs []*Evidence) []Rank {
	var out []Rank
	figs := rankFigures()
	if s.Dims > 0 {
		figs = append(figs, struct{ name, label string }{"knn-p99", "a knn query for the 10 nearest notes, p99"})
	}
	for _, f := range figs {
		r := Rank{Figure: f.name, Label: f.label}
		for _, e := range evs {
			n := e.base(f.name, -1)
			if s.Dims > 0 {
				n = e.vec(f.name)
			}
			if n.known() {
				r.Order = append(r.Order, Ranked{e.Key, n})
			}
		}
		if len(r.Order) > 0 {
			slices.SortStableFunc(r.Order, func(a, b Ranked) int { return cmp.Compare(a.Value.Value, b.Value.Value) })
			out = append(out, r)
		}
	}
	return out
}

// line says r in a sentence: the lowest three, and the highest.
func (r Rank) line() string {
	var low []string
	for _, x := range r.Order[:min(3, len(r.Order))] {
		low = append(low, fmt.Sprintf("%s %s", x.Name(), x.Value.Text()))
	}
	text := fmt.Sprintf("%s, lowest first: %s", upperFirst(r.Label), strings.Join(low, ", "))
	if n := len(r.Order); n > 3 {
		last := r.Order[n-1]
		text += fmt.Sprintf("; highest: %s %s", last.Name(), last.Value.Text())
	}
	return text + fmt.Sprintf(" (%s, of %d).", r.Figure, len(r.Order))
}

// upperFirst is s with its first letter upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
