// Command settingenv prints, as shell export lines, the environment a
// manydb setting gives its workers (e.g. LD_PRELOAD of jemalloc, or
// MALLOC_TRIM_THRESHOLD_), so that the bench scripts run their C programs
// under the same allocator as manydb's worker:
//
//	eval "$(go run ./bench/settingenv jemalloc)"
package main

import (
	"fmt"
	"os"
	"strings"

	"manydb/internal/settings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "settingenv:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: settingenv SETTING (e.g. default, trim-threshold, jemalloc)")
	}
	set, err := settings.Parse(args[0])
	if err != nil {
		return err
	}
	if set, err = set.Resolve(settings.LibDirs()); err != nil {
		return err
	}
	for _, kv := range set.Env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Printf("export %s='%s'\n", k, strings.ReplaceAll(v, "'", `'\''`))
	}
	return nil
}
