package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/workload"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestTablesGolden prints the tables of testdata/*.jsonl and compares them
// with testdata/*.golden (go test ./internal/report -update rewrites them).
func TestTablesGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			recs, err := results.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := Tables(&got, recs); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, in[:len(in)-len(".jsonl")]+".golden", got.Bytes())
		})
	}
}

// TestTablesScenarios checks what the golden files of the named scenarios
// must say, so that an -update that loses it fails: a study resumed in two
// sessions with another manydb and sqlite in the second, failed runs, and
// one study on each of two machines.
func TestTablesScenarios(t *testing.T) {
	tests := []struct {
		file string
		want []string
		not  []string
	}{
		{"testdata/resumed.jsonl", []string{
			"Recorded in 2 sessions (listed below the table); mixed: manydb v0-aaa and v0-bbb; sqlite 3.54.1 and 3.55.0 in sqlite.",
			"| | sqlite | fake |",
			"Versions: sqlite: sqlite 3.54.1 / 3.55.0; fake: fake 1.0.",
			"Session 1, started 2026-12-03 08:00:00 UTC, 4 records (fake 1.0, sqlite 3.54.1): host laptop,",
			"Session 2, started 2026-12-03 09:00:00 UTC, 8 records (fake 1.0, sqlite 3.55.0): host laptop,",
			"| Warm open runs pooled | 3 of 3 | 3 of 3 |",
		}, []string{"Environment:", "@"}},
		{"testdata/failed.jsonl", []string{
			"| Warm open runs pooled | 2 of 3; failed: run 2 | 0 of 3; missing: run 1–3 |",
			"| Create, write 10 objects, close (median) | 2.75 ms | failed |",
			"Failed and not redone: sqlite open run 2: worker failed: signal: killed; fake create: worker failed: exit status 1 (create store 3: disk full).",
			"| Memory per open store (2 open), resident | 300 KB | – |", // the failed hold was redone
		}, []string{"sqlite hold"}},
		{"testdata/machines.jsonl", []string{
			"## Studies 20261203T082000Z-laptop, 20261203T083000Z-server, setting default",
			"Recorded on 2 machines (laptop, server; a column per variant and machine) in 2 sessions",
			"they differ in: kernel 6.1.0 and 6.12.0.",
			"| | sqlite @ laptop | sqlite @ server | fake @ laptop | fake @ server |",
			"| Warm open runs pooled | 2 of 2 | 2 of 2 | 2 of 2 | 1 of 2; failed: run 2 |",
			"Session 2 of study 20261203T083000Z-server, started 2026-12-03 08:30:00 UTC on server,",
		}, []string{"manydb v0-aaa and", "## Study "}},
		{"testdata/renamed.jsonl", []string{
			"| | libsql_go |",
			"libsql_go: recorded as libsql, its id before commit 628aaf7 (libsql now names libSQL's Rust SDK).",
			"Failed and not redone: libsql_go open run 2:", // a failed record names no versions: its study's others do
			"| | libsql |",
			"Versions: libsql: libsql 0.10.0, libsql-ffi 0.10.0,",
		}, []string{"libsql open run 2", "| | libsql_go | libsql |"}},
		{"testdata/sweep.jsonl", []string{
			"## Sweep sweep-20261203T083726Z-a0b23a, setting default: each figure against the number of stores",
			"store directories nested 1 deep (--fanout 1)",
			"| | 10 stores | 30 stores |",
			"| Memory per open store (20 open), resident | – | 2 KB |", // 20 > 10 stores: left out of that study
			"| Stores per second | n/a (made with more stores) |",
			"| Stores per second | 2,243 |",
		}, nil},
		// manydb sweep: every figure against the agents, an exact search
		// at 100 %, ObjectBox's shared index losing recall as the agents
		// grow (the record's own figures)
		{"testdata/agentsweep.jsonl.gz", []string{
			"## Sweep out, setting default: 400 notes of glove50 (50 dims) divided among the agents",
			"### recall@10, mean (%)\n\n| | 4 agents × 100 | 40 agents × 10 |",
			"| obx_nosync shared | 30.0 % | 14.0 % |",
			"| bbolt shared | 100.0 % | 100.0 % |",
			"### knn answers checked (answers)",
			"| obx_nosync shared | 3.0 | 1.4 |", // ids an answer returned, of 10 asked
		}, nil},
	}
	for _, tt := range tests {
		recs, err := results.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Tables(&b, recs); err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: the tables lack %q:\n%s", tt.file, w, b.String())
			}
		}
		for _, n := range tt.not {
			if strings.Contains(b.String(), n) {
				t.Errorf("%s: the tables hold %q:\n%s", tt.file, n, b.String())
			}
		}
	}
}

