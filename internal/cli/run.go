package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"

	"manydb/internal/job"
	"manydb/internal/orchestrate"
)

const runSynopsis = `manydb run [flags]

Runs a study: for each engine variant, creates --stores stores, makes
--runs warm open runs over all of them (open, count, close, in a random
order per run), holds --hold stores open to measure memory, and measures
the space each store takes. Each phase runs in a fresh worker process.
Every phase's record is appended to --out (JSON Lines) as soon as it ends;
at the end the study's tables are printed on stdout.

Each --settings entry is a process-wide condition for the workers (see
below) and gets its own stores, phases and table.

Stores are written under --root, which must be new, empty or an earlier
manydb root (it carries a .manydb-root marker). Unless --keep is given, a
variant's stores are removed after its phases. Before starting, manydb
estimates the space the stores need and refuses to start if the data
root's filesystem cannot hold them.

The PostgreSQL variants keep their stores in a server: manydb starts its
own in ROOT/.manydb-postgres (on a Unix socket only its user can reach,
no TCP) and removes it at the end, or with --postgres DSN uses a server
you run on this machine, where it makes databases of its own and drops
only those.

The sqld variant keeps its stores in libSQL's server: manydb starts its
own in ROOT/.manydb-sqld (on 127.0.0.1 only, every request with a key
made for the study) and removes it at the end.

Running the same command again with the same --out resumes the study (if
the same version of manydb recorded it): every cell (variant, setting,
phase, run) already recorded is skipped. A study
interrupted at any moment, even by SIGKILL, loses at most the cell in
progress. Use --fresh to start a new study instead.

Queries and turns (what an agent does with its store):
  --queries count,recent,get,scan,knn   the queries of each open run, each
      timed on its own between open and close, in the order given, every
      answer checked: count (the reference's), recent (the 20 newest notes),
      get (10 notes by id, drawn per store from the run's seed), scan (every
      note), knn (the 10 nearest by embedding; needs --dims, see below).
  --turns R   R turn runs after the space phase: per store, in a random order,
      open, recent, append one note in its own durable transaction, close;
      the next turn reads each appended note back first.

Layouts (one store per agent, or one for all):
  --layout per-agent,shared   per-agent is a store of its own per agent (the
      default); shared is one store holding every agent's notes keyed by
      agent, where the variant has it (docs/layouts.md lists them; the others
      are n/a with the reason), on the same work: each agent's notes in its own
      transaction, then the same open runs, queries, turns, cold caches and
      hold, an agent's open being what an application does to start serving
      it from the shared store (docs/layouts.md); with --dims the shared
      store keeps embeddings where the variant has them there (sqlite_capi:
      a vec0 table partitioned by agent; bbolt, pebble, badger: the agent's
      embeddings beside its notes; libsql_capi: one DiskANN
      index over every agent, its answer filtered by agent), each agent's
      knn answering from its own notes. With shared, every layout
      ends with a delete phase: one agent in ten (the seed's order) exported
      to a file of its own (JSON lines, synced) and then deleted, with the
      space that gave back. Each layout gets columns of its own.
  --deletes N   agents the delete phase exports and deletes, 1 to one less
      than --stores (default 0: one in ten); fewer keep a study short where
      deleting from a shared index takes seconds an agent.

Vectors (an agent's memory recalled by meaning):
  --dims D   every note carries an embedding of D float32 values (with
      --data synthetic, generated, clustered around a few topics per agent,
      docs/method.md; 384 is a small sentence-embedding model's; with
      --data glove50 50, --data minilm-wordnet 384, a file of yours its
      own: docs/vectors.md), kept by each engine's own vector
      search where it has one (docs/engines.md); obx, without a vector API,
      is n/a. The query knn (--queries count,knn,recent) asks for the 10
      notes nearest to a query near one of the store's notes (with real
      data, a held-out item of the store's topics); after the
      close manydb computes the exact answer and records recall@10 (an
      exact search must reach 1, or the phase fails). A turn recalls
      first (knn for the new note's embedding, recent, append); the hold
      asks each store a knn before the memory snapshot, and after it asks
      an approximate search again for 20, 40, … 640 notes, keeping 10:
      the notes to ask for 95 % recall (docs/method.md).
  --topic-pool P   every agent draws its topics from one pool of P
      centres (default 0: each agent its own), so agents write about the
      same things; --note-spread σ (default 1) is the noise around a
      topic. Both are recorded in the workload.
  --knn-oversample M   an approximate knn (an index, e.g. libSQL's, or a
      shared index filtered by agent) asks its engine for M × 10 notes and
      keeps the first 10, as an application does to make up for what the
      index or its filter loses (default 1; recorded as knn_asked; exact
      searches always ask for 10).
  --cache warm,cold,drop   the open runs' page cache: warm (the reference's);
      cold evicts each store's files before its open (fdatasync and
      posix_fadvise DONTNEED, no root) and records how much stayed
      resident (cachestat, or mincore on kernels before 6.5), and stops,
      n/a, once 20 stores in a row stayed (a mapped shared store); drop
      empties the kernel's page cache before each run (root). Each mode gets --runs runs and rows of its own.

Sweeps (how the figures grow with scale):
  --stores 100,1000,10000   one study per count, linked by a sweep id in
      every record; each variant's stores are made once, for the largest
      count (checked against free space), and a smaller count's study uses
      the first N of them (its create record holds their samples; its warm
      runs first read those stores' files, untimed, into the page cache).
  --hold 1,10,100,1000      each count its own hold phase on the same
      stores, smallest first; a count whose memory or open files, estimated
      from the hold before it, would not fit here is skipped with a record
      saying why; counts above a study's stores are left out of it.
  --fanout 2                nested store directories (12/34/001234)
      instead of the reference's flat folder; recorded in every record.
  --procs K                 each hold split over K worker processes, each
      holding a range of consecutive agents as a router would (past one
      process' open files or pthread keys); the processes open their
      stores one after another and each keeps them open while the next
      opens its own; the record is theirs together (memory and counts
      summed, the n-th open against the stores open in all) with each
      one's own hold and memory before its first store (Pss). Per-agent
      layout only; 1 to the smallest --hold (default 1). --procs auto
      chooses each hold's K: the fewest processes whose open files,
      mappings and pthread keys stay within 90 % of a process' limit,
      from the hold before it (a hold of 100 stores in one process comes
      first when every --hold is larger); the record names the limit.
  Each warm run (a warm open run, a turn run, serve without --memory-max)
  first reads its stores' files into the page cache, untimed, and records
  how much of the data pages of a sample of 300 of its stores were in the
  page cache before and after it; below 99 % every table, the report and
  compare name it as not warm.

With --max-load, each phase starts only when the 1-minute load average is
below the limit, or with --gate quiet also when the machine is quiet
(other processes' CPU use and the disk's stall time over 2 s); while
servers the study started run (its PostgreSQL, its sqld), the load gate
reads the tasks active without manydb and its servers over 2 s, and the
quiet gate leaves the servers' CPU time out (docs/method.md, "Load gate
and progress"); the
load is also sampled every 10 s while a phase runs and
kept in its record, and a finished variant's stores are deleted while
the study waits (paused when the next phase starts; the rest at the
study's end). The study's
last line says where its time went: the load waits, the engine's calls,
manydb's own work and its parts (docs/method.md, "Results file").

Settings:
  default         nothing changed
  lean            each engine's documented options for many open stores
                  (SQLite: cache_size -64, mmap, no lookaside; ObjectBox: no
                  thread-local readers, 16 readers, 64 MiB; Pebble: 64 KiB
                  memtable; …), named in every record (engine_options);
                  n/a for engines without such options (Turso, bbolt).
                  docs/engines.md lists each variant's.
  mmap-threshold  MALLOC_MMAP_THRESHOLD_=131072 (as mallopt(M_MMAP_THRESHOLD, 131072)); cgo engines only
  trim-threshold  MALLOC_TRIM_THRESHOLD_=67108864; cgo engines only
  thp-off         prctl(PR_SET_THP_DISABLE) in the worker before the engine starts
  wal             SQLite's WAL journal (PRAGMA journal_mode=WAL, synchronous
                  FULL) for every store: the shared layout's mode, so that a
                  store per agent is compared with it commit for commit;
                  n/a for engines that are not SQLite (docs/layouts.md)
  jemalloc        LD_PRELOAD of Debian's libjemalloc2 instead of glibc's malloc; cgo engines only
  mimalloc        LD_PRELOAD of Debian's libmimalloc2.0; cgo engines only
  tcmalloc        LD_PRELOAD of Debian's libtcmalloc-minimal4; cgo engines only
  A+B             both, e.g. thp-off+jemalloc, mmap-threshold+trim-threshold or
                  lean+thp-off (at most one allocator, and no glibc variable
                  with an allocator)

Under every setting a cgo engine's worker proves which malloc it runs with
(glibc's, or the preloaded library's) and records it with its version; a
preload that did not take fails the phase. An allocator setting whose
library is not installed is skipped with a line saying how to install it
(make build installs them as root).

Example:
  manydb run --engines sqlite --stores 1000 --runs 3 --hold 500 --root data --out results.jsonl`

