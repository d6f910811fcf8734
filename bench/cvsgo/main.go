// Command cvsgo runs manydb's open phase of one variant side by side with
// a C program making the same calls on the same stores
// (bench/sqlite_bench.c: open, count, close with SQLite's or libSQL's C
// API), alternating the two for many runs, under one setting (the same
// malloc environment for both), and prints the medians per step and the
// ratio manydb / C of open+count+close: the median of the per-run ratios
// with its 95 % interval (golang.org/x/perf/benchmath, assuming nothing
// about the distribution), and the runs' verdict as A/B rounds
// (internal/abtest): same as C within 3 %, different, or not yet known.
//
// The unit of the statistics is a run: one pass of each side over all
// stores, C and manydb alternating which goes first. Pooling thousands of
// per-store samples would make any drift of the machine look significant;
// the runs' ratios carry that drift into the interval instead.
//
// It is a benchmark, not a test: run it with 'make bench' (or
// bench/c_vs_go.sh, bench/libsql_c_vs_go.sh), which build the C program
// and create the stores.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"

	"manydb/internal/abtest"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/settings"
	"manydb/internal/stats"
	"manydb/internal/workload"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "cvsgo:", err)
		os.Exit(1)
	}
}

// goal is the ratio manydb / C that the C-API variants must stay within
// (the project's promise is 1.05; the benches hold them to 1.03).
const goal = 1.03

