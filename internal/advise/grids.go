package advise

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"manydb/internal/report"
)

// This file holds the answer's tables and sentences as every writer
// shows them (Text, Markdown and the report's Lead): they only read the
// answer.

// grid is a table of the answer, written as text or Markdown.
type grid struct {
	head []string
	rows [][]string
}

// optionsGrid is the table of the options, in rank order.
func (a Answer) optionsGrid() grid {
	g := grid{head: []string{"#", "variant", "layout", "pool kept open", "serve p99", "p99 interval", "p99 at", "pool hits", "served/s there", a.memoryHead(), "disk", "processes", "machines", "from the records"}}
	if a.Scenario.Dims > 0 {
		g.head = append(g.head, "recall@10", "p5", "found none")
	}
	for _, o := range a.Options {
		row := []string{rankText(o), o.VariantName(), o.Layout.Phrase(), fmt.Sprintf("%s (%s)", thousands(float64(o.Pool)), percent(o.PoolShare)),
			o.P99.Text(), o.Spread.Text(), o.Load.Text(), o.HitRate.Text(), o.Served.Text(), o.Memory.Text(), o.Disk.Text(), procsText(o), machinesText(o), scaleText(o)}
		if a.Scenario.Dims > 0 {
			row = append(row, o.Recall.Text(), o.RecallP5.Text(), o.RecallNone.Text())
		}
		g.rows = append(g.rows, row)
	}
	return g
}

func (a Answer) memoryHead() string {
	if a.Scenario.Container {
		return "memory charged"
	}
	return "memory resident"
}

func procsText(o Option) string {
	if o.Procs == 0 {
		return "?" // the gaps say why
	}
	if o.Limit == "" {
		return fmt.Sprint(o.Procs)
	}
	return fmt.Sprintf("%d (%s)", o.Procs, o.Limit)
}

// machinesText is the machines an option needs: "1", or "3 × 3,334
// agents" (each machine's shard).
func machinesText(o Option) string {
	if o.Machines <= 1 {
		return "1"
	}
	return fmt.Sprintf("%d × %s agents", o.Machines, thousands(float64(o.AgentsPerMachine)))
}

// loadLine says at which offered load each option's p99 was measured,
// the options of one reason together.
func (a Answer) loadLine() string {
	var whys []string
	names := map[string][]string{}
	for _, o := range a.Options {
		why := "at " + o.Load.Text() + ", " + o.Load.Why
		if names[why] == nil {
			whys = append(whys, why)
		}
		names[why] = append(names[why], o.Name())
	}
	parts := make([]string, len(whys))
	for i, why := range whys {
		parts[i] = fmt.Sprintf("%s: %s", why, strings.Join(names[why], ", "))
	}
	return fmt.Sprintf("The p99 at your %s requests/s (a machine's share when it takes several), read on each variant's serve rate ladder: %s.", report.Natural(a.Rate, ""), strings.Join(parts, "; "))
}

// tiesLine says which differences of the options' p99s are real: the
// ranks in order, "<" between ranks whose p99 intervals lie apart, "~"
// between the options of one rank.
func (a Answer) tiesLine() string {
	var b strings.Builder
	for i, o := range a.Options {
		switch {
		case i == 0:
		case o.Rank == a.Options[i-1].Rank:
			b.WriteString(" ~ ")
		default:
			b.WriteString(" < ")
		}
		b.WriteString(o.Name())
	}
	return fmt.Sprintf("Which differences are real (%s): %s.", spreadRule, b.String())
}

// machineLine names the machine the records' figures come from.
func (a Answer) machineLine() string {
	switch len(a.Machines) {
	case 0:
		return "Machine: not named in these records (no env record)."
	case 1:
		return "Machine: the figures are of one machine, " + a.Machines[0] + "."
	}
	return "Machines: the figures are of " + strings.Join(a.Machines, "; ") + "."
}