// runOptions are the flags of manydb run: the study flags and its own.
type runOptions struct {
	study          studyFlags
	skipSpaceCheck bool
	stores         *job.List[int]
	runs           int
	hold           *job.List[int]
	fanout         int
	objects        int
	textLen        int
	queries        *job.List[job.Query]
	cache          string
	turns          int
	layout         string
	deletes        int
}

// newRunOptions are run's flags with their defaults.
func newRunOptions(o Options) *runOptions {
	return &runOptions{
		study:   runStudyFlags(o),
		stores:  job.NewList(job.ParseCount, "1000"),
		hold:    job.NewList(job.ParseCount, "0"),
		queries: job.NewList(job.ParseQuery, string(job.QueryCount)),
	}
}

// AddFlags defines the study flags and run's own in fs.
func (opt *runOptions) AddFlags(fs *flag.FlagSet) {
	opt.study.AddFlags(fs)
	fs.Var(opt.stores, "stores", "stores per variant; a `list` (100,1000,10000) runs a sweep: one study per count, each variant's stores made once for the largest")
	fs.IntVar(&opt.runs, "runs", 3, "warm open runs over all stores (seeds 1..runs)")
	fs.Var(opt.hold, "hold", fmt.Sprintf("stores held open at once for the memory figure (0: min(%d, --stores)); a `list` (1,10,100) holds each count in turn on the same stores", opt.study.holdCap))
	fs.IntVar(&opt.fanout, "fanout", 0, "store directory levels: 0 flat (root/…/001234, the reference's), 2 nested (…/12/34/001234)")
	fs.IntVar(&opt.objects, "objects", 0, "notes per store (0: the workload's)")
	fs.IntVar(&opt.textLen, "text-len", 0, "characters per note text (0: the workload's)")
	fs.BoolVar(&opt.skipSpaceCheck, "skip-space-check", false, "start even if the data root's filesystem looks too small")
	fs.Var(opt.queries, "queries", "queries of each open run, in order: "+job.JoinNames(job.Queries(), ", "))
	fs.StringVar(&opt.cache, "cache", job.CacheWarm.Name(), "page cache of the open runs: "+job.CacheModeNames()+" (comma-separated; each gets --runs runs)")
	fs.IntVar(&opt.turns, "turns", 0, "turn runs (open, recent, append, close) after the space phase")
	fs.StringVar(&opt.layout, "layout", job.JoinLayouts(job.DefaultLayouts()), job.LayoutUsage()+"; with shared every layout also exports and deletes one agent in ten (--deletes)")
	fs.IntVar(&opt.deletes, "deletes", 0, "with --layout …,shared: agents the delete phase exports and deletes, below --stores (0: one in ten)")
}

