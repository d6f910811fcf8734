package cli

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	units "github.com/docker/go-units"

	"manydb/internal/job"
	"manydb/internal/orchestrate"
	"manydb/internal/results"
)

const serveSynopsis = `manydb serve [flags]

Keep stores open or open them per request? For each engine variant,
creates --stores stores (one per agent), or takes over the stores a
manydb run --keep study left in the same --root when they match, measures the memory per open
store (a hold phase of min(100, --stores) stores), then for each --pool
size serves --requests agent requests in a fresh worker: each request is
one agent turn (its 20 newest notes, one note appended in its own
transaction), its agent drawn from a Zipf distribution (--zipf s, seeded),
its store taken from a pool of at most P open stores (the least recently
used is closed when the pool is full; 0 opens and closes per request).
One request per store at a time; waiting for a busy store counts in the
latency. --concurrency goroutines send requests back to back (closed
loop), or with --rate the requests are due on a fixed schedule and latency
counts from when each was due (open loop). A warm-up of 5 % of the
requests is not recorded. Every answer is checked. With --pool-time, a
pool size's step stops once that long has passed since its warm-up began
(the requests under way finish): its record says it stopped early, how
many requests were done of how many and the limit, its figures are of the
requests done, and the table marks it.

With --memory-max SIZE (root), each pool size's worker runs in a memory
cgroup of its own (v1 or v2) limited to SIZE, as in a container: the
worker first evicts the stores' files from the page cache, so the pages
its requests read are charged to it. The figures gain the cgroup's peak,
the page-cache pages read again after their eviction (refaults) and,
under cgroup v2, how often it reached its limit and the pages reclaimed. A
worker the OOM killer ends is recorded as oom-killed, with those figures,
not as a failure. The pools are then not skipped for their memory.

With --layout per-agent,shared the same traffic also runs on one store
for all agents (docs/layouts.md): a request takes its agent's view of the
shared store, opened once per worker, and the pool keeps views. Variants
whose shared store is one connection (the SQLite family, libSQL) are n/a
there, with the reason.

With --procs K each pool size is served by K worker processes side by
side, as a router by agent id would split the agents: each serves the
requests of the one sequence for its own consecutive agents, with its
share of the pool and of the goroutines (K at most --concurrency; closed
loop only). The step's figures are theirs together (the latency
histograms merged, counts and memory samples summed), with each one's
own kept in the record. The hold is split over the K processes too.

With --dims D every note carries an embedding of D values (as in manydb
run --dims), and each request also asks its store for the 10 notes
nearest to the embedding of the newest note it read, before it appends:
an exact search must return that note first.

Figures per variant and pool size: latency p50, p90, p99, p99.9 and max
(an HDR histogram), throughput, the pool's hit rate (and what an LRU of
the pool would hit serving the requests one at a time), opens and closes per
second, and the process' resident and anonymous memory, threads and open
files at the end (after the pool's stores were closed) and at their peak.
A pool whose anonymous memory, estimated from
the hold phase, would not fit in 70 % of the available memory, or whose
open files would exceed the hard limit (ulimit -Hn), is skipped with a
message.

The records (phase serve, with the encoded histogram and every sample) go
to --out; running the same command again resumes, as manydb run does.

Example:
  manydb serve --engines sqlite,obx_nosync --stores 2000 --requests 20000 --pool 0,20,200,2000 --root data --out serve.jsonl`

