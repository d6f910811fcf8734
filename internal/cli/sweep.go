package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"manydb/internal/datasource"
	"manydb/internal/job"
	"manydb/internal/orchestrate"
	"manydb/internal/report"
	"manydb/internal/results"
	"manydb/internal/workload"
)

const sweepSynopsis = `manydb sweep [flags] -- RUN-FLAGS

One index for all agents, or one per agent: a fixed total of notes
(--total) divided among more and more agents (--agents), one study per
agent count (manydb run RUN-FLAGS, the flags after --), so that the
recall@10 and latency of an index shared by every agent, filtered by
agent, stand beside a store per agent as each agent's share of the index
shrinks. Every study makes its own stores (TOTAL/AGENTS notes each; a
corpus's items divided among them, none in two stores), runs enough warm
open runs for --queries knn queries, holds, measures the space, and
leaves out the delete phase. Each count's records go to
DIR/agents-COUNT.jsonl; running the same command again resumes where it
stopped. The tables and the report of DIR/*.jsonl show each figure
against the number of agents (manydb tables, manydb report).

Example (GloVe, every vector variant in both layouts, about 10 minutes):
  manydb sweep --quick --dir results/sweep-glove -- --data glove50 --dims 50 --engines sqlite_capi,obx_nosync,bbolt --layout per-agent,shared`

// sweepOwned are the run flags the sweep sets in each study itself.
func sweepOwned() []string {
	return []string{"stores", "objects", "runs", "queries", "hold", "out", "turns", "deletes", "cache", "fresh", "procs"}
}

// The sweep's agent counts, and the quick look's total and counts.
const (
	defaultAgents = "10,100,1000,10000"
	quickTotal    = 20_000
	quickAgents   = "10,100,1000"
)

// sweepOptions are sweep's flags, as given.
type sweepOptions struct {
	total   int
	agents  string // --agents as given; "": the default's or the quick look's
	counts  []int  // the agent counts, smallest first (Validate)
	quick   bool
	queries int
	dir     string
	runArgs []string // the run flags after --
}

// AddFlags defines sweep's flags on fs.
func (o *sweepOptions) AddFlags(fs *flag.FlagSet) {
	fs.IntVar(&o.total, "total", 0, "notes divided among the agents (0: the data set's, 200,000; 100,000 for minilm-wordnet)")
	fs.StringVar(&o.agents, "agents", "", "agent counts, one study each, comma-separated (default "+defaultAgents+")")
	fs.BoolVar(&o.quick, "quick", false, fmt.Sprintf("a quick look: --total %d --agents %s; not with either", quickTotal, quickAgents))
	fs.IntVar(&o.queries, "queries", 200, "knn queries each study makes at least (warm runs over every agent: ceil(queries/agents) of them)")
	fs.StringVar(&o.dir, "dir", "", "directory of the studies' results files, agents-COUNT.jsonl (default results/sweep-DATA)")
}

// Validate checks sweep's own flags and reads --agents; plan checks each
// study's.
func (o *sweepOptions) Validate() error {
	if len(o.runArgs) == 0 {
		return sweepInputError("give the studies' run flags after --, e.g. manydb sweep -- --data glove50 --dims 50 --engines sqlite_capi")
	}
	if o.quick && (o.total != 0 || o.agents != "") {
		return sweepInputError(fmt.Sprintf("--quick is --total %d --agents %s: give it or them, not both", quickTotal, quickAgents))
	}
	if o.total < 0 || o.queries < 1 {
		return sweepInputError(fmt.Sprintf("--total %d, --queries %d: give a total of notes (0: the data set's) and at least one query", o.total, o.queries))
	}
	text := o.agents
	switch {
	case o.quick:
		text, o.total = quickAgents, quickTotal
	case text == "":
		text = defaultAgents
	}
	counts, err := job.ParseList(text, job.ParseCount)
	if err != nil {
		return sweepInputError("--agents: " + err.Error())
	}
	slices.Sort(counts)
	o.counts = counts
	return nil
}

func sweepInputError(msg string) error { return &job.InputError{Msg: "sweep: " + msg} }

// sweepPlan is a sweep resolved: the run flags parsed, and per agent
// count its study's configuration.
type sweepPlan struct {
	run   *runOptions
	total int
	dir   string
	cells []orchestrate.Config // one per agent count, smallest first
}

func sweepCmd(ctx context.Context, args []string, o Options) error {
	var opt sweepOptions
	runArgs, done, err := parseOptions("sweep", sweepSynopsis, &opt, args, o)
	if done || err != nil {
		return err
	}
	opt.runArgs = runArgs
	if err := opt.Validate(); err != nil {
		return err
	}
	plan, err := opt.plan(ctx, o)
	if err != nil {
		return err
	}
	return plan.runAll(ctx, o)
}

