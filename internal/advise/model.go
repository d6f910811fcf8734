package advise

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"

	"manydb/internal/job"
	"manydb/internal/report"
)

// This file is the model: the types of an answer, which Advise computes
// from the evidence and the writers (Text, Markdown, JSON, Lead) only
// read, and how the answer writes a number.

var nan = math.NaN()

// Key names one variant under one setting in one layout.
type Key struct {
	Variant string     `json:"variant"`
	Setting string     `json:"setting"`
	Layout  job.Layout `json:"layout,omitempty"`
}

// Name is how the answer names k: "sqlite_capi", "sqlite_capi shared",
// with the setting when it is not the default.
func (k Key) Name() string {
	return k.withSetting(k.Layout.Mark(k.Variant, " "))
}

// VariantName is k without its layout, for tables that give the layout a
// column of its own: "sqlite_capi", "sqlite [wal]".
func (k Key) VariantName() string { return k.withSetting(k.Variant) }

// withSetting is name with k's setting when it is not the default.
func (k Key) withSetting(name string) string {
	if k.Setting != "" && k.Setting != "default" {
		name += " [" + k.Setting + "]"
	}
	return name
}

// A Number is one figure of the answer and where it comes from: a figure
// of the records (its name as manydb tables names it, the level, how many
// values and the files), or the arithmetic over such figures.
type Number struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	From  string  `json:"from"`
	// Sources are the figures of the records it is computed from.
	Sources []Source `json:"sources"`
}

// A Source is one figure of the records a Number uses: the median of
// Values values of figure Figure (manydb tables' name) of a variant,
// setting and layout, in records with Dims values per embedding, at
// Level (a serve figure's pool; -1: every value) in Files; for a figure
// with a value per run (Pooled), its statistic over the samples of those
// runs pooled instead, as the tables give it.
type Source struct {
	Key
	Dims   int    `json:"dims"`
	Figure string `json:"figure"`
	Level  int    `json:"level"`
	// Rate is the rate offered of a serve rung (its open loop's
	// requests/s), whose records alone it is of; 0: every record at Level.
	Rate   float64  `json:"rate,omitempty"`
	Values int      `json:"values"`
	Median float64  `json:"median"`
	Pooled bool     `json:"pooled,omitempty"`
	Files  []string `json:"files"`
}

// figureRule is how a figure of the per-store and layouts tables is
// computed from the records, as their captions say: Evidence.figure
// computes it so, and manydb tables computes its own figures alike. A
// p99 of the samples pooled is the latency one request in a hundred
// exceeds over every store measured, which a median of each run's p99s
// is not.
const figureRule = "a figure of each store's samples (a p50, a p99, recall) is over every store of every run and study pooled, as manydb tables computes it; any other figure is the median of its runs' and studies' values"

// derived is a number computed from parts, whose sources it keeps.
func derived(value float64, unit, from string, parts ...Number) Number {
	n := Number{Value: value, Unit: unit, From: from}
	for _, p := range parts {
		n.Sources = append(n.Sources, p.Sources...)
	}
	return n
}

// MarshalJSON writes n, its value null when it has none.
func (n Number) MarshalJSON() ([]byte, error) {
	type plain Number
	if n.known() {
		return json.Marshal(plain(n))
	}
	return json.Marshal(struct {
		Value   *float64 `json:"value"`
		Unit    string   `json:"unit"`
		From    string   `json:"from"`
		Sources []Source `json:"sources"`
	}{nil, n.Unit, n.From, n.Sources})
}

// known tells whether n has a value.
func (n Number) known() bool { return !math.IsNaN(n.Value) }

// Text writes n in its unit as the tables do ("–" without a value).
func (n Number) Text() string { return report.Natural(n.Value, n.Unit) }

