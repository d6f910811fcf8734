package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

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
counts from when each was due (open loop; a goroutine more starts whenever
all are busy, so a stalled engine does not hold back the schedule). With
--rates R1,R2,…,max (a rate ladder) each pool size is served at each rate
in turn, max being the closed loop: its tables give p50 and p99 against
the offered rate per variant and pool, and name the saturation point.
A warm-up of 5 % of the requests is not recorded. Every answer is
checked. With --pool-time, a pool size's step (or, with --rates, each
step of a pool size at a rate) stops once that long has passed since its
warm-up began (the requests under way finish): its record says it
stopped early, how many requests were done of how many and the limit,
its figures are of the requests done, and the table marks it.

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
whose shared store is one connection for all agents (sqld, turso, turso_ckpt)
are n/a there, with the reason; the others' shared stores take
concurrent requests (docs/layouts.md).

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

// serveOptions are the flags of manydb serve: the study flags and its
// own. Validate sets the pool sizes and the memory limit they give.
type serveOptions struct {
	study         studyFlags
	stores        int
	requests      int
	concurrency   int
	zipf          float64
	pools         *job.List[poolSize]
	rate          float64
	rates         *job.List[float64]
	skipTimeCheck bool
	poolTime      time.Duration
	layout        string
	memoryMax     string

	poolSizes      []int // --pool in stores (Validate)
	memoryMaxBytes int64 // --memory-max in bytes, 0 for none (Validate)
}

// newServeOptions are serve's flags with their defaults.
func newServeOptions(o Options) *serveOptions {
	return &serveOptions{study: serveStudyFlags(o), pools: job.NewList(parsePoolSize, "0,1%,10%,100%"), rates: &job.List[float64]{Parse: job.ParseRate}}
}

// AddFlags defines the study flags and serve's own in fs.
func (opt *serveOptions) AddFlags(fs *flag.FlagSet) {
	opt.study.AddFlags(fs)
	fs.IntVar(&opt.stores, "stores", 10000, "stores (agents) per variant")
	fs.IntVar(&opt.requests, "requests", 200000, "recorded requests per pool size")
	fs.IntVar(&opt.concurrency, "concurrency", 8, "goroutines sending requests")
	fs.Float64Var(&opt.zipf, "zipf", 1.1, "Zipf exponent s of the agents (above 1; higher: fewer, hotter agents)")
	fs.Var(opt.pools, "pool", "pool sizes: numbers of open stores or percentages of --stores")
	fs.Float64Var(&opt.rate, "rate", 0, "requests per second (open loop); 0: closed loop")
	fs.Var(opt.rates, "rates", "a rate ladder: serve each pool size at each of these requests per second in turn (open loop), max for the closed loop, e.g. 10,100,1000,max")
	fs.BoolVar(&opt.skipTimeCheck, "skip-time-check", false, fmt.Sprintf("start even if the open-loop schedule (--requests at --rate or at each rate of --rates, every pool size, variant and setting) takes more than %s", orchestrate.FormatSeconds(orchestrate.MaxScheduleTime.Seconds())))
	fs.DurationVar(&opt.poolTime, "pool-time", 0, "time limit of each pool size's step, e.g. 20m; it stops early with the requests done (0: no limit)")
	fs.StringVar(&opt.layout, "layout", job.JoinLayouts(job.DefaultLayouts()), job.LayoutUsage()+"; in the shared store a request takes its agent's view of it, and variants whose shared store is one connection are n/a")
	fs.StringVar(&opt.memoryMax, "memory-max", "", "run each pool size's worker in a memory cgroup of its own with this limit, e.g. 1G (1 GiB; K, M, G, T are powers of 1,024, as in cgroups and docker); needs root")
}