// plan parses the run flags and makes each agent count's study
// configuration, checking every one before any runs: bad input is one
// line and nothing made.
func (o *sweepOptions) plan(ctx context.Context, opts Options) (*sweepPlan, error) {
	run, err := parseSweepRunArgs(o.runArgs, opts)
	if err != nil {
		return nil, err
	}
	data, _ := datasource.Choose(run.study.data) // checked by run's Validate
	if run.study.dims == 0 {
		return nil, sweepInputError("the studies search notes by embedding: give --dims after -- (50 for glove50, 384 for minilm-wordnet)")
	}
	total := o.total
	if total == 0 {
		if total = datasource.SweepTotal(data); total == 0 {
			return nil, sweepInputError(fmt.Sprintf("--data %s has no default total: give --total", run.study.data))
		}
	}
	if o.dir == "" {
		o.dir = filepath.Join("results", "sweep-"+datasource.Name(data))
	}
	p := &sweepPlan{run: run, total: total, dir: o.dir}
	sweep := &results.AgentSweepConfig{ID: filepath.Base(o.dir), Total: total, Agents: o.counts}
	for _, agents := range o.counts {
		if agents < 1 || agents > total {
			return nil, sweepInputError(fmt.Sprintf("--agents %d with --total %d: give 1 to %d agents, each holds at least one note", agents, total, total))
		}
	}
	for _, agents := range o.counts {
		cfg, err := o.cell(ctx, opts, run, agents, total)
		if err != nil {
			return nil, err
		}
		cfg.Workload.Split = data != (workload.Data{})
		cfg.NoDelete, cfg.AgentSweep = true, sweep
		if err := run.study.prepareData(opts, &cfg); err != nil {
			return nil, err
		}
		if err := orchestrate.Check(ctx, cfg); err != nil {
			return nil, fmt.Errorf("sweep: %w", err)
		}
		p.cells = append(p.cells, cfg)
	}
	return p, nil
}

// parseSweepRunArgs reads the run flags after --, as manydb run would,
// and refuses those the sweep sets itself.
func parseSweepRunArgs(args []string, o Options) (*runOptions, error) {
	run := newRunOptions(o)
	fs := newFlagSet("run")
	run.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, sweepInputError(fmt.Sprintf("the run flags after --: %v", err))
	}
	if fs.NArg() > 0 {
		return nil, sweepInputError(fmt.Sprintf("the run flags after --: unexpected argument %q", fs.Arg(0)))
	}
	var owned []string
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(sweepOwned(), f.Name) {
			owned = append(owned, "--"+f.Name)
		}
	})
	if len(owned) > 0 {
		return nil, sweepInputError(fmt.Sprintf("%s: set by the sweep in each study (from --total, --agents, --queries, --dir)", strings.Join(owned, ", ")))
	}
	if err := run.Validate(); err != nil {
		return nil, err
	}
	return run, nil
}

// cell is the study of agents agents: total/agents notes each (the rest
// of total unused, and said), warm runs enough for the sweep's queries,
// its records in DIR/agents-COUNT.jsonl.
func (o *sweepOptions) cell(ctx context.Context, opts Options, run *runOptions, agents, total int) (orchestrate.Config, error) {
	per := total / agents
	if per*agents != total {
		fmt.Fprintf(opts.Stderr, "sweep: %d agents do not divide %d notes: each holds %d, %d in all\n", agents, total, per, per*agents)
	}
	cell := *run
	cell.stores = job.NewList(job.ParseCount, strconv.Itoa(agents))
	cell.objects = per
	cell.runs = (o.queries + agents - 1) / agents
	cell.queries = job.NewList(job.ParseQuery, string(job.QueryKNN))
	cell.study.out = filepath.Join(o.dir, fmt.Sprintf("agents-%d.jsonl", agents))
	return cell.config(ctx, opts)
}

// runAll runs the sweep's studies, smallest agent count first, saying
// before each how far the sweep is; a study with failed phases does not
// stop the others (the error is returned at the end), anything else does.
func (p *sweepPlan) runAll(ctx context.Context, o Options) error {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	start := time.Now()
	var failed error
	for i, cfg := range p.cells {
		fmt.Fprintf(o.Stderr, "sweep %s: study %d of %d, %d agents × %d notes%s\n", filepath.Base(p.dir), i+1, len(p.cells),
			cfg.Stores, cfg.Workload.Objects, sweepETA(time.Since(start), i, len(p.cells)))
		err := p.run.study.run(ctx, o, cfg)
		if f := (*orchestrate.Failed)(nil); errors.As(err, &f) {
			failed = err
			continue
		}
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(o.Stderr, "sweep %s: %d studies in %s; their records: %s\n", filepath.Base(p.dir), len(p.cells),
		time.Since(start).Round(time.Second), filepath.Join(p.dir, "agents-*.jsonl"))
	return errors.Join(failed, p.writeTables(o.Stdout))
}

// sweepETA says how long the sweep has run and, after a study, about how
// long the rest will take at the pace so far.
func sweepETA(elapsed time.Duration, done, studies int) string {
	if done == 0 {
		return ""
	}
	left := elapsed / time.Duration(done) * time.Duration(studies-done)
	return fmt.Sprintf(" (%s so far, about %s left)", elapsed.Round(time.Second), left.Round(time.Second))
}

// writeTables writes the sweep's tables: each figure against the number
// of agents, from every study's records.
func (p *sweepPlan) writeTables(w io.Writer) error {
	var recs []results.Record
	for _, cfg := range p.cells {
		rs, err := results.ReadFile(cfg.Out)
		if err != nil {
			return err
		}
		recs = append(recs, rs...)
	}
	return report.AgentSweeps(w, recs)
}
