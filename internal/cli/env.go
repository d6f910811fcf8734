package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"manydb/internal/engine"
	"manydb/internal/orchestrate"
)

const envSynopsis = `manydb env [--root DIR] [--cache-check MB [--cache-wait 2m]]

Prints the environment every study records: kernel, distribution, CPU,
cores, memory, transparent huge pages, glibc, the kernel's proactive
reclaim of page cache (DAMON pageout schemes), Go, manydb's version, the
filesystem and free space of the data root, and the library and module
versions of every worker built here.

With --cache-check MB it then checks whether this machine evicts clean
page cache while memory is free: it writes MB of files in a new directory
under the root, syncs them, leaves them alone and prints how much of them
is still in the page cache every 10 s until --cache-wait has passed, then
removes the directory. Where it falls, a warm run's stores leave the cache
between runs (manydb's warm runs read them in first for that reason).`

// envOptions are the flags of manydb env.
type envOptions struct {
	root   string
	binDir string
	check  cacheCheck
}

// AddFlags defines env's flags in fs.
func (opt *envOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&opt.root, "root", ".", "data root whose filesystem to describe")
	fs.StringVar(&opt.binDir, "bin", opt.binDir, "directory of the worker binaries")
	opt.check.addFlags(fs)
}

// Validate checks the cache check against the root.
func (opt *envOptions) Validate() error { return opt.check.validate(opt.root) }

func envCmd(ctx context.Context, args []string, o Options) error {
	opt := envOptions{binDir: o.BinDir}
	rest, done, err := parseOptions("env", envSynopsis, &opt, args, o)
	if done || err != nil {
		return err
	}
	if err := noArgs("env", rest); err != nil {
		return err
	}
	if err := opt.Validate(); err != nil {
		return err
	}
	printSorted(o, "", orchestrate.Environment(opt.root, o.Version))
	for _, fam := range engine.Catalog() {
		bin := filepath.Join(opt.binDir, fam.Binary)
		if _, err := os.Stat(bin); err != nil {
			fmt.Fprintf(o.Stdout, "%-40s not built (needs %s)\n", fam.Binary, fam.Needs)
			continue
		}
		vs, err := orchestrate.WorkerVersions(ctx, bin, fam.Variants[0], o.Environ)
		if err != nil {
			fmt.Fprintf(o.Stdout, "%-40s does not start: %v\n", fam.Binary, err)
			continue
		}
		printSorted(o, fam.Binary+" ", vs)
	}
	if opt.check.MB > 0 {
		return opt.check.run(ctx, opt.root, o)
	}
	return nil
}

func printSorted(o Options, prefix string, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(o.Stdout, "%-40s %s\n", strings.TrimSpace(prefix+k), m[k])
	}
}
