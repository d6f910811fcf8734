package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/orchestrate"
)

// ExitCode is the process exit code for err: 0 for none, 2 for bad input
// (job.InputError), 3 when a study ran to its end but some of its
// phases failed (orchestrate.Failed: their records are in the results
// file), 1 for anything else.
func ExitCode(err error) int {
	var input *job.InputError
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

// newFlagSet returns a flag set for a subcommand. Its errors are not
// printed by the flag package: parse turns them into one-line InputErrors.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// commandOptions are a subcommand's flags, one struct per subcommand (as bbolt's
// cmd/bbolt/command has them): AddFlags defines them on the subcommand's
// flag set, and Validate checks them, with the arguments the subcommand
// stored, before anything runs.
type commandOptions interface {
	AddFlags(fs *flag.FlagSet)
	Validate() error
}

// parseOptions defines opts' flags for subcommand name and parses args
// into them, returning the arguments that are not flags. --help prints
// synopsis and the flags on stdout and returns done.
func parseOptions(name, synopsis string, opts commandOptions, args []string, o Options) (rest []string, done bool, err error) {
	fs := newFlagSet(name)
	opts.AddFlags(fs)
	if done, err := parse(fs, args, synopsis, o); done || err != nil {
		return nil, done, err
	}
	return fs.Args(), false, nil
}

// noArgs refuses arguments other than flags for subcommand name.
func noArgs(name string, args []string) error {
	if len(args) > 0 {
		return &job.InputError{Msg: fmt.Sprintf("%s: unexpected argument %q (flags only; see manydb %s --help)", name, args[0], name)}
	}
	return nil
}

// parse parses args. --help prints synopsis and flags on stdout and
// returns done; a bad flag becomes an InputError.
func parse(fs *flag.FlagSet, args []string, synopsis string, o Options) (done bool, err error) {
	err = parseAnywhere(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(o.Stdout, "usage: %s\n\nFlags:\n", strings.TrimSpace(synopsis))
		fs.SetOutput(o.Stdout)
		fs.PrintDefaults()
		return true, nil
	}
	if err != nil {
		return false, &job.InputError{Msg: fmt.Sprintf("%s: %v (see manydb %s --help)", fs.Name(), err, fs.Name())}
	}
	return false, nil
}

// parseAnywhere parses the flags in args wherever they stand among the
// other arguments, so that "report r.jsonl -o page.html" reads as
// "report -o page.html r.jsonl"; "--" ends the flags. fs.Args() are then
// the other arguments, in their order.
func parseAnywhere(fs *flag.FlagSet, args []string) error {
	var others []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			others = append(others, rest...)
			break
		}
		others, args = append(others, rest[0]), rest[1:]
	}
	return fs.Parse(append([]string{"--"}, others...))
}

// DefaultBinDir is the directory of the running manydb binary.
func DefaultBinDir() string {
	exe, err := os.Executable()
	if err != nil {
		return "bin"
	}
	return filepath.Dir(exe)
}