// TestOneMachineLayout checks that the files of one machine keep one table
// per study even when the studies have the same shape, and that a study
// without a machine in its env record does not make a second machine.
func TestOneMachineLayout(t *testing.T) {
	recs, err := results.ReadFile("testdata/machines.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if recs[i].Phase == job.PhaseEnv {
			recs[i].Env = map[string]string{"host": "laptop", "cpu": "Test CPU", "cores": "2", "memory_kb": "1"}
		}
	}
	recs = append(recs, synthStudy("nomachine", 2, 1, 1)...)
	var b bytes.Buffer
	if err := Tables(&b, recs); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "## Study "); n != 3 || strings.Contains(b.String(), " @ ") {
		t.Errorf("want 3 tables without machine columns, got %d:\n%s", n, b.String())
	}
}

func TestThousandsAndMillis(t *testing.T) {
	tests := []struct{ got, want string }{
		{thousands(2538.4), "2,538"},
		{thousands(491), "491"},
		{thousands(1234567), "1,234,567"},
		{thousands(-1500), "-1,500"},
		{thousands(0.2), "0"},
		{millis(0.3024, 3), "0.302 ms"},
		{millis(30.725, 2), "30.73 ms"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestNoRecords(t *testing.T) {
	if err := Tables(&bytes.Buffer{}, nil); err == nil {
		t.Error("no error for no records")
	}
}

// TestSpread checks which spread a column shows for a figure with one
// value per run: none for one run, the range for a few, benchmath's 95 %
// interval of the median from 6 runs on.
func TestSpread(t *testing.T) {
	tests := []struct {
		vals []float64
		want string
	}{
		{[]float64{0.3}, ""},
		{[]float64{0.3, 0.1, 0.2}, " (0.100–0.300)"},
		{[]float64{0.5, 0.1, 0.2, 0.3, 0.4}, " (0.100–0.500)"},
		// 6 values: the interval of the median is the lowest to the highest
		{[]float64{0.6, 0.1, 0.2, 0.3, 0.4, 0.5}, " [0.100–0.600]"},
		// 10 values: benchmath's interval is narrower than the range
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, " [2.000–9.000]"},
	}
	for _, tt := range tests {
		if got := spread(tt.vals, 3); got != tt.want {
			t.Errorf("spread(%v) = %q, want %q", tt.vals, got, tt.want)
		}
	}
}

// TestSpreadInTable checks that a study of 6 runs carries intervals and
// says so below the table, and one of 3 runs ranges.
func TestSpreadInTable(t *testing.T) {
	for _, tt := range []struct {
		runs       int
		mark, note string
	}{{6, " [", "[a–b]: the 95 % interval"}, {3, " (", "(a–b) after a timing figure: the range"}} {
		var b bytes.Buffer
		if err := Tables(&b, synthStudy("s", tt.runs, 1, 1)); err != nil {
			t.Fatal(err)
		}
		var open string
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(l, "| Open (median) |") {
				open = l
			}
		}
		if !strings.Contains(open, tt.mark) || !strings.Contains(b.String(), tt.note) {
			t.Errorf("%d runs: open row %q or the notes lack %q, %q:\n%s", tt.runs, open, tt.mark, tt.note, b.String())
		}
	}
}

// TestFindMachines checks the machines' labels: the host name when it is
// unique, else "machine N"; an env record without hardware names no machine.
func TestFindMachines(t *testing.T) {
	env := func(host, cpu string) results.Record {
		return results.Record{Phase: job.PhaseEnv, Env: map[string]string{"host": host, "cpu": cpu, "cores": "2", "memory_kb": "1"}}
	}
	recs := []results.Record{env("a", "x"), env("b", "x"), env("b", "y"), env("", "z"), env("a", "x"),
		{Phase: job.PhaseEnv, Env: map[string]string{"manydb": "test"}}}
	m := findMachines(recs)
	var got []string
	for _, k := range m.order {
		got = append(got, m.label[k])
	}
	want := []string{"a", "machine 2", "machine 3", "machine 4"}
	if !slices.Equal(got, want) || !m.several() {
		t.Errorf("labels %q, want %q", got, want)
	}
	if m := findMachines(recs[:1]); m.several() {
		t.Error("one machine counted as several")
	}
}

// TestResumedConfig checks that a resumed study's runs are those its last
// session asked for (a session may ask for more: turns added), and that a
// study without an env record wants the most runs any of its columns saw.
func TestResumedConfig(t *testing.T) {
	recs, err := results.ReadFile("testdata/resumed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	envs := 0
	for i := range recs {
		if recs[i].Phase == job.PhaseEnv {
			if envs++; envs == 2 {
				cfg := *recs[i].Config
				cfg.Runs = 4
				recs[i].Config = &cfg
			}
		}
	}
	recs = append(recs, synthStudy("noenv", 3, 1, 1)...)
	fake := synthStudy("noenv", 0, 1, 1)
	for i := range fake {
		fake[i].Variant = "fake"
	}
	recs = append(recs, fake...)
	var b bytes.Buffer
	if err := Tables(&b, recs); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"| Warm open runs pooled | 3 of 4; missing: run 4 | 3 of 4; missing: run 4 |",
		"| Warm open runs pooled | 3 of 3 | 0 of 3; missing: run 1–3 |"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("the tables lack %q:\n%s", w, b.String())
		}
	}
}

