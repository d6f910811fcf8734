package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"manydb/internal/advise"
	"manydb/internal/job"
	"manydb/internal/results"
)

// adviseSynopsisFormat is advise's synopsis, %s the default files.
const adviseSynopsisFormat = `manydb advise [flags] [FILE...]

Answers a scenario from results files: every variant that qualifies,
ranked by its p99, at the pool of open stores (a share of the agents, as
serve measured) with the lowest p99 that meets the memory, disk and
process limits; its p99, pool hit rate, memory, disk and processes; every
variant that does not qualify and why; a store per agent beside one store
for all where the records hold both layouts; what the records do not
cover, with the manydb command that measures it; and for each number the
figure (as manydb tables names it) and the files it comes from. Every
pool serve measured is shown too (--part pools), each variant's p99,
memory and processes there. The answer names the machine the records
ran on and says of each option whether it was measured at your agents
or extrapolated from serve's; when your requests are more than that
machine served at a pool, the option is a plan over as many machines
like it, each with its share of the agents (by a hash of their id).

Memory at a pool: each process' peak under serve with no pool, plus the
pool times serve's growth per pool slot at the same share; at serve's own
scale in one process that is the peak serve measured there. With
--memory-in process it is resident memory; in a container (the default)
the worker's anonymous memory plus the page cache of the open stores'
files (the hold's charge less its anonymous memory); a server variant's
processes are outside the worker's container, so its memory is resident
(Pss) either way. With --dims an open store's embeddings add what the
vector study's hold measured; the vector figures are of one embedding
workload, the first record's of those dims (its topic pool and noise:
a shared index's recall depends on them), and records of another are
left out. A pool's p99 is serve's at the same share
of its agents, at your requests per second where its serve records have
a rate ladder (serve --rates: the p99 of the lowest rate at or above
yours), else, or past the ladder's saturation point, the closed loop's
(at saturation); with --dims it is serve's plus the vector study's knn
p99. Processes are what the open-file and pthread-key limits of the
records' machine need for the pool.

Without FILE it reads the committed record (run from the repository's
top directory; the records of record docs/results.md lists):
  %s

Example:
  manydb advise --agents 10000 --memory 2G --p99 20ms --dims 384`

// defaultAdviseFiles are the files advise reads when given none: the
// records of record of docs/results.md's list, in its order (a test holds
// them to it): the record's study, agent and serve parts, the vector
// study's exact-search part, the layouts study and PostgreSQL under
// serve.
func defaultAdviseFiles() []string {
	return []string{
		"docs/results/2026-12-04/study.jsonl.gz",
		"docs/results/2026-12-04/agent.jsonl.gz",
		"docs/results/2026-12-04/serve.jsonl.gz",
		"docs/results/2026-12-04-vectors/exact-and-obx.jsonl.gz",
		"docs/results/2026-12-05-layouts/layouts.jsonl.gz",
		"docs/results/2026-12-05-layouts/part.jsonl.gz",
		"docs/results/2026-12-05-layouts/kv.jsonl.gz",
		"docs/results/2026-12-05-postgres/serve.jsonl.gz",
		"docs/results/2026-12-05-serve-layouts/serve.jsonl.gz",
		"docs/results/2026-12-05-shared-serve/serve.jsonl.gz",
		"docs/results/2026-12-05-shared-serve/serve-obx.jsonl.gz",
		"docs/results/2026-12-07-serve-ladder/serve.jsonl.gz",
		"docs/results/2026-12-07-sqld/per-agent.jsonl.gz",
		"docs/results/2026-12-07-sqld/hold-2000.jsonl.gz",
		"docs/results/2026-12-07-sqld/serve-1000.jsonl.gz",
	}
}

// defaultAdviseText names the default files in the synopsis, one a line.
func defaultAdviseText() string {
	return strings.Join(defaultAdviseFiles(), "\n  ")
}

// adviseOptions are advise's flags, as given. Validate completes the
// scenario from the flags given as text.
type adviseOptions struct {
	scenario advise.Scenario
	memory   string
	memoryIn string
	active   string
	disk     string
	format   string
	part     string
	partList []string      // the parts --part names (Validate), none for all
	fs       *flag.FlagSet // where AddFlags defined them: which were given
}

// AddFlags defines advise's flags on fs, their defaults the scenario's.
func (o *adviseOptions) AddFlags(fs *flag.FlagSet) {
	o.fs = fs
	d := advise.Default()
	s := &o.scenario
	fs.IntVar(&s.Agents, "agents", d.Agents, "agents, one store each")
	fs.IntVar(&s.Notes, "notes", d.Notes, "notes per agent")
	fs.StringVar(&o.memory, "memory", "", "memory for the stores on one machine, powers of 1,024 (2G, 512M); empty: no limit")
	fs.StringVar(&o.memoryIn, "memory-in", "container", "what --memory limits: container (its own memory and the page cache it reads) or process (resident memory)")
	fs.DurationVar(&s.P99, "p99", d.P99, "a turn's p99 target")
	fs.StringVar(&o.active, "active", "10%", "share of the agents active in an hour (10% or 0.1)")
	fs.Float64Var(&s.TurnsPerActive, "turns-per-hour", d.TurnsPerActive, "turns of an active agent in that hour")
	fs.Float64Var(&s.Rate, "rate", 0, "requests per second, instead of --active and --turns-per-hour (0: agents × --active × --turns-per-hour / 3600)")
	fs.IntVar(&s.Dims, "dims", 0, "values per note's embedding, recalled in every turn (0: none)")
	fs.StringVar(&o.disk, "disk", "", "disk for the stores, powers of 1,024 (500G); empty: no limit")
	fs.IntVar(&s.MaxProcs, "procs", 0, "most processes per machine (0: as many as the limits need)")
	fs.IntVar(&s.OpenFiles, "open-files", 0, "a process' open-file limit to plan with (ulimit -n; 0: the one the records' holds recorded)")
	fs.StringVar(&o.format, "format", "text", "output: text, md or json")
	fs.StringVar(&o.part, "part", "", "the parts of the answer to print, comma-separated ("+strings.Join(advise.Parts(), ", ")+"); empty: all (json: always all)")
}

