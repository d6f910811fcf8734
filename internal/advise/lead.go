package advise

import (
	"fmt"
	"strings"

	"manydb/internal/report"
)

// Lead is the answer as a report page's lead: the scenario, the options'
// table, and the refusals and gaps as a list.
func (a Answer) Lead(command string) report.Lead {
	l := report.Lead{Heading: "Which variant, and how many stores kept open: the answer of these records"}
	l.Paragraphs = append(l.Paragraphs, "Scenario: "+a.summary(), a.machineLine(),
		fmt.Sprintf("This is %s over the records of this page; give it your own scenario (manydb advise --help).", command))
	switch {
	case len(a.Options) == 0 && len(a.Pools) > 0:
		l.Paragraphs = append(l.Paragraphs, "No variant qualifies at any pool serve measured (the reasons below). One request at a time, per store (shared layouts' agents included):")
	case len(a.Options) == 0:
		l.Paragraphs = append(l.Paragraphs, "No variant qualifies from these records: a pool under traffic needs a manydb serve study (below: the command). One request at a time, per store (shared layouts' agents included):")
	}
	if len(a.Options) == 0 {
		for _, r := range a.Ranks {
			l.Paragraphs = append(l.Paragraphs, r.line())
		}
	} else {
		g := a.optionsGrid()
		l.Tables = append(l.Tables, report.LeadTable{Caption: "The variants that qualify, lowest p99 first, each at the pool of open stores with the lowest p99 that fits:", Head: g.head, Rows: g.rows})
		l.Paragraphs = append(l.Paragraphs, a.loadLine(), a.tiesLine())
		if line := a.planLine(); line != "" {
			l.Paragraphs = append(l.Paragraphs, line)
		}
	}
	if len(a.Layouts.Rows) > 0 {
		g := a.Layouts.grid(layoutName)
		l.Tables = append(l.Tables, report.LeadTable{Caption: "One store per agent or one for all: the variants these records hold in both layouts, one request at a time (" + figureRule + "):", Head: g.head, Rows: g.rows})
		l.Items = append(l.Items, isolation)
	}
	for _, r := range a.refusedLines() {
		if !strings.HasSuffix(r, ": "+notServed) { // the gaps name them
			l.Items = append(l.Items, "Does not qualify: "+r)
		}
	}
	for _, g := range a.Gaps {
		l.Items = append(l.Items, fmt.Sprintf("Not covered: %s Measure it: %s", g.What, g.Command))
	}
	return l
}
