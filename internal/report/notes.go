package report

// The notes under a study's tables: its title, versions, engine options,
// duplicate and renamed records.

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// duplicates warns of each cell of the table that has several records,
// column by column.
func (t *table) duplicates() []duplicate {
	var out []duplicate
	for _, v := range t.variants {
		out = append(out, t.columns[v].recs.duplicates()...)
	}
	return out
}

// writeDuplicates writes the table's warnings of duplicate records.
func (t *table) writeDuplicates(w io.Writer) {
	for _, d := range t.duplicates() {
		fmt.Fprintf(w, "Warning: %v (a results file edited or joined by hand?).\n", d)
	}
}

// writeRenamed says which columns were recorded under an older id.
func (t *table) writeRenamed(w io.Writer) {
	for _, rv := range t.renamed {
		fmt.Fprintln(w, rv.note())
	}
}

// title names the table: "Study S, setting X", or with several studies
// "Studies S1, S2, setting X".
func (t *table) title() string {
	if len(t.studies) > 1 {
		return fmt.Sprintf("Studies %s, setting %s", strings.Join(t.studies, ", "), t.setting)
	}
	return fmt.Sprintf("Study %s, setting %s", t.study, t.setting)
}

// writeEngineOptions writes the line of engine options the columns'
// records name (the lean setting's), if any does, and with embeddings the
// line of each column's knn search.
func (t *table) writeEngineOptions(w io.Writer) {
	if opts := t.engineOptions(); opts != "" {
		fmt.Fprintf(w, "Engine options (docs/engines.md): %s.\n", opts)
	}
	if s := t.vectorSearches(); s != "" {
		fmt.Fprintf(w, "With embeddings a turn is open, knn, recent, append, close, and each held store answered one knn before the memory snapshot. knn search (docs/engines.md): %s.\n", s)
	}
}

// vectorSearches names each column's knn search, "" without embeddings.
func (t *table) vectorSearches() string {
	var parts []string
	for _, v := range t.variants {
		if c := t.columns[v]; c.search != "" {
			parts = append(parts, v+": "+c.search)
		}
	}
	return strings.Join(parts, "; ")
}

// engineOptions lists the engine options each column's records name (the
// lean setting's), "" when none does.
func (t *table) engineOptions() string {
	var parts []string
	for _, v := range t.variants {
		c := t.columns[v]
		if len(c.options) == 0 {
			continue
		}
		var opts []string
		for _, k := range slices.Sorted(maps.Keys(c.options)) {
			opts = append(opts, k+" "+strings.Join(c.options[k], " / "))
		}
		parts = append(parts, v+": "+strings.Join(opts, ", "))
	}
	return strings.Join(parts, "; ")
}

// versions lists each column's engine library versions (not its Go
// module versions, which the records keep); a library whose records name
// more than one version lists them all: "sqlite 3.54.1 / 3.55.0".
func (t *table) versions() string {
	var parts []string
	for _, v := range t.variants {
		c := t.columns[v]
		if c.na {
			continue
		}
		joined := map[string]string{}
		for k, vals := range c.version {
			joined[k] = strings.Join(vals, " / ")
		}
		libs := libraries(joined)
		if len(libs) == 0 {
			libs = []string{"unknown"}
		}
		parts = append(parts, v+": "+strings.Join(libs, ", "))
	}
	return strings.Join(parts, "; ")
}
