package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"manydb/internal/advise"
	"manydb/internal/report"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// TestAdviseTracesToTheRecord: for the scenarios of the documentation
// (10,000 agents in 2 GiB at a p99 of 20 ms, with and without 384-value
// embeddings, and 1,000,000 agents), every figure of every option is
// found again in the files its sources name: each source's median is
// recomputed from those files alone, and the option's p99 and disk are
// the arithmetic the answer says over them.
func TestAdviseTracesToTheRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the committed record, about 40 MB compressed")
	}
	chdir(t, "../..")
	cache := traceCache{files: map[string][]results.Record{}, figures: map[string][]*report.Figures{}}
	for _, args := range [][]string{
		{"--agents", "10000", "--memory", "2G", "--p99", "20ms", "--dims", "384"},
		{"--agents", "10000", "--memory", "2G", "--p99", "20ms"},
		{"--agents", "1000000", "--memory", "16G", "--p99", "20ms"},
	} {
		a := runAdvise(t, append(args, "--format", "json"))
		if len(a.Options) == 0 {
			t.Fatalf("advise %s: no option qualifies", strings.Join(args, " "))
		}
		for _, n := range answerNumbers(a) {
			for _, src := range n.Sources {
				traceSource(t, cache, src)
			}
		}
		for _, o := range a.Options {
			for _, n := range []advise.Number{o.P99, o.Memory, o.Disk, o.HitRate, o.Served} {
				if len(n.Sources) == 0 {
					t.Errorf("advise %s: %s: a number without sources: %+v", strings.Join(args, " "), o.Name(), n)
				}
			}
			var sum float64
			for _, src := range o.P99.Sources {
				sum += src.Median
			}
			if !near(o.P99.Value, sum) {
				t.Errorf("%s: p99 %v is not the sum of its sources %v", o.Name(), o.P99.Value, sum)
			}
			if want := float64(a.Scenario.Agents) * o.Disk.Sources[0].Median; !near(o.Disk.Value, want) {
				t.Errorf("%s: disk %v KB, want agents × space per store = %v", o.Name(), o.Disk.Value, want)
			}
		}
	}
}

// answerNumbers are every number of an answer: the options', every
// pool's, the all-open rows', the tables' cells and the ranks'.
func answerNumbers(a advise.Answer) []advise.Number {
	var out []advise.Number
	option := func(o advise.Option) {
		out = append(out, o.P99, o.Memory, o.Disk, o.HitRate, o.Served, o.Recall)
	}
	for _, o := range a.Options {
		option(o)
	}
	for _, r := range a.Pools {
		for _, o := range r.Pools {
			option(o)
		}
	}
	for _, x := range a.AllOpen {
		out = append(out, x.Resident, x.Anonymous, x.Charged)
	}
	for _, t := range []advise.Table{a.Layouts, a.PerStore} {
		for _, r := range t.Rows {
			out = append(out, r.Cells...)
		}
	}
	for _, r := range a.Ranks {
		for _, x := range r.Order {
			out = append(out, x.Value)
		}
	}
	return out
}

// traceCache keeps the files read and the figures collected from each
// set of them.
type traceCache struct {
	files   map[string][]results.Record
	figures map[string][]*report.Figures
}

// figures are the figures of the records with dims values per embedding
// in files.
func (c traceCache) of(t *testing.T, files []string, dims int) []*report.Figures {
	key := fmt.Sprint(files, dims)
	if figs, ok := c.figures[key]; ok {
		return figs
	}
	var recs []results.Record
	for _, f := range files {
		if c.files[f] == nil {
			r, err := results.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			c.files[f] = r
		}
		for _, r := range c.files[f] {
			if r.Workload.Dims == dims {
				recs = append(recs, r)
			}
		}
	}
	c.figures[key] = report.CollectFigures(recs)
	return c.figures[key]
}

// traceSource recomputes src's median from its files alone.
func traceSource(t *testing.T, cache traceCache, src advise.Source) {
	t.Helper()
	if src.Rate > 0 {
		traceRung(t, cache, src)
		return
	}
	for _, f := range cache.of(t, src.Files, src.Dims) {
		if f.Variant != src.Variant || f.Setting != src.Setting || f.Layout != src.Layout {
			continue
		}
		xs := f.Values[src.Figure]
		if src.Level >= 0 {
			xs = f.ValuesAt(src.Figure, src.Level)
		}
		want := stats.Median(xs)
		if src.Pooled {
			want = f.Pooled[src.Figure]
		}
		if len(xs) != src.Values || !near(want, src.Median) {
			t.Errorf("%s %s at %d: %d values in %v, %v; the answer says %d, %v",
				src.Name(), src.Figure, src.Level, len(xs), src.Files, want, src.Values, src.Median)
		}
		return
	}
	t.Errorf("%s: no figures in %v", src.Name(), src.Files)
}

