package advise

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"manydb/internal/job"
	"manydb/internal/report"
	"manydb/internal/results"
	"manydb/internal/stats"
	"manydb/internal/workload"
)

// fakeEngine describes a synthetic variant's records: serve at pools 0, 10
// and 100 of 100 stores with p99s p99s[k], peak resident memory peaks[k]
// (KB), and a hold of 50 stores costing holdKB each (resident and
// anonymous; twice that charged to a container: holdKB of page cache)
// and filesPer open files each. Serve's anonymous peaks are half its
// resident ones.
type fakeEngine struct {
	name     string
	p99s     [3]float64
	peaks    [3]int64
	holdKB   float64
	filesPer int
	spaceKB  int64
}

// records makes e's records: a study with a space, a hold and three
// serve steps, its stores 1,000 notes each.
func (e fakeEngine) records() []results.Record {
	base := results.Record{Schema: results.Schema, Study: "s-" + e.name, Variant: e.name, Setting: "default", Status: results.StatusOK,
		Workload: workload.Spec{Objects: 1000, TextLen: 300}, Stores: 100, File: "dir/" + e.name + ".jsonl"}
	space := base
	space.Phase, space.Bytes = job.PhaseSpace, []int64{e.spaceKB * 1024, e.spaceKB * 1024}
	hold := base
	hold.Phase = job.PhaseHold
	hold.Hold = &results.Hold{Held: 50, RssKB: e.holdKB, AnonKB: e.holdKB, FDsBefore: 10, FDs: 10 + 50*e.filesPer,
		Limits:    &results.Limits{OpenFiles: 1010},
		Container: &results.Container{BytesBefore: 0, BytesAfter: int64(2 * e.holdKB * 1024 * 50)}}
	recs := []results.Record{space, hold}
	for k, pool := range []int{0, 10, 100} {
		r := base
		r.Phase, r.PoolStep = job.PhaseServe, k+1
		r.Serve = &results.Serve{Pool: pool, Requests: 1000, Hits: int64(10 * k), WallS: 1, P50Ms: 1, P99Ms: e.p99s[k],
			RssKB: []int64{e.peaks[k] / 2, e.peaks[k]}, AnonKB: []int64{e.peaks[k] / 4, e.peaks[k] / 2}, FDs: []int{10, 10 + pool*e.filesPer}}
		recs = append(recs, r)
	}
	return recs
}

