// Command cvsgo runs manydb's SQLite open phase side by side with a C
// program doing the same open, count, close loop with the same SQLite
// amalgamation (bench/sqlite_bench.c), alternating the two over the same
// stores, and prints both medians of open+count+close and their ratio.
//
// It is a benchmark, not a test: run it with 'make bench' (or
// bench/c_vs_go.sh), which builds the C program and creates the stores.
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

	"manydb/internal/results"
	"manydb/internal/stats"
	"manydb/internal/worker"
	"manydb/internal/workload"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "cvsgo:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("cvsgo", flag.ContinueOnError)
	cBin := fs.String("c", "bench/sqlite_bench", "the C program")
	workerBin := fs.String("worker", "bin/worker-sqlite", "manydb's SQLite worker")
	variant := fs.String("variant", "sqlite", "variant id")
	dir := fs.String("dir", "", "directory of the stores (000000 …)")
	stores := fs.Int("stores", 0, "number of stores")
	objects := fs.Int("objects", 1000, "notes per store")
	runs := fs.Int("runs", 3, "runs of each, alternating")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *stores < 1 {
		return fmt.Errorf("--dir and --stores are required")
	}
	// open, count, close, total
	var cMs, goMs [4][]float64
	for r := 1; r <= *runs; r++ {
		out, err := exec.Command(*cBin, *dir, strconv.Itoa(*stores), strconv.Itoa(r)).Output()
		if err != nil {
			return fmt.Errorf("C program: %w", err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			if len(f) != 4 {
				return fmt.Errorf("C program printed %q", line)
			}
			for i := range f {
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					return fmt.Errorf("C program printed %q", line)
				}
				cMs[i] = append(cMs[i], v)
			}
		}
		job := worker.Job{Variant: *variant, Phase: results.PhaseOpen, Dir: *dir, Stores: *stores,
			Workload: workload.Spec{Name: "large", Objects: *objects, TextLen: 300}, Run: r, Seed: uint64(r)}
		out, err = exec.Command(*workerBin, job.Args()...).Output()
		if err != nil {
			return fmt.Errorf("worker: %w", err)
		}
		var rec results.Record
		if err := json.NewDecoder(bytes.NewReader(out)).Decode(&rec); err != nil {
			return fmt.Errorf("worker record: %w", err)
		}
		for i, xs := range [][]float64{rec.OpenMs, rec.QueryMs, rec.CloseMs, rec.TotalMs} {
			goMs[i] = append(goMs[i], xs...)
		}
	}
	fmt.Printf("%s: medians over %d stores × %d runs, alternating C and manydb:\n", *variant, *stores, *runs)
	fmt.Printf("  %-18s %10s %10s %10s\n", "", "C", "manydb", "ratio")
	for i, name := range []string{"open", "count", "close", "open+count+close"} {
		c, g := stats.Median(cMs[i]), stats.Median(goMs[i])
		fmt.Printf("  %-18s %7.3f ms %7.3f ms %10.2f\n", name, c, g, g/c)
	}
	return nil
}