// Validate turns the flags given as text into the scenario and checks
// it: every rule and its message is advise.Scenario.Validate's, but for
// the flags' own syntax.
func (o *adviseOptions) Validate() error {
	if err := o.completeScenario(); err != nil {
		return &job.InputError{Msg: "advise: " + strings.TrimPrefix(err.Error(), "advise: ")}
	}
	return nil
}

// completeScenario sets the scenario's values given as text, checks the
// output's and then the scenario.
func (o *adviseOptions) completeScenario() error {
	s := &o.scenario
	var err error
	if s.MemoryBytes, err = parseSize("--memory", o.memory, 1); err != nil {
		return err
	}
	if s.DiskBytes, err = parseSize("--disk", o.disk, 1); err != nil {
		return err
	}
	switch o.memoryIn {
	case "container", "process":
		s.Container = o.memoryIn == "container"
	default:
		return fmt.Errorf("--memory-in %q: use container or process", o.memoryIn)
	}
	if s.ActiveShare, err = share(o.active); err != nil {
		return err
	}
	if err := o.checkRate(); err != nil {
		return err
	}
	if !slices.Contains([]string{"text", "md", "json"}, o.format) {
		return fmt.Errorf("--format %q: use text, md or json", o.format)
	}
	if o.part != "" {
		if o.partList, err = job.ParseList(o.part, advisePart); err != nil {
			return fmt.Errorf("--part %v", err)
		}
	}
	return s.Validate()
}

// checkRate refuses --active or --turns-per-hour given with a --rate
// above 0: the rate is then the scenario's, and they, which make one
// from the agents, would be ignored.
func (o *adviseOptions) checkRate() error {
	if o.scenario.Rate <= 0 || o.fs == nil {
		return nil
	}
	var given []string
	o.fs.Visit(func(f *flag.Flag) {
		if f.Name == "active" || f.Name == "turns-per-hour" {
			given = append(given, "--"+f.Name)
		}
	})
	if len(given) > 0 {
		return fmt.Errorf("%s with --rate %g: --rate gives the requests per second itself, and --active and --turns-per-hour, which make them from the agents, would be ignored: give one or the other", strings.Join(given, " and "), o.scenario.Rate)
	}
	return nil
}

// advisePart reads an item of --part: one of advise's parts.
func advisePart(p string) (string, error) {
	if !slices.Contains(advise.Parts(), p) {
		return "", fmt.Errorf("%q: use %s", p, strings.Join(advise.Parts(), ", "))
	}
	return p, nil
}

// share reads --active: "10%" or "0.1".
func share(s string) (float64, error) {
	v, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("--active %q: give a share such as 10%% or 0.1", s)
	}
	if pct {
		x /= 100
	}
	return x, nil
}

func adviseCmd(_ context.Context, args []string, o Options) error {
	var ao adviseOptions
	files, done, err := parseOptions("advise", fmt.Sprintf(adviseSynopsisFormat, defaultAdviseText()), &ao, args, o)
	if done || err != nil {
		return err
	}
	if err := ao.Validate(); err != nil {
		return err
	}
	if len(files) == 0 {
		files = defaultAdviseFiles()
	}
	recs, err := readAdviseRecords(files)
	if err != nil {
		return err
	}
	s := ao.scenario
	a, err := advise.FromRecords(s, recs, files)
	if err != nil {
		return &job.InputError{Msg: err.Error()}
	}
	switch ao.format {
	case "md":
		return a.Markdown(o.Stdout, ao.partList...)
	case "json":
		return a.JSON(o.Stdout)
	}
	return a.Text(o.Stdout, ao.partList...)
}

// readAdviseRecords reads every file; a missing default file says how
// to name files instead, and a file without a variant's record (an env
// record alone) is refused.
func readAdviseRecords(files []string) ([]results.Record, error) {
	var recs []results.Record
	for _, f := range files {
		if _, err := os.Stat(f); errors.Is(err, os.ErrNotExist) {
			return nil, &job.InputError{Msg: fmt.Sprintf("advise: %s does not exist: run advise from the repository's top directory for the committed record, or name results files (manydb advise [flags] FILE...)", filepath.Clean(f))}
		}
		r, err := readRecords("advise", f)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(r, func(x results.Record) bool { return x.Variant != "" }) {
			return nil, &job.InputError{Msg: fmt.Sprintf("advise: %s holds no variant's records (only a study's environment or end): name the results file of a study that ran", filepath.Clean(f))}
		}
		recs = append(recs, r...)
	}
	return recs, nil
}