// TestTitle checks the chart titles of rows labelled "same, …", made
// from the label of the figure they qualify.
func TestTitle(t *testing.T) {
	tests := []struct{ name, want string }{
		{"open", "Open (median)"},
		{"open-query-close-p99", "Open, query, close, p99"},
		{"open-query-close-p90", "Open, query, close, p90"},
		{"anon-per-open-store", "Memory per open store (2 open), anonymous (process' own memory)"},
		{"container-file-per-open-store", "Memory charged to a container per open store, page cache"},
		{"container-anon-per-open-store", "Memory charged to a container per open store, anonymous"},
		{"recall-p5", "knn recall@10 (mean), 5th percentile"},
		{"turn-p99", "Turn: open, recent, append, close, p99"},
	}
	for _, tt := range tests {
		if got := figureNamed(tt.name).title(1000, 2); got != tt.want {
			t.Errorf("title of %s = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestSameRowsNameTheirBase: every row labelled "same, …" names its base,
// a figure above it in the registry that stands alone; a figure at
// another statistic keeps its base's unit and phase.
func TestSameRowsNameTheirBase(t *testing.T) {
	for i, f := range figures {
		same := strings.HasPrefix(f.label, "same, ")
		if same != (f.base != "") {
			t.Errorf("row %d %q (%s): label and base %q disagree", i, f.label, f.name, f.base)
			continue
		}
		if !same {
			continue
		}
		at := slices.IndexFunc(figures, func(b figure) bool { return b.name == f.base })
		switch {
		case at < 0 || at >= i:
			t.Errorf("row %d (%s): base %q is not a figure above it", i, f.name, f.base)
		case figures[at].base != "":
			t.Errorf("row %d (%s): base %q qualifies another figure itself", i, f.name, f.base)
		case f.statistic != "" && (figures[at].unit != f.unit || figures[at].phase != f.phase):
			t.Errorf("row %d (%s): %s of %s in %s %s, its base in %s %s", i, f.name, f.statistic, f.base, f.unit, f.phase, figures[at].unit, figures[at].phase)
		}
	}
}

// TestRenamedVariantFigures checks that the exports and compare read a
// go-libsql study recorded before 628aaf7 as libsql_go, and libSQL's Rust
// SDK as libsql.
func TestRenamedVariantFigures(t *testing.T) {
	recs, err := results.ReadFile("testdata/renamed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, f := range CollectFigures(recs) {
		keys = append(keys, f.Key())
	}
	if want := []string{"libsql_go@default", "libsql@default"}; !slices.Equal(keys, want) {
		t.Errorf("figures of %q, want %q", keys, want)
	}
	var b bytes.Buffer
	err = Compare(&b, Side{Name: "a", Records: recs, Variant: "libsql_go", Setting: "default"}, Side{Name: "b", Records: recs, Variant: "libsql", Setting: "default"})
	if err != nil || !strings.Contains(b.String(), "libsql_go@default vs libsql@default") {
		t.Errorf("compare: %v\n%s", err, b.String())
	}
}

// TestCountSamplesPerRecord: the count row takes each record's own count,
// so a table joining a study made with --queries and one without (two
// machines) shows both columns' counts.
func TestCountSamplesPerRecord(t *testing.T) {
	plain := &results.Record{Phase: job.PhaseOpen, QueryMs: []float64{5}}
	queried := &results.Record{Phase: job.PhaseOpen, QueryMs: []float64{9}, Queries: []job.Query{job.QueryCount, job.QueryRecent},
		QueriesMs: map[job.Query][]float64{job.QueryCount: {2}, job.QueryRecent: {7}}}
	noCount := &results.Record{Phase: job.PhaseOpen, QueryMs: []float64{7}, Queries: []job.Query{job.QueryRecent},
		QueriesMs: map[job.Query][]float64{job.QueryRecent: {7}}}
	for _, tt := range []struct {
		r    *results.Record
		want []float64
	}{{plain, []float64{5}}, {queried, []float64{2}}, {noCount, nil}} {
		if got := countSamples(tt.r); !slices.Equal(got, tt.want) {
			t.Errorf("countSamples(%v) = %v, want %v", tt.r.Queries, got, tt.want)
		}
	}
}

// Missing and failed runs are listed as ranges, so an edited record with
// run 1000000 gives a short line (issue 31, case 12).
func TestRunRanges(t *testing.T) {
	for _, tt := range []struct {
		runs []int
		want string
	}{
		{[]int{2}, "2"},
		{[]int{1, 2}, "1, 2"},
		{[]int{1, 3, 4, 5, 9}, "1, 3–5, 9"},
		{[]int{4, 5, 6, 7}, "4–7"},
	} {
		if got := runRanges(tt.runs); got != tt.want {
			t.Errorf("runRanges(%v) = %q, want %q", tt.runs, got, tt.want)
		}
	}
}

// Two variants built on different versions of one library (libSQL's
// SQLite and SQLite's) are not "mixed": the sessions line says what
// differs within a column, as the Versions line shows it (issue 31,
// case 12).
func TestSessionsLineAgreesWithVersionsLine(t *testing.T) {
	b, err := os.ReadFile("testdata/resumed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.Contains(l, `"phase": "env"`) {
			l = strings.ReplaceAll(l, `"sqlite": "3.55.0"`, `"sqlite": "3.54.1"`)
			l = strings.ReplaceAll(l, `"v1.14.54"`, `"v1.14.53"`)
			l = strings.ReplaceAll(l, `"fake": "1.0"`, `"fake": "1.0", "sqlite": "3.47.0"`)
		}
		lines = append(lines, l)
	}
	file := filepath.Join(t.TempDir(), "edited.jsonl")
	os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	recs, err := results.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := Tables(&out, recs); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, "sqlite: sqlite 3.54.1") || !strings.Contains(got, "fake: fake 1.0, sqlite 3.47.0") {
		t.Fatalf("the Versions line does not list each variant's SQLite:\n%s", got)
	}
	if want := "mixed: manydb v0-aaa and v0-bbb."; !strings.Contains(got, want) {
		t.Errorf("the sessions line lacks %q (no library differs within a column):\n%s", want, got)
	}
}

// TestLeanNotes: a table of the lean setting names each column's engine
// options, and says why lean does not apply to an n/a column (the
// catalog's reason), apart from the malloc settings' n/a line.
func TestLeanNotes(t *testing.T) {
	small := workload.Spec{Name: "small", Objects: 10, TextLen: 40}
	opts := map[string]string{"PRAGMA cache_size": "-64", "sqlite3_config(SQLITE_CONFIG_LOOKASIDE)": "0,0"}
	var recs []results.Record
	for _, set := range []string{"lean", "lean+mmap-threshold"} {
		recs = append(recs,
			results.Record{Study: "s", Variant: "sqlite_capi", Setting: set, Phase: job.PhaseCreate, Status: results.StatusOK,
				Workload: small, Stores: 2, CreateMs: []float64{1, 2}, EngineOptions: opts},
			results.Record{Study: "s", Variant: "turso", Setting: set, Phase: job.PhaseCreate, Status: results.StatusNotApplicable,
				Workload: small, Stores: 2, Error: "lean sets no option for turso"},
			results.Record{Study: "s", Variant: "bbolt", Setting: set, Phase: job.PhaseCreate, Status: results.StatusNotApplicable,
				Workload: small, Stores: 2, Error: "lean sets no option for bbolt"},
		)
		pebble := results.Record{Study: "s", Variant: "pebble", Setting: set, Phase: job.PhaseCreate, Status: results.StatusOK,
			Workload: small, Stores: 2, CreateMs: []float64{1, 2}, EngineOptions: map[string]string{"cache_size": "1MB"}}
		if set != "lean" {
			pebble = results.Record{Study: "s", Variant: "pebble", Setting: set, Phase: job.PhaseCreate, Status: results.StatusNotApplicable,
				Workload: small, Stores: 2, Error: "lean+mmap-threshold combines lean with a change to the C library's malloc"}
		}
		recs = append(recs, pebble)
	}
	var b bytes.Buffer
	if err := Tables(&b, recs); err != nil {
		t.Fatal(err)
	}
	fam, _ := engine.Lookup("turso")
	for _, want := range []string{
		"Engine options (docs/engines.md): sqlite_capi: PRAGMA cache_size -64, sqlite3_config(SQLITE_CONFIG_LOOKASIDE) 0,0.",
		"n/a: the lean setting has no engine option for turso: " + fam.NoLean["turso"] + "; for bbolt: ",
		// Under lean+mmap-threshold: pebble, which lean applies to, is n/a
		// for the malloc part; bbolt and turso for lean's.
		"n/a: the setting lean+mmap-threshold combines lean with a change to the C allocator (malloc), which pebble do not allocate with (pure Go); a combination applies only where each part does (lean alone applies to them).\nn/a: the lean setting has no engine option for turso: " + fam.NoLean["turso"] + "; for bbolt: ",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the tables lack %q:\n%s", want, b.String())
		}
	}
}
