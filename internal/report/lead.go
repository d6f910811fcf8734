package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"manydb/internal/job"
	"manydb/internal/results"
)

// Page is what a report page says besides its records' tables and
// charts: its lead, what the records conclude (made by the caller, e.g.
// manydb advise's answer), links to the raw records, the record
// directory it is written into (none: a zero Record) and the version of
// manydb that draws it.
type Page struct {
	Lead   *Lead
	Files  []Link
	Record Record
	Drawn  string
}

// A Lead opens the page: a heading, paragraphs, tables and a list.
type Lead struct {
	Heading    string
	Paragraphs []string
	Tables     []LeadTable
	Items      []string
}

// A LeadTable is a table of the lead, with the sentence before it.
type LeadTable struct {
	Caption string
	Head    []string
	Rows    [][]string
}

// htmlTOC is an entry of the page's table of contents.
type htmlTOC struct{ ID, Title string }

// WritePage writes the report of recs (HTML's page): a title naming what
// the records are about (the record directory's, else recordsTitle),
// under it the machines, the commits that measured and drew and the
// links to the record, then p's lead, a table of contents, the caveats of
// each study and links to the raw records.
func WritePage(w io.Writer, recs []results.Record, p Page) error {
	page, err := buildPage(recs)
	if err != nil {
		return err
	}
	page.Title = p.Record.Title
	if page.Title == "" {
		page.Title = recordsTitle(recs)
	}
	page.About = about(recs, p.Drawn, p.Record, len(p.Files) > 0)
	page.Lead, page.Files, page.Caveats = p.Lead, p.Files, caveats(recs)
	page.TOC = page.contents()
	return pageTemplate.Execute(w, page)
}

// contents numbers the page's sections (their anchors) and lists them.
func (page *htmlPage) contents() []htmlTOC {
	var toc []htmlTOC
	add := func(id *string, title string) {
		*id = fmt.Sprintf("s%d", len(toc)+1)
		toc = append(toc, htmlTOC{*id, title})
	}
	for i := range page.Overviews {
		add(&page.Overviews[i].ID, fmt.Sprintf("Overview of study %s: %s", page.Overviews[i].Study, page.Overviews[i].Workload))
	}
	for i := range page.Serves {
		add(&page.Serves[i].ID, page.Serves[i].Title)
	}
	for i := range page.Sections {
		add(&page.Sections[i].ID, page.Sections[i].Title)
	}
	return toc
}

// caveats says, per study, what its figures rest on: its stores, its warm
// runs, and the phases run with the load above the gate or not warm.
func caveats(recs []results.Record) []string {
	type study struct {
		stores, loud, cold int
		runs               []int
		served, measured   bool // measured: a phase other than profile
	}
	var order []string
	by := map[string]*study{}
	for i := range recs {
		r := &recs[i]
		if r.Study == "" || r.Phase == job.PhaseEnv || r.Phase == job.PhaseEnd {
			continue
		}
		s := by[r.Study]
		if s == nil {
			s = &study{}
			by[r.Study], order = s, append(order, r.Study)
		}
		s.stores = max(s.stores, r.Stores)
		if r.Phase == job.PhaseOpen && r.Cache == "" && !slices.Contains(s.runs, r.Repeat()) {
			s.runs = append(s.runs, r.Repeat())
		}
		s.served = s.served || r.Phase == job.PhaseServe
		s.measured = s.measured || r.Phase != job.PhaseProfile
		if r.RanLoud() {
			s.loud++
		}
		if r.Status == results.StatusOK && notWarm(r) != "" {
			s.cold++
		}
	}
	var out []string
	profiles := 0
	for _, id := range order {
		s := by[id]
		if !s.measured {
			profiles++
			continue
		}
		parts := []string{fmt.Sprintf("%s stores per variant", thousands(float64(s.stores)))}
		switch {
		case len(s.runs) == 1:
			parts = append(parts, "a single warm run (no spread across runs)")
		case len(s.runs) > 1:
			parts = append(parts, fmt.Sprintf("%d warm runs", len(s.runs)))
		}
		if s.served {
			parts = append(parts, "serve steps of one run each")
		}
		if s.loud > 0 {
			parts = append(parts, fmt.Sprintf("%s with the load at or above the gate", counted(s.loud, "phase ran", "phases ran")))
		}
		if s.cold > 0 {
			parts = append(parts, counted(s.cold, "warm run", "warm runs")+" not warm (below 99 % of their pages resident)")
		}
		out = append(out, fmt.Sprintf("Study %s: %s.", id, strings.Join(parts, "; ")))
	}
	if profiles > 0 {
		out = append(out, fmt.Sprintf("%d manydb profile studies: each variant's create timed step by step, once, on disk and on tmpfs.", profiles))
	}
	return out
}

// counted writes n with the singular or plural of a noun: "1 phase", "2
// phases".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