// answer is Advise's answer to s over the engines' records.
func answer(t *testing.T, s Scenario, es ...fakeEngine) Answer {
	t.Helper()
	var recs []results.Record
	for _, e := range es {
		recs = append(recs, e.records()...)
	}
	a, err := Advise(s, Collect(recs, s.Dims), []string{"dir/x.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestPoolChoice: each variant qualifies at the pool with the lowest p99
// that fits the memory limit; memory is the peak with no pool plus the
// pool × serve's growth per pool slot at that share.
func TestPoolChoice(t *testing.T) {
	fast := fakeEngine{name: "fast", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 300}
	slow := fakeEngine{name: "slow", p99s: [3]float64{30, 25, 40}, peaks: [3]int64{1000, 1100, 1200}, holdKB: 20, filesPer: 1, spaceKB: 300}
	s := Default()
	s.Agents, s.MemoryBytes, s.Container, s.P99 = 1000, 3<<30, false, 20*time.Millisecond
	a := answer(t, s, fast, slow)
	if len(a.Options) != 1 || a.Options[0].Variant != "fast" {
		t.Fatalf("options %+v, want fast alone", a.Options)
	}
	o := a.Options[0]
	// pool 100 of 100 → 1,000 agents open: 1,000 + 1,000 × 100 KB (serve's
	// growth there, (11,000 − 1,000) / 100): 101,000 KB fits 3 GiB and has
	// the lowest p99.
	if o.Pool != 1000 || o.P99.Value != 2 || o.Memory.Value != 1000+1000*100 {
		t.Errorf("pool %d, p99 %v, memory %v KB; want 1000, 2, 101000", o.Pool, o.P99.Value, o.Memory.Value)
	}
	if o.Disk.Value != 300*1000 {
		t.Errorf("disk %v KB, want 300,000", o.Disk.Value)
	}
	if len(a.Refused) != 1 || !strings.Contains(a.Refused[0].Why, "p99 25 ms (at saturation) over 20 ms") {
		t.Errorf("refused %+v, want slow with its p99s", a.Refused)
	}
	// With 50 MiB the pool of 100 % no longer fits: 10 % (100 open,
	// 1,000 + 100 × 100 KB) does.
	s.MemoryBytes = 50 << 20
	o = answer(t, s, fast).Options[0]
	if o.Pool != 100 || o.P99.Value != 5 || o.Memory.Value != 11000 {
		t.Errorf("50 MiB: pool %d, p99 %v, memory %v; want 100, 5, 11000", o.Pool, o.P99.Value, o.Memory.Value)
	}
}

// TestProcessesForOpenFiles: a pool needing more open files than one
// process may have is split over processes, each with its fixed memory,
// and --procs refuses it.
func TestProcessesForOpenFiles(t *testing.T) {
	many := fakeEngine{name: "many", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 1100, 1200}, holdKB: 1, filesPer: 8, spaceKB: 100}
	s := Default()
	s.Agents = 1000
	o := answer(t, s, many).Options[0]
	// 1,000 open × 8 files over 1,010 − 10 per process: 8 processes.
	if o.Pool != 1000 || o.Procs != 8 || !strings.Contains(o.Limit, "open files") {
		t.Fatalf("pool %d in %d processes (%s), want 1000 in 8 (open files)", o.Pool, o.Procs, o.Limit)
	}
	// in a container: each process' anonymous peak with no pool (500 KB),
	// and per open store serve's anonymous growth at its pool of 100,
	// (600 − 500) / 100, and the page cache, 1 KB
	if o.Memory.Value != 8*500+1000*(1+1) {
		t.Errorf("memory %v KB, want 8 × 500 + 1,000 × 2", o.Memory.Value)
	}
	s.MaxProcs = 2
	o = answer(t, s, many).Options[0]
	if o.Pool != 100 || o.Procs != 1 {
		t.Errorf("at most 2 processes: pool %d in %d processes, want 100 in 1", o.Pool, o.Procs)
	}
}

// TestGapsNameCommands: a scenario the records do not cover says so with
// a command to measure it.
func TestGapsNameCommands(t *testing.T) {
	fast := fakeEngine{name: "fast", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 300}
	s := Default()
	s.Agents, s.Notes = 5000, 200
	a := answer(t, s, fast)
	var text bytes.Buffer
	if err := a.Text(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Stores of 200 notes: the records' stores hold 1,000",
		"manydb run --engines fast --objects 200",
		"5,000 agents: serve measured 100",
		"manydb serve --engines fast --stores 5000",
		"--rate 2.77778",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("answer lacks %q:\n%s", want, text.String())
		}
	}
	s.Dims = 384
	a = answer(t, s, fast)
	if len(a.Options) != 0 || len(a.Refused) != 1 || a.Refused[0].Why != "not measured with embeddings of 384 values" {
		t.Errorf("with --dims and no vector records: options %+v, refused %+v", a.Options, a.Refused)
	}
}

// TestValidate: each value outside its domain is refused with the flag's
// name.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Scenario)
		flag string
	}{
		{func(s *Scenario) { s.Agents = 0 }, "--agents"},
		{func(s *Scenario) { s.Notes = -1 }, "--notes"},
		{func(s *Scenario) { s.P99 = 0 }, "--p99"},
		{func(s *Scenario) { s.P99 = 900 * time.Nanosecond }, "--p99"},
		{func(s *Scenario) { s.Rate = math.Inf(1) }, "--rate"},
		{func(s *Scenario) { s.Rate = math.NaN() }, "--rate"},
		{func(s *Scenario) { s.TurnsPerActive = math.Inf(1) }, "--turns-per-hour"},
		{func(s *Scenario) { s.ActiveShare = 1.5 }, "--active"},
		{func(s *Scenario) { s.ActiveShare = math.NaN() }, "--active"},
		{func(s *Scenario) { s.TurnsPerActive = 0 }, "--turns-per-hour"},
		{func(s *Scenario) { s.Rate = -1 }, "--rate"},
		{func(s *Scenario) { s.Dims = 9000 }, "--dims"},
		{func(s *Scenario) { s.MaxProcs = -1 }, "--procs"},
		{func(s *Scenario) { s.OpenFiles = 10 }, "--open-files"},
	} {
		s := Default()
		tc.edit(&s)
		err := s.Validate()
		if !errors.Is(err, ErrScenario) || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%s: error %v", tc.flag, err)
		}
	}
	if err := Default().Validate(); err != nil {
		t.Errorf("the default scenario: %v", err)
	}
}