func serveCmd(ctx context.Context, args []string, o Options) error {
	fs := newFlagSet("serve")
	study := serveStudyFlags(o)
	study.AddFlags(fs)
	stores := fs.Int("stores", 10000, "stores (agents) per variant")
	requests := fs.Int("requests", 200000, "recorded requests per pool size")
	concurrency := fs.Int("concurrency", 8, "goroutines sending requests")
	zipf := fs.Float64("zipf", 1.1, "Zipf exponent s of the agents (above 1; higher: fewer, hotter agents)")
	pools := fs.String("pool", "0,1%,10%,100%", "pool sizes: numbers of open stores or percentages of --stores")
	rate := fs.Float64("rate", 0, "requests per second (open loop); 0: closed loop")
	skipTimeCheck := fs.Bool("skip-time-check", false, fmt.Sprintf("start even if the open-loop schedule (--requests at --rate, every pool size, variant and setting) takes more than %s", orchestrate.FormatSeconds(orchestrate.MaxScheduleTime.Seconds())))
	poolTime := fs.Duration("pool-time", 0, "time limit of each pool size's step, e.g. 20m; it stops early with the requests done (0: no limit)")
	layout := fs.String("layout", job.JoinLayouts(job.DefaultLayouts()), job.LayoutUsage()+"; in the shared store a request takes its agent's view of it, and variants whose shared store is one connection are n/a")
	memoryMax := fs.String("memory-max", "", "run each pool size's worker in a memory cgroup of its own with this limit, e.g. 1G (1 GiB; K, M, G, T are powers of 1,024, as in cgroups and docker); needs root")
	if done, err := parse(fs, args, serveSynopsis, o); done || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &job.InputError{Msg: fmt.Sprintf("serve: unexpected argument %q (flags only; see manydb serve --help)", fs.Arg(0))}
	}
	if *poolTime < 0 {
		return &job.InputError{Msg: fmt.Sprintf("serve: --pool-time %v: give a positive duration (e.g. 20m), or 0 for no limit", *poolTime)}
	}
	maxBytes, err := parseMemoryMax(*memoryMax)
	if err != nil {
		return &job.InputError{Msg: "serve: " + err.Error()}
	}
	ps, err := parsePools(*pools, *stores)
	if err != nil {
		return &job.InputError{Msg: "serve: " + err.Error()}
	}
	layouts, err := parseLayouts("serve", *layout)
	if err != nil {
		return err
	}
	if err := study.Validate(); err != nil {
		return err
	}
	cfg, err := study.config(ctx, o, 0, 0)
	if err != nil {
		return err
	}
	cfg.Stores, cfg.Layouts = *stores, layouts
	cfg.Hold = study.hold(*stores)
	cfg.Serve = &results.ServeConfig{Pools: ps, Requests: *requests, Concurrency: *concurrency, Zipf: *zipf, Rate: *rate,
		PoolTimeS: poolTime.Seconds(), MemoryMaxBytes: maxBytes}
	cfg.SkipTimeCheck = *skipTimeCheck
	return study.run(ctx, o, cfg)
}

// minMemoryMax is the smallest --memory-max taken: below it a worker
// cannot start its engine.
const minMemoryMax = 16 << 20

// maxMemoryMax is the largest --memory-max taken: 1 PiB.
const maxMemoryMax = 1 << 50

// parseMemoryMax reads --memory-max: "" is no limit, else a size
// (parseSize), at least minMemoryMax.
func parseMemoryMax(s string) (int64, error) {
	return parseSize("--memory-max", s, minMemoryMax)
}

// parseSize reads a size flag: "" is none (0), else a size as docker's
// --memory takes it (go-units' RAMInBytes: 512M, 1G, 1GiB, 1.5g; powers
// of 1,024), at least least and at most maxMemoryMax.
func parseSize(flagName, s string, least int64) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := units.RAMInBytes(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s %q: not a size (%v): give a number and a unit of powers of 1,024, e.g. 512M or 1G", flagName, s, err)
	case n < 0 || n > maxMemoryMax: // RAMInBytes gives the smallest int64 when it overflows
		return 0, fmt.Errorf("%s %q: more than %s, larger than any machine's memory: give a size such as 512M or 1G", flagName, s, units.BytesSize(maxMemoryMax))
	case n < least:
		return 0, fmt.Errorf("%s %q: give a size of at least %s, e.g. 512M or 1G (powers of 1,024)", flagName, s, units.BytesSize(float64(least)))
	}
	return n, nil
}

// parsePools reads --pool: numbers of stores or percentages of stores
// (rounded down, but at least 1 for a percentage above 0), each at most
// stores, none twice.
func parsePools(s string, stores int) ([]int, error) {
	var out []int
	var given []string // the entry of --pool each size came from
	for _, f := range strings.Split(s, ",") {
		var n int
		if pct, ok := strings.CutSuffix(f, "%"); ok {
			p, err := strconv.ParseFloat(pct, 64)
			if err != nil || !(p >= 0 && p <= 100) {
				return nil, fmt.Errorf("--pool %q: a percentage between 0%% and 100%% of --stores", f)
			}
			n = int(float64(stores) * p / 100)
			if n == 0 && p > 0 {
				n = 1 // a share above 0 % keeps at least one store open
			}
		} else {
			v, err := strconv.Atoi(f)
			if err != nil || v < 0 || v > stores {
				return nil, fmt.Errorf("--pool %q: a number of open stores between 0 and --stores (%d), or a percentage", f, stores)
			}
			n = v
		}
		if i := slices.Index(out, n); i >= 0 {
			return nil, fmt.Errorf("--pool: %s and %s both mean a pool of %d of the %d stores: list each pool size once", given[i], f, n, stores)
		}
		out, given = append(out, n), append(given, f)
	}
	return out, nil
}
