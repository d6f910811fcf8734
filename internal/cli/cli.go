// Package cli is manydb's command line: it parses the subcommands' flags
// into typed configurations and calls the packages that do the work.
//
//	manydb run     run a study and print its tables
//	manydb tables  print the tables of results files
//	manydb compare compare two results files with a significance test
//	manydb report  write an HTML page with tables and charts
//	manydb profile where the create time of a store goes, step by step
//	manydb env     print the environment a study would record
//	manydb engines list the variants and whether each is built here
//
// Every subcommand writes to injected writers, so tests can run it whole.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"manydb/internal/engine"
	"manydb/internal/orchestrate"
)

// ExitCode is the process exit code for err: 0 for none, 2 for bad input
// (orchestrate.InputError), 3 when a study ran to its end but some of its
// phases failed (orchestrate.Failed: their records are in the results
// file), 1 for anything else.
func ExitCode(err error) int {
	var input *orchestrate.InputError
	var failed *orchestrate.Failed
	switch {
	case err == nil:
		return 0
	case errors.As(err, &input):
		return 2
	case errors.As(err, &failed):
		return 3
	}
	return 1
}

// Options are what every subcommand gets besides its arguments.
type Options struct {
	Stdout, Stderr io.Writer
	// BinDir is where the worker binaries are (beside the manydb binary).
	BinDir string
	// Version is manydb's own version (set at build time).
	Version string
	// Environ is the environment passed to workers.
	Environ []string
	// Catalog is the list of variants and their workers; nil means
	// engine.Catalog(). Tests give a wrong one to see it refused.
	Catalog []engine.Family
}

const usage = `manydb measures what one small embedded database ("store") costs: to
create, open, query, close, keep open and keep on disk, with thousands of
stores per engine.

Usage:
  manydb run [flags]        run a study, append its records, print its tables
  manydb tables FILE...     print the tables of one or more results files
                            (--format md|csv|json|gobench)
  manydb compare OLD NEW    compare two results files: change and significance
  manydb report -o F FILE.. one self-contained HTML page with tables and charts
  manydb serve [flags]      agent traffic on a pool of open stores: latency and memory per pool size
  manydb profile --engine V where the create time of a store goes (disk vs. tmpfs, syncs)
  manydb env [--root DIR]   print the environment a study records
  manydb engines            list every variant, its worker and whether it is built here
  manydb help               this text

Run 'manydb COMMAND --help' for a command's flags.

Exit codes: 0 done; 1 error; 2 bad command line or input (nothing was
measured or changed); 3 the study ran to its end but some phases failed
(their records, with the worker's command line and stderr, are in the
results file).
`

// Run runs the manydb command line args (without the program name).
func Run(ctx context.Context, args []string, o Options) error {
	if len(args) == 0 {
		fmt.Fprint(o.Stderr, usage)
		return &orchestrate.InputError{Msg: "no command given"}
	}
	switch args[0] {
	case "run":
		return runCmd(ctx, args[1:], o)
	case "tables":
		return tablesCmd(args[1:], o)
	case "compare":
		return compareCmd(args[1:], o)
	case "serve":
		return serveCmd(ctx, args[1:], o)
	case "report":
		return reportCmd(args[1:], o)
	case "profile":
		return profileCmd(ctx, args[1:], o)
	case "env":
		return envCmd(ctx, args[1:], o)
	case "engines":
		return enginesCmd(ctx, args[1:], o)
	case "help", "-h", "--help", "-help":
		fmt.Fprint(o.Stdout, usage)
		return nil
	}
	return &orchestrate.InputError{Msg: fmt.Sprintf("unknown command %q: use run, serve, tables, compare, report, profile, env or engines (manydb help)", args[0])}
}

// newFlagSet returns a flag set for a subcommand. Its errors are not
// printed by the flag package: parse turns them into one-line InputErrors.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses args. --help prints synopsis and flags on stdout and
// returns done; a bad flag becomes an InputError.
func parse(fs *flag.FlagSet, args []string, synopsis string, o Options) (done bool, err error) {
	err = fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(o.Stdout, "usage: %s\n\nFlags:\n", strings.TrimSpace(synopsis))
		fs.SetOutput(o.Stdout)
		fs.PrintDefaults()
		return true, nil
	}
	if err != nil {
		return false, &orchestrate.InputError{Msg: fmt.Sprintf("%s: %v (see manydb %s --help)", fs.Name(), err, fs.Name())}
	}
	return false, nil
}

// DefaultBinDir is the directory of the running manydb binary.
func DefaultBinDir() string {
	exe, err := os.Executable()
	if err != nil {
		return "bin"
	}
	return filepath.Dir(exe)
}
