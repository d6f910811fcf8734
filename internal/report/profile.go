package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// profileTable is one profile (manydb profile) of one variant: its
// records on the disk and on a tmpfs, as the reference study's "Where the
// create time goes".
type profileTable struct {
	study   string
	variant string
	env     *results.Record
	media   []string          // in the order recorded: disk, tmpfs
	recs    latest[string]    // medium → last ok record
	failed  map[string]bool   // medium → last record failed
	errors  map[string]string // medium → its error
	objects int
	spec    string
}

// groupProfiles collects the profile records of recs, one table per study
// and variant, in the order they first appear.
func groupProfiles(recs []results.Record) []*profileTable {
	var order []*profileTable
	byKey := map[studyVariant]*profileTable{}
	envs := map[string]*results.Record{}
	for i := range recs {
		r := &recs[i]
		if r.Phase == job.PhaseEnv {
			envs[r.Study] = r
		}
		if r.Phase != job.PhaseProfile {
			continue
		}
		key := studyVariant{r.Study, r.Variant}
		t := byKey[key]
		if t == nil {
			t = &profileTable{study: r.Study, variant: r.Variant, failed: map[string]bool{}, errors: map[string]string{}}
			byKey[key] = t
			order = append(order, t)
		}
		t.objects = r.Workload.Objects
		t.spec = fmt.Sprintf("%s: %s notes of %d characters per store", r.Workload.Name, thousands(float64(r.Workload.Objects)), r.Workload.TextLen)
		medium := "disk"
		if r.Profile != nil && r.Profile.Medium != "" {
			medium = r.Profile.Medium
		}
		if !slices.Contains(t.media, medium) {
			t.media = append(t.media, medium)
		}
		if r.Status != results.StatusOK || r.Profile == nil || len(r.Profile.TotalMs) == 0 {
			t.failed[medium] = true
			t.errors[medium] = r.Error
			continue
		}
		delete(t.failed, medium)
		delete(t.errors, medium)
		t.recs.put(medium, r)
	}
	for _, t := range order {
		t.env = envs[t.study]
	}
	return order
}

// rec is the last record of a medium when it is ok, else nil.
func (t *profileTable) rec(medium string) *results.Record {
	if t.failed[medium] {
		return nil
	}
	return t.recs.byKey[medium]
}

// profileRow is one line of a profile table.
type profileRow struct {
	label string
	value func(p *results.Profile) string
}

func (t *profileTable) rows() []profileRow {
	n := thousands(float64(t.objects))
	step := func(pick func(p *results.Profile) []float64) func(p *results.Profile) string {
		return func(p *results.Profile) string { return millis(stats.Median(pick(p)), 3) }
	}
	return []profileRow{
		{"Create the directory, open the new store (schema or model commit)", step(func(p *results.Profile) []float64 { return p.CreateMs })},
		{fmt.Sprintf("Build the %s notes in memory", n), step(func(p *results.Profile) []float64 { return p.FillMs })},
		{fmt.Sprintf("Marshal the %s notes (where the engine does that as a step of its own)", n), step(func(p *results.Profile) []float64 { return p.MarshalMs })},
		{fmt.Sprintf("Insert of the %s notes, incl. commit", n), step(func(p *results.Profile) []float64 { return p.InsertMs })},
		{"Close", step(func(p *results.Profile) []float64 { return p.CloseMs })},
		{"Total", step(func(p *results.Profile) []float64 { return p.TotalMs })},
		{"Sync calls per store", func(p *results.Profile) string {
			switch {
			case p.Syncs == nil:
				return "–"
			case p.Syncs.NotCounted != "":
				return "not counted"
			}
			return syncsPerStore(p.Syncs)
		}},
		{"One sync call (median)", func(p *results.Profile) string {
			if p.Syncs == nil || p.Syncs.NotCounted != "" || len(p.Syncs.CallMs) == 0 {
				return "–"
			}
			return millis(stats.Median(p.Syncs.CallMs), 3)
		}},
		{"Time in sync calls per store (under strace)", func(p *results.Profile) string {
			if p.Syncs == nil || p.Syncs.NotCounted != "" || p.Syncs.Stores < 1 {
				return "–"
			}
			var sum float64
			for _, x := range p.Syncs.CallMs {
				sum += x
			}
			return millis(sum/float64(p.Syncs.Stores), 3)
		}},
	}
}

