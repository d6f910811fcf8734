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
// manydb advise's answer), and links to the raw records.
type Page struct {
	Lead  *Lead
	Files []Link
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

// A Link is a raw records file: its name and its address from the page.
type Link struct{ Name, Href string }

// htmlTOC is an entry of the page's table of contents.
type htmlTOC struct{ ID, Title string }

// WritePage writes the report of recs (HTML's page) opened by p's lead,
// a title naming its studies and their dates, a table of contents, the
// caveats of each study and links to the raw records.
func WritePage(w io.Writer, recs []results.Record, p Page) error {
	page, err := buildPage(recs)
	if err != nil {
		return err
	}
	page.Title = pageTitle(recs)
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

// pageTitle names the page's studies (manydb profile's counted apart)
// and the days they ran.
func pageTitle(recs []results.Record) string {
	var studies, profiles, days []string
	measured := map[string]bool{}
	for _, r := range recs {
		if r.Phase != job.PhaseProfile && r.Phase != job.PhaseEnv && r.Phase != job.PhaseEnd {
			measured[r.Study] = true
		}
	}
	for _, r := range recs {
		switch {
		case r.Study == "":
			continue
		case measured[r.Study] && !slices.Contains(studies, r.Study):
			studies = append(studies, r.Study)
		case !measured[r.Study] && !slices.Contains(profiles, r.Study):
			profiles = append(profiles, r.Study)
		}
		if !r.Started.IsZero() {
			if d := r.Started.UTC().Format("2006-01-02"); !slices.Contains(days, d) {
				days = append(days, d)
			}
		}
	}
	slices.Sort(days)
	what := fmt.Sprintf("%d studies", len(studies))
	if len(studies) == 1 {
		what = "study " + studies[0]
	}
	if len(profiles) > 0 {
		what += fmt.Sprintf(" and %d create profiles", len(profiles))
	}
	switch len(days) {
	case 0:
		return "manydb report: " + what
	case 1:
		return fmt.Sprintf("manydb report: %s, %s", what, days[0])
	}
	return fmt.Sprintf("manydb report: %s, %s to %s", what, days[0], days[len(days)-1])
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
