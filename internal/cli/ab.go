package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"manydb/internal/abrun"
	"manydb/internal/abtest"
	"manydb/internal/job"
)

const abSynopsis = `manydb ab [flags] -- RUN-FLAGS

Tells whether B differs from A, figure by figure, from interleaved rounds:
each round runs the same study (manydb run RUN-FLAGS, the flags after --)
as side A and as side B, back to back, in fresh processes and a fresh
root, each after a sync (the other side's writes written back), A then
B in odd rounds and B then A in even ones. A side is a bin/
directory (--a, --b: two builds, e.g. from git worktree) with run flags
of its own (--a-args, --b-args: two variants, settings or options of one
build) and environment (--a-env, --b-env). Per figure and round it takes B/A; over the rounds, their
geometric mean with its 90 % and 95 % intervals, and a verdict against δ:
same (the 90 % interval within ±δ), different (the ratio past ±δ and
its p-value, adjusted by Holm's method for every figure judged with it,
under 0.05: the chance that any figure is called different when none is
stays under 5 %, so name the figures you care about with --figures) or
not yet known. Rounds go on until
every figure has a verdict, --max-rounds ran or the next round would
pass --max-time; what stayed unknown is named with about how many rounds
would decide it.

δ is --floor (3 %) unless --calibration names what an A/A comparison
(the same side twice, with --calibrate) measured on this machine: per
figure the floor or the A/A's own spread, whichever is wider; a figure
whose A/A sides came out different is "not decidable here".
Every round's results, log and figures stay in --dir (ab.json).
--judge DIR judges the rounds of an earlier comparison again by the
current rule (with --floor, --figures and --calibration; by default the
figures it judged), running nothing.

Example (a build against the one before it, 50 stores of sqlite_capi):
  manydb ab --a ../old/bin --b bin --dir results/ab-1 -- --engines sqlite_capi --stores 50 --runs 3 --hold 0`

// abOptions are ab's flags, as given.
type abOptions struct {
	a, b, aArgs, bArgs string
	aEnv, bEnv         string
	dir                string
	rounds, maxRounds  int
	maxTime            time.Duration
	floor              float64
	figures            string
	calibration        string
	calibrate          bool
	judge              string        // an earlier comparison's directory, to judge again
	runArgs            []string      // the run flags after --
	fs                 *flag.FlagSet // where AddFlags defined them: which were given
}

// AddFlags defines ab's flags on fs.
func (o *abOptions) AddFlags(fs *flag.FlagSet) {
	o.fs = fs
	fs.StringVar(&o.a, "a", "", "side A's bin/ directory (its manydb and workers); empty: this manydb's")
	fs.StringVar(&o.b, "b", "", "side B's bin/ directory; empty: this manydb's")
	fs.StringVar(&o.aArgs, "a-args", "", "manydb run flags for side A only, e.g. \"--engines sqlite\"")
	fs.StringVar(&o.bArgs, "b-args", "", "manydb run flags for side B only")
	fs.StringVar(&o.aEnv, "a-env", "", "NAME=value pairs (space-separated) added to side A's environment")
	fs.StringVar(&o.bEnv, "b-env", "", "NAME=value pairs added to side B's environment, e.g. "+job.TestOpenDelayEnv+"=20us (a known change, for tests of the method)")
	fs.StringVar(&o.dir, "dir", "", "a new directory for the rounds' roots, results and ab.json (default results/ab-TIME)")
	fs.IntVar(&o.rounds, "rounds", 6, "rounds before any verdict (at least 2)")
	fs.IntVar(&o.maxRounds, "max-rounds", 40, "rounds at most")
	fs.DurationVar(&o.maxTime, "max-time", 30*time.Minute, "time at most; 0: no bound")
	fs.Float64Var(&o.floor, "floor", abtest.DefaultFloor, "the smallest δ, a share (0.03: ±3 %)")
	fs.StringVar(&o.figures, "figures", "", "figures to judge, comma-separated (manydb tables --format csv names them); empty: every figure both sides measured")
	fs.StringVar(&o.calibration, "calibration", "", "an A/A comparison's calibration.json: δ per figure")
	fs.BoolVar(&o.calibrate, "calibrate", false, "this is an A/A comparison: write calibration.json (δ per figure) beside ab.json")
	fs.StringVar(&o.judge, "judge", "", "judge again the rounds of the comparison in this directory (its ab.json or ab.json.gz), running nothing")
}

