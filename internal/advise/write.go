package advise

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// style is how a format writes the answer's parts.
type style struct {
	markdown bool
	bullet   string // before each item of a list
	quote    string // around a command
	strong   string // around the options' heading
	table    func(*strings.Builder, grid)
}

// Parts are the parts of the answer, in the order it writes them; a
// caller may ask for some (--part).
func Parts() []string {
	return []string{"answer", "pools", "all-open", "layouts", "per-store", "gaps", "sources"}
}

// Text writes the parts of the answer for a terminal (all when none).
func (a Answer) Text(w io.Writer, parts ...string) error {
	return a.write(w, style{bullet: "  ", table: writeText}, parts)
}

// Markdown writes the parts of the answer as Markdown (all when none).
func (a Answer) Markdown(w io.Writer, parts ...string) error {
	return a.write(w, style{markdown: true, bullet: "- ", quote: "`", strong: "**", table: writeMarkdown}, parts)
}

// write writes the parts of the answer in style st: the scenario, then
// each part asked for.
func (a Answer) write(w io.Writer, st style, parts []string) error {
	b := &strings.Builder{}
	if len(parts) == 0 || slices.ContainsFunc(parts, func(p string) bool { return p != "layouts" && p != "per-store" }) {
		fmt.Fprintf(b, "Scenario: %s\n%s\n", a.summary(), a.machineLine()) // the parts that depend on it
	}
	writers := map[string]func(*strings.Builder, style){"answer": a.writeOptions, "pools": a.writePools, "all-open": a.writeAllOpen,
		"layouts": a.writeLayouts, "per-store": a.writePerStore, "gaps": a.writeGaps, "sources": a.writeSources}
	if len(parts) == 0 {
		parts = Parts()
	}
	for _, p := range Parts() {
		if slices.Contains(parts, p) {
			writers[p](b, st)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeOptions writes the options that qualify and the refusals.
func (a Answer) writeOptions(b *strings.Builder, st style) {
	fmt.Fprintf(b, "\n%sQualify (%d)%s, lowest p99 first; each at the pool with the lowest p99 that fits (the last column: measured at your agents, or extrapolated from serve's, whose p99 and hit rate it keeps):\n\n", st.strong, len(a.Options), st.strong)
	if len(a.Options) > 0 {
		st.table(b, a.optionsGrid())
		fmt.Fprintf(b, "\n%s\n\n%s\n", a.loadLine(), a.tiesLine())
		if line := a.planLine(); line != "" {
			fmt.Fprintf(b, "\n%s\n", line)
		}
	} else {
		fmt.Fprintf(b, "%snone\n", st.bullet)
	}
	a.writeRefused(b, st)
}

// writePools writes every variant at every pool share serve measured.
func (a Answer) writePools(b *strings.Builder, st style) {
	if len(a.Pools) == 0 {
		return
	}
	fmt.Fprintf(b, "\nEvery pool the records measured, as the same share of your agents: serve's p99 there and the memory (%s), and the processes the per-process limits need; \"no\" says what the scenario's limits rule out, – a pool serve skipped:\n\n", a.memoryHead())
	st.table(b, a.poolsGrid())
}

// writeAllOpen writes every variant with all the scenario's agents held
// open.
func (a Answer) writeAllOpen(b *strings.Builder, st style) {
	if len(a.AllOpen) == 0 {
		return
	}
	hold := "the hold's"
	if a.Scenario.Dims > 0 {
		hold = fmt.Sprintf("the hold's with embeddings of %d values", a.Scenario.Dims)
	}
	fmt.Fprintf(b, "\nEvery agent's store held open at once, idle, in a store per agent: %s memory per open store × %s agents, and the processes the per-process limits need:\n\n", hold, thousands(float64(a.Scenario.Agents)))
	st.table(b, a.allOpenGrid())
}

// writeLayouts writes the layouts side by side.
func (a Answer) writeLayouts(b *strings.Builder, st style) {
	if len(a.Layouts.Rows) == 0 {
		return
	}
	without := ""
	switch {
	case a.Layouts.Dims > 0:
		without = fmt.Sprintf(", notes with embeddings of %d values", a.Layouts.Dims)
	case a.Scenario.Dims > 0:
		without = ", without embeddings"
	}
	fmt.Fprintf(b, "\nOne store per agent or one for all (the variants the records hold in both layouts, each from the files that hold its shared store, so its two layouts come from the same studies; one request at a time%s; %s):\n\n", without, figureRule)
	st.table(b, a.Layouts.grid(layoutName))
	fmt.Fprintf(b, "\n%s\n", isolation)
}

// writePerStore writes the per-store table of the variants in stores of
// their own, the lowest warm p99 first.
func (a Answer) writePerStore(b *strings.Builder, st style) {
	if len(a.PerStore.Rows) == 0 {
		return
	}
	with := ""
	if a.Scenario.Dims > 0 {
		with = fmt.Sprintf(", notes with embeddings of %d values", a.Scenario.Dims)
	}
	fmt.Fprintf(b, "\nPer store, one request at a time, a store per agent%s, the lowest warm p99 first (%s; the studies' queries may differ: the file of one study gives that study's):\n\n", with, figureRule)
	st.table(b, a.PerStore.grid(TableRow.Name))
}

// writeGaps writes what the records do not cover.
func (a Answer) writeGaps(b *strings.Builder, st style) {
	fmt.Fprintf(b, "\nNot covered by the records, and the command that measures it:\n\n")
	for _, g := range a.Gaps {
		fmt.Fprintf(b, "%s%s\n  %s%s%s\n", st.bullet, g.What, st.quote, g.Command, st.quote)
	}
}

// writeRefused lists the variants that do not qualify, those of one
// reason together.
func (a Answer) writeRefused(b *strings.Builder, st style) {
	fmt.Fprintf(b, "\nDo not qualify (%d):\n\n", len(a.Refused))
	lines := a.refusedLines()
	for _, l := range lines {
		fmt.Fprintf(b, "%s%s\n", st.bullet, l)
	}
	if len(lines) == 0 {
		fmt.Fprintf(b, "%snone\n", st.bullet)
	}
}

// writeSources says where each option's figures come from, and the files
// read.
func (a Answer) writeSources(b *strings.Builder, st style) {
	if len(a.Options) == 0 {
		fmt.Fprintf(b, "\nRecords: %s\n", FilesText(a.Files))
		return
	}
	if st.markdown {
		b.WriteString("\n<details><summary>Where each figure comes from</summary>\n")
	}
	fmt.Fprintf(b, "\nWhere each figure comes from (manydb tables names the figures):\n\n")
	for _, o := range a.Options {
		fmt.Fprintf(b, "%s%s: p99 = %s; memory = %s; disk = %s\n", st.bullet, o.Name(), o.P99.From, o.Memory.From, o.Disk.From)
	}
	if st.markdown {
		b.WriteString("\n</details>\n")
	}
	fmt.Fprintf(b, "\nRecords: %s\n", FilesText(a.Files))
}

func writeText(b *strings.Builder, g grid) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  "+strings.Join(g.head, "\t"))
	for _, r := range g.rows {
		fmt.Fprintln(tw, "  "+strings.Join(r, "\t"))
	}
	tw.Flush()
}

func writeMarkdown(b *strings.Builder, g grid) {
	fmt.Fprintf(b, "| %s |\n|", strings.Join(g.head, " | "))
	for range g.head {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, r := range g.rows {
		fmt.Fprintf(b, "| %s |\n", strings.Join(r, " | "))
	}
}

// JSON writes the answer as JSON, every number with its source.
func (a Answer) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(a)
}
