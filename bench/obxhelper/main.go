//go:build objectbox

// Command obxhelper serves bench/obx_c_vs_go.sh:
//
//	obxhelper model FILE              write the model's FlatBuffers bytes (as obx_cached passes them)
//	obxhelper order DIR STORES SEED   print the store directories in the order of the open run with SEED
//	obxhelper median < RECORD         print the medians of an open record (ms): open count close total
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"manydb/internal/engines/objectbox"
	"manydb/internal/engines/objectbox/note"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
	"manydb/internal/worker"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "obxhelper:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: obxhelper model FILE | order DIR STORES SEED | median < RECORD")
	}
	switch {
	case args[0] == "model" && len(args) == 2:
		b, err := objectbox.ModelBytes(note.ModelJSON)
		if err != nil {
			return err
		}
		return os.WriteFile(args[1], b, 0o644)
	case args[0] == "order" && len(args) == 4:
		n, err := strconv.Atoi(args[2])
		if err != nil {
			return err
		}
		seed, err := strconv.ParseUint(args[3], 10, 64)
		if err != nil {
			return err
		}
		for _, i := range worker.Order(n, seed) {
			fmt.Println(job.StoreDir(args[1], i, 0))
		}
		return nil
	case args[0] == "median" && len(args) == 1:
		var rec results.Record
		if err := json.NewDecoder(os.Stdin).Decode(&rec); err != nil {
			return err
		}
		fmt.Printf("open_ms %.4f count_ms %.4f close_ms %.4f total_ms %.4f\n",
			stats.Median(rec.OpenMs), stats.Median(rec.QueryMs), stats.Median(rec.CloseMs), stats.Median(rec.TotalMs))
		return nil
	}
	return fmt.Errorf("bad arguments %q", args)
}