func run(args []string) error {
	fs := flag.NewFlagSet("cvsgo", flag.ContinueOnError)
	cBin := fs.String("c", "bench/sqlite_bench", "the C program (DIR N SEED, one line per store)")
	workerBin := fs.String("worker", "bin/worker-sqlite", "manydb's worker")
	variant := fs.String("variant", "sqlite_capi", "variant id")
	dir := fs.String("dir", "", "directory of the stores (000000 …)")
	stores := fs.Int("stores", 0, "number of stores")
	objects := fs.Int("objects", 1000, "notes per store")
	runs := fs.Int("runs", 150, "runs of each side, alternating (short runs, many of them: docs/benchmarks.md)")
	setting := fs.String("setting", "default", "the setting both sides run under (see manydb run --help)")
	ratios := fs.String("ratios", "", "only summarize these per-run ratios (space-separated; for bench/obx_c_vs_go.sh)")
	mainThread := fs.Bool("c-main-thread", os.Getenv("BENCH_C_MAIN_THREAD") != "", "run the C loop on the main thread (default: a second thread, like the worker's locked thread, so both use a glibc thread arena; also BENCH_C_MAIN_THREAD=1)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *ratios != "" {
		var xs []float64
		for _, f := range strings.Fields(*ratios) {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return fmt.Errorf("--ratios: %w", err)
			}
			xs = append(xs, x)
		}
		summarize(xs)
		return nil
	}
	if *dir == "" || *stores < 1 || *runs < 1 {
		return fmt.Errorf("--dir, --stores and --runs are required")
	}
	set, err := settings.Parse(*setting)
	if err != nil {
		return err
	}
	if set, err = set.Resolve(settings.LibDirs()); err != nil {
		return err
	}
	env := append(os.Environ(), set.Env...)
	cEnv := env
	if !*mainThread {
		cEnv = append(cEnv, "SQLITE_BENCH_THREAD=1")
	}
	job := job.Job{Variant: *variant, Phase: job.PhaseOpen, Dir: *dir, Stores: *stores,
		Workload: workload.Spec{Name: "large", Objects: *objects, TextLen: 300}, Allocator: set.Malloc()}

	var cMs, goMs [4][]float64 // open, count, close, total: pooled
	var perRun []float64       // median total manydb / median total C
	for r := 1; r <= *runs; r++ {
		var c, g [4][]float64
		sides := []func() error{
			func() (err error) { c, err = runC(*cBin, cEnv, *dir, *stores, r); return err },
			func() (err error) { g, err = runWorker(*workerBin, env, job, r); return err },
		}
		if r%2 == 0 {
			sides[0], sides[1] = sides[1], sides[0]
		}
		for _, side := range sides {
			if err := side(); err != nil {
				return err
			}
		}
		for i := range cMs {
			cMs[i] = append(cMs[i], c[i]...)
			goMs[i] = append(goMs[i], g[i]...)
		}
		perRun = append(perRun, stats.Median(g[3])/stats.Median(c[3]))
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("%s under %s: %d runs of %d stores, alternating C and manydb (load %s)\n", *variant, set.Name, *runs, *stores, strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Printf("  %-18s %10s %10s %10s\n", "median", "C", "manydb", "ratio")
	for i, name := range []string{"open", "count", "close", "open+count+close"} {
		c, g := stats.Median(cMs[i]), stats.Median(goMs[i])
		fmt.Printf("  %-18s %7.3f ms %7.3f ms %10.3f\n", name, c, g, g/c)
	}
	summarize(perRun)
	return nil
}

// summarize prints the median of the per-run ratios manydb / C with its
// 95 % interval, then the verdict of the runs as A/B rounds
// (internal/abtest, δ = goal − 1): same (the 90 % interval of the
// geometric mean within ±3 %), different (with its ratio: below 1,
// manydb is faster), or not yet known, with about how many runs would
// decide it. The line is held when the verdict is same, or different
// below 1.
func summarize(ratios []float64) {
	sum := benchmath.AssumeNothing.Summary(benchmath.NewSample(ratios, &benchmath.DefaultThresholds), 0.95)
	fmt.Printf("  per-run ratio manydb / C of open+count+close: median %.3f, 95 %% interval [%.3f, %.3f] (confidence %.3f, %d runs)\n",
		sum.Center, sum.Lo, sum.Hi, sum.Confidence, len(ratios))
	for _, w := range sum.Warnings {
		fmt.Printf("  warning: %v\n", w)
	}
	e, err := abtest.NewEstimate(ratios)
	if err != nil {
		fmt.Printf("  verdict: none (%v)\n", err)
		return
	}
	delta := goal - 1
	v := e.Judge(delta)
	line := fmt.Sprintf("  verdict (A/B rounds, δ %.0f %%): %s, geometric mean %.3f, 95 %% interval [%.3f, %.3f]", 100*delta, v, e.Ratio, e.CI95.Lo, e.CI95.Hi)
	switch {
	case v == abtest.Same || (v == abtest.Different && e.Ratio < 1):
		line += fmt.Sprintf(": within %.2f× of C", goal)
	case v == abtest.Different:
		line += fmt.Sprintf(": slower than C by more than %.2f×", goal)
	default:
		if n, ok := e.RoundsFor(delta, 1); ok {
			line += fmt.Sprintf(": about %d runs in all would decide", n)
		}
	}
	fmt.Println(line)
}

// runC runs the C program over the stores in the order of seed and
// returns its samples.
func runC(bin string, env []string, dir string, stores, seed int) (ms [4][]float64, err error) {
	cmd := exec.Command(bin, dir, strconv.Itoa(stores), strconv.Itoa(seed))
	cmd.Env, cmd.Stderr = env, os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return ms, fmt.Errorf("C program: %w", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			return ms, fmt.Errorf("C program printed %q", line)
		}
		for i := range f {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return ms, fmt.Errorf("C program printed %q", line)
			}
			ms[i] = append(ms[i], v)
		}
	}
	return ms, nil
}

// runWorker runs manydb's open phase with seed and returns its samples.
func runWorker(bin string, env []string, job job.Job, seed int) (ms [4][]float64, err error) {
	job.Run, job.Seed = seed, uint64(seed)
	cmd := exec.Command(bin, job.Args()...)
	cmd.Env, cmd.Stderr = env, os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return ms, fmt.Errorf("worker: %w", err)
	}
	var rec results.Record
	if err := json.NewDecoder(bytes.NewReader(out)).Decode(&rec); err != nil {
		return ms, fmt.Errorf("worker record: %w", err)
	}
	return [4][]float64{rec.OpenMs, rec.QueryMs, rec.CloseMs, rec.TotalMs}, nil
}