// syncsPerStore formats the sync calls per store: "8 (fsync 8)".
func syncsPerStore(s *results.Syncs) string {
	if s.Stores < 1 {
		return "–"
	}
	per := func(n int) string {
		return strconv.FormatFloat(math.Round(float64(n)/float64(s.Stores)*100)/100, 'f', -1, 64)
	}
	var names []string
	total := 0
	for name, n := range s.Calls {
		if n > 0 {
			names = append(names, name)
			total += n
		}
	}
	if total == 0 {
		return "0"
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = name + " " + per(s.Calls[name])
	}
	return per(total) + " (" + strings.Join(parts, ", ") + ")"
}

func (t *profileTable) header(medium string) string {
	r := t.rec(medium)
	switch medium {
	case "disk":
		if r != nil && r.Profile.FS != "" {
			return "On disk (" + r.Profile.FS + ")"
		}
		return "On disk"
	case "tmpfs":
		return "On tmpfs (no real disk sync)"
	}
	return "On " + medium
}

func (t *profileTable) write(w io.Writer) {
	fmt.Fprintf(w, "## Where the create time goes: %s (profile %s)\n\n", t.variant, t.study)
	stores := 0
	for _, m := range t.media {
		if r := t.rec(m); r != nil {
			stores = len(r.Profile.TotalMs)
		}
	}
	fmt.Fprintf(w, "Median per store of %s stores per medium; workload %s. Each step is timed on its own; the total is one span around all steps.\n\n", thousands(float64(stores)), t.spec)
	heads := make([]string, len(t.media))
	for i, m := range t.media {
		heads[i] = t.header(m)
	}
	fmt.Fprintf(w, "| Step | %s |\n", strings.Join(heads, " | "))
	fmt.Fprintf(w, "| --- |%s\n", strings.Repeat(" --- |", len(t.media)))
	for _, row := range t.rows() {
		vals := make([]string, len(t.media))
		for i, m := range t.media {
			switch r := t.rec(m); {
			case r != nil:
				vals[i] = row.value(r.Profile)
			case t.failed[m]:
				vals[i] = "failed"
			default:
				vals[i] = "–"
			}
		}
		fmt.Fprintf(w, "| %s | %s |\n", row.label, strings.Join(vals, " | "))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The medians of the steps need not add up to the median total; each store's steps add up to its total. The total includes building the notes, which the create phase does before its span.")
	if s := t.syncNote(); s != "" {
		fmt.Fprintln(w, s)
	}
	for _, m := range t.media {
		if r := t.rec(m); r != nil && r.Profile.Syncs != nil && r.Profile.Syncs.NotCounted != "" {
			fmt.Fprintf(w, "Syncs on %s not counted: %s.\n", m, r.Profile.Syncs.NotCounted)
		}
	}
	for _, m := range t.media {
		if r := t.rec(m); r != nil {
			fmt.Fprintf(w, "On %s: %s, load %.2f at the start.\n", m, r.Profile.Dir, r.Load1)
		}
		if e := t.errors[m]; e != "" {
			fmt.Fprintf(w, "On %s: failed: %s (the failed record has the command and its output).\n", m, e)
		}
	}
	var versions map[string]string
	for _, m := range t.media {
		if r := t.rec(m); r != nil {
			versions = r.Versions
		}
	}
	if versions != nil {
		libs := libraries(versions)
		if len(libs) == 0 {
			libs = []string{"unknown"}
		}
		fmt.Fprintf(w, "Versions: %s: %s.\n", t.variant, strings.Join(libs, ", "))
	}
	for _, d := range t.recs.duplicates() {
		fmt.Fprintf(w, "Warning: %v (a results file edited or joined by hand?).\n", d)
	}
	writeEnv(w, t.env, false)
}

// syncNote says how the syncs were counted, from the first counted medium.
func (t *profileTable) syncNote() string {
	for _, m := range t.media {
		r := t.rec(m)
		if r == nil || r.Profile.Syncs == nil || r.Profile.Syncs.NotCounted != "" {
			continue
		}
		s := r.Profile.Syncs
		return fmt.Sprintf("Sync calls (fsync, fdatasync, msync, sync_file_range, sync, syncfs, and o_dsync_write: a write to a file opened with O_DSYNC or O_SYNC) were counted, and each one timed, in a separate run of %d stores per medium under %s (strace slows everything, so the steps above come from a run without it).",
			s.Stores, s.Tool)
	}
	return ""
}

// writeProfiles writes the profile tables, separated from what came
// before by a blank line when sep is set.
func writeProfiles(w io.Writer, ts []*profileTable, sep bool) {
	for _, t := range ts {
		if sep {
			fmt.Fprintln(w)
		}
		t.write(w)
		sep = true
	}
}