// planLine is the plan past one machine when an option needs several
// ("" when none does): machines like the records', each with its shard.
func (a Answer) planLine() string {
	if !slices.ContainsFunc(a.Options, func(o Option) bool { return o.Machines > 1 }) {
		return ""
	}
	return "Past one machine (machines above more than 1): as many machines like the records' as the requests need at what it served there, each with its share of the agents and their requests, its pool, memory, disk and processes those of its share; shard the agents by a hash of their id over the machines, a store per agent moving whole with its agent when machines are added (a shared store is one per machine, split by the same hash). Not measured past one machine."
}

// scaleText says how far o is from a measurement: "measured", or
// "extrapolated ×100 from 10,000 agents", "extrapolated ÷10 from …"
// (the p99 and hit rate are those measured there, the memory and disk
// scaled).
func scaleText(o Option) string {
	switch {
	case o.Scale == 1:
		return "measured"
	case o.Scale < 1:
		return fmt.Sprintf("extrapolated ÷%s from %s agents", report.Natural(1/o.Scale, ""), thousands(float64(o.ServedAgents)))
	}
	return fmt.Sprintf("extrapolated ×%s from %s agents", report.Natural(o.Scale, ""), thousands(float64(o.ServedAgents)))
}

// summary is the scenario in one sentence.
func (a Answer) summary() string {
	s := a.Scenario
	mem := "no memory limit"
	if s.MemoryBytes > 0 {
		where := "resident in the processes"
		if s.Container {
			where = "charged to a container (its own memory and the page cache)"
		}
		mem = report.Natural(float64(s.MemoryBytes)/1024, "KB") + " " + where
	}
	traffic := fmt.Sprintf("%s requests/s", report.Natural(a.Rate, ""))
	if s.Rate == 0 {
		traffic += fmt.Sprintf(" (%s of the agents active in an hour, %g turns each)", percent(s.ActiveShare), s.TurnsPerActive)
	}
	emb := "no embeddings"
	if s.Dims > 0 {
		emb = fmt.Sprintf("embeddings of %d values, recalled in every turn", s.Dims)
	}
	return fmt.Sprintf("%s agents of %s notes; %s; a turn's p99 at most %s; %s; %s.",
		thousands(float64(s.Agents)), thousands(float64(s.Notes)), mem, report.Natural(float64(s.P99)/float64(time.Millisecond), "ms"), traffic, emb)
}

// poolsGrid is the table of every variant at every pool share: a column
// per share any variant measured, each cell serve's p99 and the memory
// there (and the processes, when more than one), "no (…)" when the
// scenario rules it out, – when serve did not measure it.
func (a Answer) poolsGrid() grid {
	var shares []float64
	for _, r := range a.Pools {
		for _, o := range r.Pools {
			if !slices.Contains(shares, o.PoolShare) {
				shares = append(shares, o.PoolShare)
			}
		}
	}
	slices.Sort(shares)
	g := grid{head: []string{"variant", "layout"}}
	for _, sh := range shares {
		g.head = append(g.head, "pool "+percent(sh))
	}
	for _, r := range a.Pools {
		row := []string{r.VariantName(), r.Layout.Phrase()}
		for _, sh := range shares {
			k := slices.IndexFunc(r.Pools, func(o Option) bool { return o.PoolShare == sh })
			if k < 0 {
				row = append(row, "–")
				continue
			}
			row = append(row, poolCell(r.Pools[k], r.Whys[k]))
		}
		g.rows = append(g.rows, row)
	}
	return g
}

// poolCell is one variant at one pool share: "6.07 ms, 379 MB", with the
// processes when more than one, and what rules it out.
func poolCell(o Option, why string) string {
	text := o.P99.Text() + ", " + o.Memory.Text()
	switch {
	case o.Procs == 0:
		text += ", processes unknown"
	case o.Procs > 1:
		text += fmt.Sprintf(", %d processes", o.Procs)
	}
	if why != "" {
		text += " (no: " + shortWhy(why) + ")"
	}
	return text
}

// shortWhy names what rules an option out in a word or two.
func shortWhy(why string) string {
	for _, w := range []struct{ prefix, short string }{
		{"p99", "p99"}, {"memory not", "no memory figure"}, {"memory", "memory"}, {"disk not", "no disk figure"}, {"disk", "disk"}, {"needs", "processes"}, {"no p99", "no p99"},
	} {
		if strings.HasPrefix(why, w.prefix) {
			return w.short
		}
	}
	return "rate"
}