// traceRung recomputes the p99 of a serve rung (src.Rate) from its files
// alone: the median of the p99s of the serve records of that pool size at
// that rate offered.
func traceRung(t *testing.T, cache traceCache, src advise.Source) {
	t.Helper()
	cache.of(t, src.Files, src.Dims) // reads the files
	var p99s []float64
	for _, f := range src.Files {
		for _, r := range cache.files[f] {
			if r.Status == results.StatusOK && r.Serve != nil && r.Variant == src.Variant && r.Setting == src.Setting && r.Layout == src.Layout &&
				r.Serve.Pool == src.Level && r.Serve.Rate == src.Rate && r.Workload.Dims == src.Dims {
				p99s = append(p99s, r.Serve.P99Ms)
			}
		}
	}
	if len(p99s) != src.Values || !near(stats.Median(p99s), src.Median) {
		t.Errorf("%s serve p99 at %d, %v requests/s: %d values in %v, %v; the answer says %d, %v",
			src.Name(), src.Level, src.Rate, len(p99s), src.Files, stats.Median(p99s), src.Values, src.Median)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// runAdvise runs manydb advise with args and decodes its JSON answer.
func runAdvise(t *testing.T, args []string) advise.Answer {
	t.Helper()
	o, out, errOut := options(t)
	if err := Run(context.Background(), append([]string{"advise"}, args...), o); err != nil {
		t.Fatalf("manydb advise %s: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	var a advise.Answer
	if err := json.Unmarshal(out.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// chdir makes dir the working directory for the rest of the test.
func chdir(t *testing.T, dir string) {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(abs)
	if _, err := os.Stat("docs/results"); err != nil {
		t.Fatal(err)
	}
}

// TestAdviseRefusesBadInput: each bad value is one line and exit 2
// (an InputError), before any record is read; a file holding only a
// study's env record too.
func TestAdviseRefusesBadInput(t *testing.T) {
	envOnly := filepath.Join(t.TempDir(), "env.jsonl")
	env := `{"schema":2,"study":"s","phase":"env","status":"ok","workload":{"name":"large","objects":1000,"text_len":300},"stores":10,"env":{"host":"vm"}}`
	if err := os.WriteFile(envOnly, []byte(env+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{envOnly},
		{"--agents", "0"},
		{"--memory", "lots"},
		{"--memory-in", "vm"},
		{"--active", "ten"},
		{"--active", "200%"},
		{"--p99", "-1ms"},
		{"--format", "html"},
		{"--part", "pools,charts"},
		{"no-such-file.jsonl"},
	} {
		o, _, _ := options(t)
		err := Run(context.Background(), append([]string{"advise"}, args...), o)
		if ExitCode(err) != 2 || strings.Contains(err.Error(), "\n") {
			t.Errorf("advise %s: exit %d, error %v", strings.Join(args, " "), ExitCode(err), err)
		}
	}
}

// TestAdviseDefaultsAreTheRecordsOfRecord: advise's default files are the
// list of docs/results.md, in its order, and each is the newest of its
// kind: no later dated folder of the same name holds the same file.
func TestAdviseDefaultsAreTheRecordsOfRecord(t *testing.T) {
	chdir(t, "../..")
	doc, err := os.ReadFile("docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(doc), "| Kind | Files under docs/results/ |\n| --- | --- |\n")
	if !ok {
		t.Fatal("docs/results.md has no list of the records of record")
	}
	var listed []string
	for line := range strings.Lines(list) {
		cells := strings.Split(strings.TrimSpace(line), " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) != 2 {
			break
		}
		for f := range strings.SplitSeq(strings.TrimSuffix(cells[1], " |"), ", ") {
			listed = append(listed, "docs/results/"+f)
		}
	}
	if !slices.Equal(listed, defaultAdviseFiles()) {
		t.Errorf("advise reads %v by default; docs/results.md lists %v", defaultAdviseFiles(), listed)
	}
	dirs, err := os.ReadDir("docs/results")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range listed {
		dir, name := filepath.Base(filepath.Dir(f)), filepath.Base(f)
		for _, d := range dirs {
			if later := d.Name(); later > dir && len(later) >= len(dir) && later[len("2006-01-02"):] == dir[len("2006-01-02"):] {
				if _, err := os.Stat(filepath.Join("docs/results", later, name)); err == nil {
					t.Errorf("%s is of record, but %s is newer", f, filepath.Join(later, name))
				}
			}
		}
	}
}

// TestAdviseRateWithActive: --active or --turns-per-hour given with a
// --rate above 0, which would ignore them, is refused naming them; with
// --rate 0 (the rate made from them) they are taken.
func TestAdviseRateWithActive(t *testing.T) {
	for args, want := range map[string]string{
		"--rate 5 --active 20%":                      "advise: --active with --rate 5: --rate gives the requests per second itself",
		"--turns-per-hour 4 --rate 5":                "advise: --turns-per-hour with --rate 5: ",
		"--active 20% --turns-per-hour 4 --rate 0.5": "advise: --active and --turns-per-hour with --rate 0.5: ",
		"--rate 0 --active 20% no-such-file.jsonl":   "no-such-file.jsonl",
	} {
		o, _, _ := options(t)
		err := Run(context.Background(), append([]string{"advise"}, strings.Fields(args)...), o)
		if ExitCode(err) != 2 || !strings.Contains(err.Error(), want) {
			t.Errorf("advise %s: exit %d, error %v; want %q", args, ExitCode(err), err, want)
		}
	}
}