// Validate checks what needs nothing but the flags, and sets the pool
// sizes in stores and the memory limit in bytes; the orchestrator checks
// the rest (Config.Validate).
func (opt *serveOptions) Validate() error {
	if err := job.CheckPoolTime(opt.poolTime); err != nil {
		return &job.InputError{Msg: "serve: " + err.Error()}
	}
	if opt.rate != 0 && len(opt.rates.Items) > 0 {
		return &job.InputError{Msg: "serve: --rate and --rates: give one rate (--rate) or a ladder of them (--rates)"}
	}
	var err error
	if opt.memoryMaxBytes, err = parseMemoryMax(opt.memoryMax); err != nil {
		return &job.InputError{Msg: "serve: " + err.Error()}
	}
	if opt.poolSizes, err = poolSizes(opt.pools.Items, opt.stores); err != nil {
		return &job.InputError{Msg: "serve: " + err.Error()}
	}
	return opt.study.Validate()
}

func serveCmd(ctx context.Context, args []string, o Options) error {
	opt := newServeOptions(o)
	rest, done, err := parseOptions("serve", serveSynopsis, opt, args, o)
	if done || err != nil {
		return err
	}
	if err := noArgs("serve", rest); err != nil {
		return err
	}
	if err := opt.Validate(); err != nil {
		return err
	}
	layouts, err := parseLayouts("serve", opt.layout)
	if err != nil {
		return err
	}
	cfg, err := opt.study.config(ctx, o, 0, 0)
	if err != nil {
		return err
	}
	cfg.Stores, cfg.Layouts = opt.stores, layouts
	cfg.Hold = opt.study.hold(opt.stores)
	cfg.Serve = &results.ServeConfig{Pools: opt.poolSizes, Requests: opt.requests, Concurrency: opt.concurrency, Zipf: opt.zipf, Rate: opt.rate, Rates: opt.rates.Items,
		PoolTimeS: opt.poolTime.Seconds(), MemoryMaxBytes: opt.memoryMaxBytes}
	cfg.SkipTimeCheck = opt.skipTimeCheck
	return opt.study.run(ctx, o, cfg)
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

// poolSize is one entry of --pool: a number of open stores, or a
// percentage of --stores.
type poolSize struct {
	stores  int
	percent float64
	share   bool // percent, not stores
}

// parsePoolSize reads one entry of --pool.
func parsePoolSize(s string) (poolSize, error) {
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		p, err := strconv.ParseFloat(pct, 64)
		if err != nil || !(p >= 0 && p <= 100) {
			return poolSize{}, fmt.Errorf("--pool %q: a percentage between 0%% and 100%% of --stores", s)
		}
		return poolSize{percent: p, share: true}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return poolSize{}, fmt.Errorf("--pool %q: a number of open stores between 0 and --stores, or a percentage", s)
	}
	return poolSize{stores: n}, nil
}

// String is the entry as --pool takes it.
func (p poolSize) String() string {
	if p.share {
		return strconv.FormatFloat(p.percent, 'g', -1, 64) + "%"
	}
	return strconv.Itoa(p.stores)
}

// of is the pool's size in stores of stores: a percentage rounded down,
// but at least 1 for a percentage above 0.
func (p poolSize) of(stores int) int {
	if !p.share {
		return p.stores
	}
	n := int(float64(stores) * p.percent / 100)
	if n == 0 && p.percent > 0 {
		n = 1 // a share above 0 % keeps at least one store open
	}
	return n
}

// poolSizes are the pools of --pool in stores, each at most stores, none
// twice.
func poolSizes(pools []poolSize, stores int) ([]int, error) {
	var out []int
	for i, p := range pools {
		n := p.of(stores)
		if n > stores {
			return nil, fmt.Errorf("--pool %q: a number of open stores between 0 and --stores (%d), or a percentage", p, stores)
		}
		if j := slices.Index(out, n); j >= 0 {
			return nil, fmt.Errorf("--pool: %s and %s both mean a pool of %d of the %d stores: list each pool size once", pools[j], pools[i], n, stores)
		}
		out = append(out, n)
	}
	return out, nil
}