// Validate checks that run flags are given, or with --judge that nothing
// else a comparison of new rounds uses is; abrun.Config.Validate checks
// the rest (config).
func (o *abOptions) Validate() error {
	if o.judge != "" {
		return o.validateJudge()
	}
	if len(o.runArgs) == 0 {
		return &job.InputError{Msg: "ab: give the study's run flags after --, e.g. manydb ab -- --engines sqlite_capi --stores 50"}
	}
	return nil
}

// config turns the flags and the run flags into the comparison's Config.
func (o abOptions) config(bin string, now time.Time) (abrun.Config, error) {
	c := abrun.Config{
		A:       abrun.Side{Name: "A", Manydb: filepath.Join(orDefault(o.a, bin), "manydb"), Args: strings.Fields(o.aArgs), Env: strings.Fields(o.aEnv)},
		B:       abrun.Side{Name: "B", Manydb: filepath.Join(orDefault(o.b, bin), "manydb"), Args: strings.Fields(o.bArgs), Env: strings.Fields(o.bEnv)},
		RunArgs: o.runArgs, Dir: o.dir, MinRounds: o.rounds, MaxRounds: o.maxRounds, MaxTime: o.maxTime, Floor: o.floor,
	}
	if c.Dir == "" {
		c.Dir = filepath.Join("results", "ab-"+now.UTC().Format("20060102T150405Z"))
	}
	if err := o.judging(&c); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// judgeFlags are the flags --judge uses; it refuses the others.
var judgeFlags = []string{"judge", "floor", "figures", "calibration"}

// validateJudge refuses, with --judge, run flags and every flag given
// but those --judge uses (sides, a directory for rounds, --calibrate,
// the bounds of the rounds): no round runs.
func (o *abOptions) validateJudge() error {
	var given []string
	if len(o.runArgs) > 0 {
		given = append(given, "run flags after --")
	}
	if o.fs != nil {
		o.fs.Visit(func(f *flag.Flag) {
			if !slices.Contains(judgeFlags, f.Name) {
				given = append(given, "--"+f.Name)
			}
		})
	}
	if len(given) > 0 {
		return &job.InputError{Msg: "ab: --judge runs nothing, so " + strings.Join(given, ", ") + " would be ignored: give --judge with --floor, --figures or --calibration only"}
	}
	return nil
}

// judging sets what a verdict uses from the flags: the figures and the
// calibration (the floor is set with the rest).
func (o abOptions) judging(c *abrun.Config) error {
	if o.figures != "" {
		figs, err := job.ParseList(o.figures, job.ParseName)
		if err != nil {
			return fmt.Errorf("%w: --figures %v", abrun.ErrConfig, err)
		}
		c.Figures = figs
	}
	if o.calibration != "" && o.calibrate {
		return fmt.Errorf("%w: --calibrate makes a calibration, --calibration uses one: give one of them", abrun.ErrConfig)
	}
	if o.calibration != "" {
		cals, err := abrun.ReadCalibration(o.calibration)
		if err != nil {
			return err
		}
		c.Calibration = cals
	}
	return nil
}

// orDefault is s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func abCmd(ctx context.Context, args []string, o Options) error {
	var opt abOptions
	runArgs, done, err := parseOptions("ab", abSynopsis, &opt, args, o)
	if done || err != nil {
		return err
	}
	opt.runArgs = runArgs
	if err := opt.Validate(); err != nil {
		return err
	}
	if opt.judge != "" {
		return judgeAgain(opt, o)
	}
	c, err := opt.config(o.BinDir, time.Now())
	if err != nil {
		return configError(err)
	}
	c.Progress = o.Stderr
	cmp, err := abrun.Run(ctx, c)
	if errors.Is(err, abrun.ErrConfig) {
		return configError(err)
	}
	if cmp != nil {
		if werr := abrun.WriteText(o.Stdout, cmp); werr != nil && err == nil {
			err = werr
		}
		if err == nil && opt.calibrate {
			err = abrun.WriteCalibration(filepath.Join(c.Dir, "calibration.json"), c.Floor, abrun.Calibrations(cmp, c.Floor))
		}
	}
	return err
}

// judgeAgain is ab --judge: the verdicts of an earlier comparison's
// rounds by the current rule.
func judgeAgain(opt abOptions, o Options) error {
	c := abrun.Config{Floor: opt.floor}
	if err := opt.judging(&c); err != nil {
		return configError(err)
	}
	cmp, err := abrun.Rejudge(opt.judge, c)
	if err != nil {
		return configError(err)
	}
	return abrun.WriteText(o.Stdout, cmp)
}

// configError is an error of ab's flags or input as the user sees it:
// one line, exit 2.
func configError(err error) error {
	return &job.InputError{Msg: "ab: " + strings.TrimPrefix(err.Error(), abrun.ErrConfig.Error()+": ")}
}
