package report

import (
	"fmt"
	"slices"
	"strings"

	"manydb/internal/job"
	"manydb/internal/results"
)

// A Link is a file the page links: its name and its address from the
// page (a raw records file, the record's README or tables).
type Link struct{ Name, Href string }

// Record is the record directory a page is written into, when it is one:
// its title (the heading of its README) and links to its README and
// tables, which the page shows under its title.
type Record struct {
	Title string
	Links []Link
}

// htmlAbout is what the page says under its title: the machines that
// measured, the manydb commits that measured and the one that drew, and
// links to the record's README, tables and raw records.
type htmlAbout struct {
	Machines []string
	Measured string
	Drawn    string
	Links    []Link
}

// about is the page's header below its title for records recs, drawn by
// manydb version drawn, in record directory rec.
func about(recs []results.Record, drawn string, rec Record, raw bool) htmlAbout {
	a := htmlAbout{Drawn: drawn, Links: slices.Clone(rec.Links)}
	if a.Drawn == "" {
		a.Drawn = "of unknown version"
	}
	m := findMachines(recs)
	var commits []string
	seen := map[string]bool{}
	for i := range recs {
		r := &recs[i]
		if r.Phase != job.PhaseEnv {
			continue
		}
		if c := r.Env["manydb"]; c != "" && !slices.Contains(commits, c) {
			commits = append(commits, c)
		}
		if k := machineKey(r); k != "" && !seen[k] {
			seen[k] = true
			a.Machines = append(a.Machines, machineText(m, k, r))
		}
	}
	a.Measured = strings.Join(commits, ", ")
	if a.Measured == "" {
		a.Measured = "of no recorded commit"
	}
	if raw {
		a.Links = append(a.Links, Link{Name: "raw records", Href: "#caveats"})
	}
	return a
}

// MachineTexts names in words each machine the env records of recs ran
// on, in the order they first appear ("host vm, AMD EPYC, 2 cores, 24
// GiB, Linux 6.18.44"); none when no env record names one.
func MachineTexts(recs []results.Record) []string {
	m := findMachines(recs)
	var out []string
	seen := map[string]bool{}
	for i := range recs {
		r := &recs[i]
		if k := machineKey(r); r.Phase == job.PhaseEnv && k != "" && !seen[k] {
			seen[k] = true
			out = append(out, machineText(m, k, r))
		}
	}
	return out
}

// ByMachine parts recs by the machine their study ran on (the machine of
// the env record before each record in its study, or of its study's
// first), in the order the machines first appear, each part with its
// machine in words (MachineTexts); one part when the records name one
// machine or none. Records of a study without an env record that names a
// machine go with the first machine's part.
func ByMachine(recs []results.Record) (parts [][]results.Record, machines []string) {
	all := findMachines(recs)
	if len(all.order) < 2 {
		return [][]results.Record{recs}, MachineTexts(recs)
	}
	envs, current := findStudyEnvs(recs), map[string]*results.Record{}
	at := map[string]int{"": 0}
	for i, k := range all.order {
		at[k] = i
	}
	parts, machines = make([][]results.Record, len(all.order)), make([]string, len(all.order))
	for i := range recs {
		r := &recs[i]
		if r.Phase == job.PhaseEnv {
			current[r.Study] = r
		}
		env := current[r.Study]
		if env == nil {
			env = envs.first[r.Study]
		}
		k := machineKey(env)
		if machines[at[k]] == "" && k != "" {
			machines[at[k]] = machineText(all, k, env)
		}
		parts[at[k]] = append(parts[at[k]], *r)
	}
	return parts, machines
}

// machineText is one machine in words: "vm: AMD EPYC, 2 cores, 24 GiB,
// Linux 6.18.44", named by its label when the records have several.
func machineText(m machines, key string, env *results.Record) string {
	e := env.Env
	text := fmt.Sprintf("%s, %s cores, %s GiB, Linux %s", e["cpu"], e["cores"], gib(e["memory_kb"]), e["kernel"])
	if h := e["host"]; h != "" && h != "unknown" {
		text = "host " + h + ", " + text
	}
	if m.several() {
		text = m.label[key] + ": " + text
	}
	return text
}

// recordsTitle names what the records are about when no record directory
// gives the page a title: their variants, stores and what was measured,
// and the days they ran.
func recordsTitle(recs []results.Record) string {
	var variants, kinds, days []string
	lo, hi := 0, 0
	for _, r := range recs {
		if r.Phase == job.PhaseEnv || r.Phase == job.PhaseEnd || r.Variant == "" {
			continue
		}
		if !slices.Contains(variants, r.Variant) {
			variants = append(variants, r.Variant)
		}
		if k := phaseKind(r.Phase); !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
		if r.Stores > 0 {
			lo, hi = minPositive(lo, r.Stores), max(hi, r.Stores)
		}
		if d := r.Started.UTC().Format("2006-01-02"); !r.Started.IsZero() && !slices.Contains(days, d) {
			days = append(days, d)
		}
	}
	slices.Sort(days)
	who := fmt.Sprintf("%d variants", len(variants))
	if len(variants) <= 3 {
		who = strings.Join(variants, ", ")
	}
	title := strings.Join(kinds, ", ") + " of " + who
	switch {
	case lo > 0 && lo == hi:
		title += " at " + thousands(float64(lo)) + " stores"
	case lo > 0:
		title += " at " + thousands(float64(lo)) + "–" + thousands(float64(hi)) + " stores"
	}
	if len(days) > 0 {
		title += " (" + days[0]
		if len(days) > 1 {
			title += " to " + days[len(days)-1]
		}
		title += ")"
	}
	return strings.ToUpper(title[:1]) + title[1:]
}

// phaseKind is what a phase measures, as the title lists it.
func phaseKind(p job.Phase) string {
	switch p {
	case job.PhaseServe:
		return "serve"
	case job.PhaseProfile:
		return "create profiles"
	}
	return "create and open"
}

// minPositive is the smaller of a and b, a when b is 0 and b when a is.
func minPositive(a, b int) int {
	if a == 0 {
		return b
	}
	return min(a, b)
}
