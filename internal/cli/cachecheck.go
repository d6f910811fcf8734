package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"manydb/internal/job"
	"manydb/internal/measure"
)

// cacheCheck is env's check of whether the machine evicts clean page
// cache while memory is free (--cache-check, --cache-wait).
type cacheCheck struct {
	MB   int64         // megabytes of files to write; 0: no check
	Wait time.Duration // how long to watch them
}

// cacheCheckFileBytes is the size of each file the check writes: about a
// large workload's store.
const cacheCheckFileBytes = 344 << 10

// cacheCheckEvery is how often the check samples the files' residency.
const cacheCheckEvery = 10 * time.Second

func (c *cacheCheck) addFlags(fs *flag.FlagSet) {
	fs.Int64Var(&c.MB, "cache-check", 0, "write this many MB of files under the root and watch whether they leave the page cache (0: no check)")
	fs.DurationVar(&c.Wait, "cache-wait", 2*time.Minute, "how long --cache-check watches the files")
}

// validate refuses a check that cannot run or would measure memory
// pressure instead of eviction: more than half the available memory or
// more than the root's free space.
func (c *cacheCheck) validate(root string) error {
	if c.MB == 0 {
		return nil
	}
	if c.MB < 0 || c.Wait <= 0 {
		return &job.InputError{Msg: fmt.Sprintf("env: --cache-check %d --cache-wait %s: give a positive size in MB and a positive duration", c.MB, c.Wait)}
	}
	avail, err := measure.MemAvailableKB()
	if err != nil {
		return err
	}
	if c.MB<<10 > avail/2 {
		return &job.InputError{Msg: fmt.Sprintf("env: --cache-check %d: more than half the available memory (%d MB): the check would measure memory pressure, not eviction", c.MB, avail>>10)}
	}
	if free, err := measure.FreeBytes(root); err == nil && uint64(c.MB<<20) > free {
		return &job.InputError{Msg: fmt.Sprintf("env: --cache-check %d: more than the free space under %s (%d MB)", c.MB, root, free>>20)}
	}
	return nil
}

// run writes the files in a new directory under root, prints each sample
// of their residency and what it shows, and removes the directory.
func (c *cacheCheck) run(ctx context.Context, root string, o Options) error {
	dir, err := os.MkdirTemp(root, "manydb-cache-check-")
	if err != nil {
		return fmt.Errorf("cache check: %w", err)
	}
	defer os.RemoveAll(dir) // manydb made it, with nothing else in it
	fmt.Fprintf(o.Stdout, "\ncache check: %d MB in files of %d KB under %s (removed after), synced and left alone:\n", c.MB, cacheCheckFileBytes>>10, dir)
	var first, last measure.EvictionSample
	err = measure.WatchEviction(ctx, dir, c.MB<<20, cacheCheckFileBytes, c.Wait, cacheCheckEvery, func(s measure.EvictionSample) {
		if s.After == 0 || first.CachedKB == 0 {
			first = s
		}
		last = s
		fmt.Fprintf(o.Stdout, "  after %4.0f s: %5.1f %% resident; page cache %d MB, free memory %d MB\n",
			s.After.Seconds(), 100*s.Resident, s.CachedKB>>10, s.FreeKB>>10)
	})
	if err != nil {
		return fmt.Errorf("cache check: %w", err)
	}
	fmt.Fprintln(o.Stdout, cacheVerdict(first, last))
	return nil
}

// cacheVerdict says what the first and last samples show.
func cacheVerdict(first, last measure.EvictionSample) string {
	if last.Resident >= 0.99 {
		return fmt.Sprintf("kept: %.1f %% still resident after %.0f s; this machine keeps clean page cache while memory is free.", 100*last.Resident, last.After.Seconds())
	}
	return fmt.Sprintf("evicted: %.1f %% resident after %.0f s (from %.1f %%) with %d MB or more of memory free: this machine drops clean page cache without memory pressure, so stores not read for a while leave the cache between runs.",
		100*last.Resident, last.After.Seconds(), 100*first.Resident, min(first.FreeKB, last.FreeKB)>>10)
}