// An Option is a variant that qualifies: the pool of open stores to keep
// and what it costs there.
type Option struct {
	Key
	// Pool is the open stores to keep (a share of the agents, as the
	// records' serve pools were of theirs), PoolShare that share.
	Pool      int     `json:"pool"`
	PoolShare float64 `json:"pool_share"`
	// ServedAgents are the agents (stores) serve measured the pool's
	// share of, and Scale the scenario's agents over them: 1 measured at
	// the scenario's agents, else extrapolated (the hit rate and p99 are
	// those measured there, the memory and disk scaled).
	ServedAgents int     `json:"served_agents"`
	Scale        float64 `json:"scale"`
	P99          Number  `json:"p99"`
	// Load is the offered load P99 was measured at: the scenario's rate
	// read on a rate ladder, or saturation.
	Load Load `json:"p99_load"`
	// Spread is P99's interval (spread.go: the runs' own p99s and their
	// sampling spread; with embeddings the knn p99 added as one value),
	// and Rank the option's place, shared with the options whose
	// intervals overlap (Tied).
	Spread     Interval `json:"p99_spread"`
	Rank       int      `json:"rank"`
	Tied       bool     `json:"tied,omitempty"`
	HitRate    Number   `json:"hit_rate"`
	Served     Number   `json:"requests_per_second"` // what the records' machine served at that pool
	Memory     Number   `json:"memory"`              // the scenario's kind: container charge or resident
	Disk       Number   `json:"disk"`
	Recall     Number   `json:"recall,omitzero"`      // with embeddings: recall@10's mean
	RecallP5   Number   `json:"recall_p5,omitzero"`   // its 5th percentile
	RecallNone Number   `json:"recall_none,omitzero"` // the share of answers that found none of the 10
	Procs      int      `json:"processes"`
	// Limit names the per-process limit that set Procs ("" when one
	// process holds the pool).
	Limit string `json:"limit,omitempty"`
	// Machines are the machines like the records' that the requests
	// need, each holding AgentsPerMachine agents (their shard: the
	// option's pool, memory, disk and processes are one machine's).
	Machines         int `json:"machines"`
	AgentsPerMachine int `json:"agents_per_machine"`
}

// A Refusal is a variant that does not qualify, and why.
type Refusal struct {
	Key
	Why string `json:"why"`
}

// farScale is the distance from a measurement (distance of a Scale) from which the
// answer calls a scenario far outside the records, and names the command
// that would measure it.
const farScale = 10

// notServed is why a variant without serve records does not qualify.
const notServed = "no serve figures in the records: its pool, p99 under traffic and memory under traffic are not measured"

// A Gap is what the records do not cover for the scenario, and the
// command that would measure it.
type Gap struct {
	What    string `json:"what"`
	Command string `json:"command"`
}

// Answer is advise's answer to a scenario.
type Answer struct {
	Scenario Scenario  `json:"scenario"`
	Rate     float64   `json:"requests_per_second"`
	Options  []Option  `json:"qualify"`
	Refused  []Refusal `json:"do_not_qualify"`
	Gaps     []Gap     `json:"not_covered"`
	Pools    []PoolRow `json:"pools"`
	AllOpen  []AllOpen `json:"all_open"`
	Layouts  Table     `json:"layouts"`
	PerStore Table     `json:"per_store_table"`
	Ranks    []Rank    `json:"per_store"`
	Files    []string  `json:"files"`
	// Machines are the machines the records ran on, in words.
	Machines []string `json:"machines"`
}

// A PoolRow is one variant at every pool share its serve records
// measured, scaled to the scenario's agents: an Option per share, with
// why it does not meet the scenario ("" when it does).
type PoolRow struct {
	Key
	Pools []Option `json:"pools"`
	Whys  []string `json:"whys"`
}

// An AllOpen is a variant with every agent's store held open at once,
// idle (as the hold measured them, not under traffic): the memory that
// takes, resident, anonymous and charged to a container, and the
// processes the per-process limits need.
type AllOpen struct {
	Key
	Resident  Number `json:"resident"`
	Anonymous Number `json:"anonymous"`
	Charged   Number `json:"charged"`
	Procs     int    `json:"processes"`
	Limit     string `json:"limit,omitempty"`
	// Why says what of the scenario it does not meet ("" when it fits).
	Why string `json:"why,omitempty"`
}

