package cli

import (
	"fmt"
	"sort"

	"manydb/internal/orchestrate"
)

const envSynopsis = `manydb env [--root DIR]

Prints the environment every study records: kernel, distribution, CPU,
cores, memory, transparent huge pages, glibc, Go, manydb's version, and the
filesystem and free space of the data root.`

func envCmd(args []string, o Options) error {
	fs := newFlagSet("env")
	root := fs.String("root", ".", "data root whose filesystem to describe")
	if done, err := parse(fs, args, envSynopsis, o); done || err != nil {
		return err
	}
	env := orchestrate.Environment(*root, o.Version)
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(o.Stdout, "%-16s %s\n", k, env[k])
	}
	return nil
}