// Validate checks what needs nothing but the flags (the study flags'
// lists and values); the orchestrator checks the rest (Config.Validate).
func (opt *runOptions) Validate() error {
	return opt.study.Validate()
}

func runCmd(ctx context.Context, args []string, o Options) error {
	opt := newRunOptions(o)
	rest, done, err := parseOptions("run", runSynopsis, opt, args, o)
	if done || err != nil {
		return err
	}
	if err := noArgs("run", rest); err != nil {
		return err
	}
	if err := opt.Validate(); err != nil {
		return err
	}
	cfg, err := opt.config(ctx, o)
	if err != nil {
		return err
	}
	return opt.study.run(ctx, o, cfg)
}

func (opt *runOptions) config(ctx context.Context, o Options) (orchestrate.Config, error) {
	cfg, err := opt.study.config(ctx, o, opt.objects, opt.textLen)
	if err != nil {
		return orchestrate.Config{}, err
	}
	layouts, err := parseLayouts("run", opt.layout)
	if err != nil {
		return orchestrate.Config{}, err
	}
	queries := opt.queries.Items
	if opt.queries.String() == string(job.QueryCount) {
		queries = nil // the reference's query, recorded as such
	}
	var cache []string
	if opt.cache != job.CacheWarm.Name() {
		if cache, err = job.ParseList(opt.cache, job.ParseName); err != nil {
			return orchestrate.Config{}, &job.InputError{Msg: "--cache " + err.Error()}
		}
	}
	counts, holds := opt.stores.Items, opt.hold.Items
	stores := slices.Max(counts)
	if slices.Equal(holds, []int{0}) {
		holds = []int{opt.study.hold(stores)}
	}
	var sweep []int
	if len(counts) > 1 {
		sweep = counts
	}
	cfg.SkipSpaceCheck = opt.skipSpaceCheck
	cfg.Stores = stores
	cfg.Sweep = sweep
	cfg.Runs = opt.runs
	cfg.Holds = holds
	cfg.Fanout = opt.fanout
	cfg.Queries = queries
	cfg.Cache = cache
	cfg.Turns = opt.turns
	cfg.Layouts = layouts
	cfg.Deletes = opt.deletes
	return cfg, nil
}

// parseLayouts reads --layout of command cmd.
func parseLayouts(cmd, s string) ([]job.Layout, error) {
	layouts, err := job.ParseLayouts(s)
	if err != nil {
		return nil, &job.InputError{Msg: cmd + ": " + err.Error()}
	}
	return layouts, nil
}