// allOpenGrid is the table of allOpen.
func (a Answer) allOpenGrid() grid {
	g := grid{head: []string{"variant", "resident", "anonymous", "charged to a container", "processes (the first limit)", "fits"}}
	for _, x := range a.AllOpen {
		fits := "yes"
		switch {
		case x.Why == notWithEmbeddings(a.Scenario):
			fits = x.Why
		case x.Why != "":
			fits = "no: " + x.Why
		}
		procs := fmt.Sprint(x.Procs)
		if x.Procs == 0 {
			procs = "?"
		} else if x.Limit != "" {
			procs += " (" + x.Limit + ")"
		}
		g.rows = append(g.rows, []string{x.Name(), x.Resident.Text(), x.Anonymous.Text(), x.Charged.Text(), procs, fits})
	}
	return g
}

// grid is the table as the answer writes it, each row named by name.
func (t Table) grid(name func(TableRow) string) grid {
	g := grid{head: []string{"variant"}}
	for _, c := range t.Columns {
		g.head = append(g.head, c.Head)
	}
	for _, r := range t.Rows {
		row := []string{name(r)}
		for _, n := range r.Cells {
			row = append(row, n.Text())
		}
		g.rows = append(g.rows, row)
	}
	return g
}

// layoutName names a row with its layout: "sqlite_capi per agent",
// "sqlite_capi shared" (a layout that marks no name, the default, is
// named by its phrase).
func layoutName(r TableRow) string {
	if r.Layout.Label() != "" {
		return r.Name()
	}
	return strings.Replace(r.Name(), r.Variant, r.Variant+" "+r.Layout.Phrase(), 1)
}

// refusedLines are the refusals, those of one reason on one line.
func (a Answer) refusedLines() []string {
	var whys []string
	names := map[string][]string{}
	for _, r := range a.Refused {
		if names[r.Why] == nil {
			whys = append(whys, r.Why)
		}
		names[r.Why] = append(names[r.Why], r.Name())
	}
	lines := make([]string, len(whys))
	for i, why := range whys {
		lines[i] = strings.Join(names[why], ", ") + ": " + why
	}
	return lines
}

// line says r in a sentence: the lowest three, and the highest.
func (r Rank) line() string {
	var low []string
	for _, x := range r.Order[:min(3, len(r.Order))] {
		low = append(low, fmt.Sprintf("%s %s", x.Name(), x.Value.Text()))
	}
	text := fmt.Sprintf("%s, lowest first: %s", upperFirst(r.Label), strings.Join(low, ", "))
	if len(low) == 0 {
		text = upperFirst(r.Label) + ": none ranked"
	}
	if n := len(r.Order); n > 3 {
		last := r.Order[n-1]
		text += fmt.Sprintf("; highest: %s %s", last.Name(), last.Value.Text())
	}
	text += fmt.Sprintf(" (%s, of %d)", r.Figure, len(r.Order))
	var outside []string
	for _, x := range r.Outside {
		outside = append(outside, fmt.Sprintf("%s ≈ 0 (measured %s)", x.Name(), x.Value.Text()))
	}
	if len(outside) > 0 {
		text += "; not ranked, below zero: " + strings.Join(outside, ", ")
	}
	var cold []string
	for _, x := range r.NotWarm {
		cold = append(cold, x.Name()+" "+x.Value.Text())
	}
	if len(cold) > 0 {
		text += "; not ranked, some runs not warm (below 99 % of their pages cached): " + strings.Join(cold, ", ")
	}
	return text + "."
}

// upperFirst is s with its first letter upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// isolation is what the layouts' figures do not show: what each layout
// is to an application beyond its cost.
const isolation = "Beyond these figures: an agent with a store of its own is a directory to copy, move, encrypt, back up or delete as a whole, and no statement can reach another agent's notes; in a shared store an agent is the rows its key selects, every statement must carry that key, and deleting it leaves the space to the engine (the disk given back above)."