// A Table is figures of the records per variant: a column per figure, a
// row per variant, setting and layout, each cell the figure's median.
type Table struct {
	Columns []Column   `json:"columns"`
	Rows    []TableRow `json:"rows"`
	// Dims is the values per embedding of the notes its figures are of;
	// 0: notes without embeddings.
	Dims int `json:"dims,omitempty"`
}

// A Column is one figure of a Table and its heading.
type Column struct {
	Figure report.FigureName `json:"figure"`
	Head   string            `json:"head"`
}

// A TableRow is one variant's cells, one per column.
type TableRow struct {
	Key
	Cells []Number `json:"cells"`
}

// A Rank orders the variants by one per-store figure, lowest first: what
// the records say one request at a time, with or without serve.
type Rank struct {
	Figure report.FigureName `json:"figure"`
	Label  string            `json:"label"`
	Order  []Ranked          `json:"order"`
	// Outside are the values outside what the figure can be (a memory
	// below zero: report.OutsideDomain), named as ≈ 0 and never ranked.
	Outside []Ranked `json:"outside_domain,omitempty"`
	// NotWarm are the timings of variants some of whose warm runs were
	// not warm (report.Figures.NotWarm): of another cache state than the
	// order's, named and never ranked with them.
	NotWarm []Ranked `json:"not_warm,omitempty"`
}

// Ranked is one variant's value in a Rank.
type Ranked struct {
	Key
	Value Number `json:"value"`
}

// thousands writes a count as the tables do, its digits grouped:
// "20,000".
func thousands(v float64) string { return report.Natural(v, "") }

// percent writes a share as a percentage: "10 %", "0.5 %".
func percent(share float64) string { return report.Natural(100*share, "") + " %" }

// FilesText names files by their last two path elements
// ("2026-12-04/serve.jsonl.gz").
func FilesText(files []string) string {
	short := make([]string, len(files))
	for i, f := range files {
		short[i] = filepath.Join(filepath.Base(filepath.Dir(f)), filepath.Base(f))
	}
	return strings.Join(short, ", ")
}

// Load tells at which offered load an option's p99 was measured: at the
// ladder's rate Rate (open loop), or at saturation (the closed loop;
// Rate 0) and why.
type Load struct {
	Rate float64 `json:"rate,omitempty"`
	Why  string  `json:"why"`
}

// Text is the load as the options' table shows it.
func (l Load) Text() string {
	if l.Rate > 0 {
		return report.Natural(l.Rate, "") + "/s"
	}
	return "saturation"
}

// An Interval is the spread of a p99 (ms): from Lo to Hi, NaN when the
// records do not give it.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// unknownSpread is an interval the records do not give.
var unknownSpread = Interval{nan, nan}

// MarshalJSON writes i, its ends null when unknown.
func (i Interval) MarshalJSON() ([]byte, error) {
	if !i.known() {
		return []byte(`{"lo":null,"hi":null}`), nil
	}
	type plain Interval
	return json.Marshal(plain(i))
}

// known tells whether the interval has both ends.
func (i Interval) known() bool { return !math.IsNaN(i.Lo) && !math.IsNaN(i.Hi) }

// overlaps tells whether i and j share a value; an unknown interval
// overlaps every other (a difference from it is not shown to be real).
func (i Interval) overlaps(j Interval) bool {
	return !i.known() || !j.known() || (i.Lo <= j.Hi && j.Lo <= i.Hi)
}

// plus is i shifted by x ms (a figure without a spread added to it).
func (i Interval) plus(x float64) Interval { return Interval{i.Lo + x, i.Hi + x} }

// span is the smallest interval holding i and j (i alone when j is
// unknown, as for the first run).
func (i Interval) span(j Interval) Interval {
	if !i.known() {
		return j
	}
	if !j.known() {
		return i
	}
	return Interval{min(i.Lo, j.Lo), max(i.Hi, j.Hi)}
}

// Text is the interval as the options' table shows it ("–" unknown).
func (i Interval) Text() string {
	if !i.known() {
		return "–"
	}
	return report.Natural(i.Lo, "ms") + " – " + report.Natural(i.Hi, "ms")
}