// TestJSONKeepsSources: the JSON answer writes a number without a value
// as null, and every number's sources.
func TestJSONKeepsSources(t *testing.T) {
	fast := fakeEngine{name: "fast", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 300}
	var b bytes.Buffer
	if err := answer(t, Default(), fast).JSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Qualify []struct {
			P99 struct {
				Value   float64  `json:"value"`
				Sources []Source `json:"sources"`
			} `json:"p99"`
		} `json:"qualify"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	src := got.Qualify[0].P99.Sources
	if len(src) != 1 || src[0].Figure != "serve-p99" || src[0].Level != 100 || src[0].Files[0] != "dir/fast.jsonl" {
		t.Errorf("p99 sources %+v", src)
	}
}

// TestRanksPerStore: the variants are ranked by each per-store figure,
// lowest first, without serve records too.
func TestRanksPerStore(t *testing.T) {
	small := fakeEngine{name: "small", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 100}
	big := fakeEngine{name: "big", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 20, filesPer: 1, spaceKB: 300}
	a := answer(t, Default(), small, big)
	byFigure := map[report.FigureName][]string{}
	for _, r := range a.Ranks {
		for _, x := range r.Order {
			byFigure[r.Figure] = append(byFigure[r.Figure], x.Variant)
		}
	}
	if got := byFigure[report.FigureSpacePerStore]; len(got) != 2 || got[0] != "small" {
		t.Errorf("disk per store ranks %v, want small first", got)
	}
	if got := byFigure[report.FigureAnonPerOpenStore]; len(got) != 2 || got[0] != "big" {
		t.Errorf("memory per open store ranks %v, want big first", got)
	}
}

// TestRanksLeaveOutBelowZero: a memory below zero (a difference of two
// samples) is never ranked: the line names it "≈ 0" apart from the order.
func TestRanksLeaveOutBelowZero(t *testing.T) {
	small := fakeEngine{name: "small", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 100}
	odd := fakeEngine{name: "odd", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: -0.008, filesPer: 1, spaceKB: 300}
	a := answer(t, Default(), small, odd)
	for _, r := range a.Ranks {
		if r.Figure != report.FigureAnonPerOpenStore {
			continue
		}
		if len(r.Order) != 1 || r.Order[0].Variant != "small" || len(r.Outside) != 1 || r.Outside[0].Variant != "odd" {
			t.Fatalf("order %v, outside %v: want small ranked, odd apart", r.Order, r.Outside)
		}
		if line := r.line(); !strings.Contains(line, "not ranked, below zero: odd ≈ 0 (measured -0.008 KB)") || strings.Contains(line, "lowest first: odd") {
			t.Errorf("line %q", line)
		}
		return
	}
	t.Fatal("no rank of anonymous memory per open store")
}

// TestRanksLeaveOutNotWarm: a timing whose runs were not all warm is of
// another cache state than the others: named apart, never ranked.
func TestRanksLeaveOutNotWarm(t *testing.T) {
	small := fakeEngine{name: "small", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 100}
	cold := fakeEngine{name: "cold", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 20, filesPer: 1, spaceKB: 300}
	var recs []results.Record
	for _, e := range []fakeEngine{small, cold} {
		for _, r := range e.records() {
			open := r
			open.Phase, open.OpenMs, open.CloseMs, open.TotalMs = job.PhaseOpen, []float64{0.1, 0.1}, []float64{0.1, 0.1}, []float64{0.3, 0.4}
			if e.name == "cold" {
				before := 0.62
				open.ResidentBefore = &before
			}
			recs = append(recs, r, open)
			break
		}
		recs = append(recs, e.records()[1:]...)
	}
	a, err := Advise(Default(), Collect(recs, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range a.Ranks {
		if r.Figure != report.FigureOpenQueryCloseP99 {
			continue
		}
		if len(r.Order) != 1 || r.Order[0].Variant != "small" || len(r.NotWarm) != 1 || r.NotWarm[0].Variant != "cold" {
			t.Fatalf("order %v, not warm %v: want small ranked, cold apart", r.Order, r.NotWarm)
		}
		if line := r.line(); !strings.Contains(line, "not ranked, some runs not warm (below 99 % of their pages cached): cold") {
			t.Errorf("line %q", line)
		}
		return
	}
	t.Fatal("no rank of open-query-close p99")
}

// TestPoolsTable: every variant at every pool share, with what rules a
// share out and – where serve measured none.
func TestPoolsTable(t *testing.T) {
	fast := fakeEngine{name: "fast", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 300}
	s := Default()
	s.Agents, s.MemoryBytes, s.Container = 100, 5<<20, false
	g := answer(t, s, fast).poolsGrid()
	if got := strings.Join(g.head, "|"); got != "variant|layout|pool 0 %|pool 10 %|pool 100 %" {
		t.Fatalf("head %s", got)
	}
	row := strings.Join(g.rows[0], "|")
	// pool 100 %: 1,000 + 100 × 100 KB = 10.8 MB, over 5 MiB
	if !strings.HasPrefix(row, "fast|per agent|9 ms, 1,000 KB|5 ms, 1.95 MB|2 ms, 10.7 MB (no: memory)") {
		t.Errorf("row %s", row)
	}
	var b bytes.Buffer
	if err := answer(t, s, fast).Text(&b, "pools"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Qualify") || !strings.Contains(b.String(), "Every pool the records measured") {
		t.Errorf("--part pools wrote other parts, or not its own:\n%s", b.String())
	}
}

// TestMemoryAtServesScale: at serve's own scale, in one process, the
// memory of a pool is the peak serve measured there; a container is also
// charged the page cache of the open stores' files.
func TestMemoryAtServesScale(t *testing.T) {
	fast := fakeEngine{name: "fast", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 300}
	s := Default()
	s.Agents, s.Container = 100, false
	row := answer(t, s, fast).Pools[0]
	for k, want := range []float64{1000, 2000, 11000} {
		if got := row.Pools[k].Memory.Value; got != want {
			t.Errorf("process memory at pool %v: %v KB, want serve's peak %v", row.Pools[k].Pool, got, want)
		}
	}
	s.Container = true
	row = answer(t, s, fast).Pools[0]
	if got := row.Pools[2].Memory.Value; got != 5500+100*50 {
		t.Errorf("container at pool 100: %v KB, want the anonymous peak and 100 × 50 KB of page cache", got)
	}
}

// TestOpenFilesGiven: --open-files replaces the records' limit, and
// without any limit the processes are unknown, not one.
func TestOpenFilesGiven(t *testing.T) {
	many := fakeEngine{name: "many", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 1100, 1200}, holdKB: 1, filesPer: 8, spaceKB: 100}
	s := Default()
	s.Agents, s.OpenFiles = 1000, 4010
	if o := answer(t, s, many).Options[0]; o.Procs != 2 || !strings.Contains(o.Limit, "4,010 per process") {
		t.Errorf("--open-files 4010: %d processes (%s), want 2", o.Procs, o.Limit)
	}
	recs := many.records()
	for i := range recs {
		if recs[i].Hold != nil {
			recs[i].Hold.Limits = nil // a hold that predates the limits' count
		}
	}
	s.OpenFiles = 0
	a, err := Advise(s, Collect(recs, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range a.Pools[0].Pools {
		if o.Pool > 0 && o.Procs != 0 {
			t.Errorf("pool %d without a recorded limit: %d processes, want 0 (unknown)", o.Pool, o.Procs)
		}
	}
}

// TestRateAboveAMachine: a rate above what the records' machine served
// at a pool is a plan over as many machines like it, each with its share
// of the agents, its pool and disk those of its share.
func TestRateAboveAMachine(t *testing.T) {
	fast := fakeEngine{name: "fast", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 300}
	s := Default()
	s.Rate = 2500 // the synthetic serve steps served 1,000 requests/s
	a := answer(t, s, fast)
	if len(a.Options) != 1 || len(a.Refused) != 0 {
		t.Fatalf("options %+v, refused %+v", a.Options, a.Refused)
	}
	if o := a.Options[0]; o.Machines != 3 || o.AgentsPerMachine != 3334 || o.Disk.Value != 3334*300 || a.planLine() == "" {
		t.Errorf("%d machines of %d agents, disk %v KB; want 3 of 3,334, 1,000,200 KB, and a plan", o.Machines, o.AgentsPerMachine, o.Disk.Value)
	}
}

// TestUnknownMemoryDoesNotFit: with a memory limit, a pool whose memory
// the records do not give does not qualify, and says why.
func TestUnknownMemoryDoesNotFit(t *testing.T) {
	fast := fakeEngine{name: "fast", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 300}
	recs := fast.records()
	for i := range recs {
		if recs[i].Serve != nil {
			recs[i].Serve.RssKB, recs[i].Serve.AnonKB = nil, nil
		}
	}
	s := Default()
	s.MemoryBytes = 1 << 30
	a, err := Advise(s, Collect(recs, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Options) != 0 || len(a.Refused) != 1 || !strings.Contains(a.Refused[0].Why, "memory not in the records") {
		t.Errorf("options %+v, refused %+v", a.Options, a.Refused)
	}
}

// TestMemoryWithEmbeddings: with embeddings an open store's page cache is
// the vector study's (its files are larger), and its embeddings add what
// the vector study's hold measured beyond the hold without them.
func TestMemoryWithEmbeddings(t *testing.T) {
	base := fakeEngine{name: "fast", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 300}
	vec := base
	vec.holdKB = 80 // 80 KB anonymous, 160 KB charged per open store
	recs := base.records()
	for _, r := range vec.records() {
		if r.Phase == job.PhaseHold || r.Phase == job.PhaseSpace {
			r.Workload.Dims, r.Study = 384, "vectors"
			recs = append(recs, r)
		}
	}
	s := Default()
	s.Agents, s.Dims, s.P99 = 100, 384, time.Second
	row := tryPools(s, Collect(recs, 384)[0])
	// pool 100: the anonymous peak with no pool (500 KB) + 100 × (serve's
	// anonymous growth (5,500 − 500) / 100 = 50, the vector hold's page
	// cache 160 − 80 = 80, the embeddings 80 − 50 = 30)
	if got := row.Pools[2].Memory.Value; got != 500+100*(50+80+30) {
		t.Errorf("memory at pool 100 with embeddings: %v KB, want %v", got, 500+100*(50+80+30))
	}
}

// TestServeOfSeveralStoreCounts: serve records of one variant at two
// store counts are not pooled into one share: the variant is refused,
// saying why.
func TestServeOfSeveralStoreCounts(t *testing.T) {
	fast := fakeEngine{name: "fast", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 300}
	recs := fast.records()
	for _, r := range fast.records() {
		if r.Phase == job.PhaseServe {
			r.Study, r.Stores = "bigger", 1000
			recs = append(recs, r)
		}
	}
	a, err := Advise(Default(), Collect(recs, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Options) != 0 || len(a.Refused) != 1 || !strings.Contains(a.Refused[0].Why, "with 100 and with 1,000 stores, and a pool is a share of one") {
		t.Errorf("options %+v, refused %+v", a.Options, a.Refused)
	}
}

// TestLayoutsOfEmbeddings: records of both layouts with embeddings only
// give the layouts table the figures with them (and their recall), said
// so; with records without embeddings it keeps those.
func TestLayoutsOfEmbeddings(t *testing.T) {
	var recs []results.Record
	for _, layout := range []job.Layout{job.LayoutPerAgent, job.LayoutShared} {
		for _, r := range (fakeEngine{name: "v", holdKB: 50, filesPer: 1, spaceKB: 300}).records() {
			if r.Phase == job.PhaseSpace {
				r.Workload.Dims, r.Layout = 384, layout
				recs = append(recs, r)
			}
		}
	}
	s := Default()
	s.Dims = 384
	a, err := Advise(s, Collect(recs, s.Dims), []string{"dir/x.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Layouts.Dims != 384 || len(a.Layouts.Rows) != 2 || len(a.Layouts.Columns) == 0 || a.Layouts.Columns[0].Figure != "space-per-store" {
		t.Fatalf("layouts table of records with embeddings only: %+v", a.Layouts)
	}
	var b bytes.Buffer
	if err := a.Text(&b, "layouts"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "notes with embeddings of 384 values") {
		t.Errorf("the layouts table does not say its figures are with embeddings:\n%s", b.String())
	}
}

// TestVectorsOfOneWorkload: vector records of two embedding workloads (a
// topic pool of 50, then one of 5,000) are not pooled: the evidence holds
// the first workload's recall only.
func TestVectorsOfOneWorkload(t *testing.T) {
	var recs []results.Record
	for k, pool := range []int{50, 5000} {
		for _, r := range (fakeEngine{name: "v", holdKB: 50, filesPer: 1, spaceKB: 300 * int64(k+1)}).records() {
			if r.Phase == job.PhaseSpace {
				r.Workload.Dims, r.Workload.TopicPool, r.Study = 384, pool, fmt.Sprintf("pool%d", pool)
				recs = append(recs, r)
			}
		}
	}
	evs := Collect(recs, 384)
	if len(evs) != 1 {
		t.Fatalf("%d evidences, want 1", len(evs))
	}
	if got := evs[0].vec(report.FigureSpacePerStore); got.Value != 300 {
		t.Errorf("space per store %v KB, want 300 (the pool of 50's alone, not pooled with 600)", got.Value)
	}
	if w, ok := VectorWorkload(recs, 384); !ok || w.TopicPool != 50 {
		t.Errorf("VectorWorkload: %+v %v, want the pool of 50", w, ok)
	}
}

// TestVectorsOfOneDataSet: vector records of two data sets at the same
// dims (WordNet's glosses, then the generator) are not pooled, and
// records without embeddings of a real data set are not the reference's.
func TestVectorsOfOneDataSet(t *testing.T) {
	var recs []results.Record
	for k, data := range []workload.Data{{Name: "minilm-wordnet", SHA256: "ef0a"}, {}} {
		for _, r := range (fakeEngine{name: "v", holdKB: 50, filesPer: 1, spaceKB: 300 * int64(k+1)}).records() {
			if r.Phase == job.PhaseSpace {
				r.Workload.Dims, r.Workload.Data, r.Study = 384, data, fmt.Sprint("data", k)
				recs = append(recs, r)
				texts := r
				texts.Workload.Dims, texts.Workload.Data, texts.Study = 0, workload.Data{Name: "glove50"}, "texts"
				recs = append(recs, texts)
			}
		}
	}
	evs := Collect(recs, 384)
	if len(evs) != 1 {
		t.Fatalf("%d evidences, want 1", len(evs))
	}
	if got := evs[0].vec(report.FigureSpacePerStore); got.Value != 300 {
		t.Errorf("space per store %v KB, want 300 (WordNet's alone, not pooled with the generator's 600)", got.Value)
	}
	if got := evs[0].base(report.FigureSpacePerStore, 0); !math.IsNaN(got.Value) {
		t.Errorf("space per store without embeddings %v KB, want none: the records without embeddings are of glove50's words", got.Value)
	}
}

// TestP99IsOfPooledSamples holds the tables' caption to the computation:
// a warm p99 is over the samples of both runs pooled, not the median of
// each run's p99, and the per-store caption says so.
func TestP99IsOfPooledSamples(t *testing.T) {
	base := results.Record{Schema: results.Schema, Study: "s", Variant: "v", Setting: "default", Status: results.StatusOK,
		Workload: workload.Spec{Objects: 1000, TextLen: 300}, Stores: 100, Phase: job.PhaseOpen, File: "dir/v.jsonl"}
	var recs []results.Record
	var pooled []float64
	for run, top := range []float64{10, 1} { // run 1's slow stores dominate the pooled p99
		r := base
		r.Run = run + 1
		for i := range 100 {
			r.TotalMs = append(r.TotalMs, 1+top*float64(i)/100)
		}
		pooled = append(pooled, r.TotalMs...)
		recs = append(recs, r)
	}
	a, err := Advise(Default(), Collect(recs, 0), []string{"dir/v.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	k := slices.IndexFunc(a.PerStore.Columns, func(c Column) bool { return c.Figure == report.FigureOpenQueryCloseP99 })
	if k < 0 || len(a.PerStore.Rows) != 1 {
		t.Fatalf("per-store table without a warm p99: %+v", a.PerStore)
	}
	got := a.PerStore.Rows[0].Cells[k].Value
	perRun := stats.Median([]float64{stats.P99(recs[0].TotalMs), stats.P99(recs[1].TotalMs)})
	if want := stats.P99(pooled); got != want || got == perRun {
		t.Errorf("warm p99 %g, want %g over the pooled samples (the median of the runs' p99s is %g)", got, want, perRun)
	}
	var b bytes.Buffer
	if err := a.Text(&b, "per-store", "layouts"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), figureRule) || strings.Contains(b.String(), "their median") {
		t.Errorf("the per-store caption does not state how its p99 is computed:\n%s", b.String())
	}
}

// TestSmallestPoolIsOneStore: a pool serve kept open is at least one
// store however few the agents, and each option says how far its agents
// are from serve's: measured at serve's 100, extrapolated below.
func TestSmallestPoolIsOneStore(t *testing.T) {
	fast := fakeEngine{name: "fast", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 300}
	s := Default()
	for _, agents := range []int{3, 100} {
		s.Agents = agents
		a := answer(t, s, fast)
		for _, o := range a.Pools[0].Pools {
			if o.PoolShare > 0 && o.Pool < 1 {
				t.Errorf("%d agents, pool %s: %d stores kept open, want at least 1", agents, percent(o.PoolShare), o.Pool)
			}
			if want := float64(agents) / 100; o.Scale != want || (agents == 100) != (scaleText(o) == "measured") {
				t.Errorf("%d agents: scale %g (%s), want %g", agents, o.Scale, scaleText(o), want)
			}
		}
	}
}

// TestAllOpenWithoutEmbeddings: with --dims, a variant whose records
// hold no embeddings is not measured with them in the all-open table,
// rather than fitting on its memory without them.
func TestAllOpenWithoutEmbeddings(t *testing.T) {
	fast := fakeEngine{name: "fast", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 300}
	s := Default()
	s.Dims = 384
	a := answer(t, s, fast)
	if len(a.AllOpen) != 1 || a.AllOpen[0].Why != "not measured with embeddings of 384 values" || a.AllOpen[0].Charged.known() {
		t.Errorf("all open with embeddings: %+v", a.AllOpen)
	}
}

// TestMachineNamed: the answer names the machine of the records' env
// record, in text as in JSON.
func TestMachineNamed(t *testing.T) {
	fast := fakeEngine{name: "fast", p99s: [3]float64{9, 5, 2}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 300}
	env := results.Record{Schema: results.Schema, Study: "s-fast", Phase: job.PhaseEnv, Status: results.StatusOK,
		Env: map[string]string{"host": "box", "cpu": "CPU X", "cores": "4", "memory_kb": "8388608", "kernel": "6.1"}}
	a, err := FromRecords(Default(), append([]results.Record{env}, fast.records()...), nil)
	if err != nil {
		t.Fatal(err)
	}
	var text, js bytes.Buffer
	if err := a.Text(&text, "answer"); err != nil {
		t.Fatal(err)
	}
	if err := a.JSON(&js); err != nil {
		t.Fatal(err)
	}
	const want = "host box, CPU X, 4 cores, 8 GiB, Linux 6.1"
	if !strings.Contains(text.String(), "Machine: the figures are of one machine, "+want+".") || !strings.Contains(js.String(), want) {
		t.Errorf("the machine is not named:\n%s", text.String())
	}
}

// TestLayoutsPaired: the layouts table compares a variant's two layouts
// on the files that hold its shared store; its per-agent records of
// another file (another study) are left out of that table, not pooled.
func TestLayoutsPaired(t *testing.T) {
	var recs []results.Record
	add := func(file string, layout job.Layout, spaceKB int64) {
		for _, r := range (fakeEngine{name: "v", holdKB: 50, filesPer: 1, spaceKB: spaceKB}).records() {
			if r.Phase == job.PhaseSpace {
				r.File, r.Study, r.Layout = file, file, layout
				recs = append(recs, r)
			}
		}
	}
	add("dir/other.jsonl", job.LayoutPerAgent, 900)
	add("dir/both.jsonl", job.LayoutPerAgent, 300)
	add("dir/both.jsonl", job.LayoutShared, 10)
	a, err := FromRecords(Default(), recs, []string{"dir/other.jsonl", "dir/both.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Layouts.Rows) != 2 || len(a.Layouts.Columns) == 0 || a.Layouts.Columns[0].Figure != "space-per-store" {
		t.Fatalf("layouts table: %+v", a.Layouts)
	}
	per := a.Layouts.Rows[0]
	if per.Layout != job.LayoutPerAgent || per.Cells[0].Value != 300 {
		t.Errorf("per-agent row %+v: want the space of the file with the shared store, 300 KB", per)
	}
	c := slices.IndexFunc(a.PerStore.Columns, func(c Column) bool { return c.Figure == "space-per-store" })
	if c < 0 || len(a.PerStore.Rows) != 1 || a.PerStore.Rows[0].Cells[c].Value == 300 {
		t.Errorf("the per-store table should pool every file's per-agent space (300 and 900 KB): %+v", a.PerStore)
	}
}
