// Package cli is manydb's command line: it parses the subcommands' flags
// into typed configurations and calls the packages that do the work. Its
// subcommands, each but help in a file of its own, as the table in
// commands lists them (a test keeps this list equal to it):
//
//	manydb run [flags]          run a study, append its records, print its tables
//	manydb serve [flags]        serve agent turns from a pool of open stores: latency and memory per pool size
//	manydb tables FILE...       print the tables of results files (--format md|overview|csv|json|gobench)
//	manydb compare OLD NEW      compare two results files: change and significance
//	manydb ab [flags] -- RUN    A against B in interleaved rounds: same, different or not yet known per figure
//	manydb sweep [flags] -- RUN a fixed total of notes divided among more and more agents: shared index against a store per agent
//	manydb replica [flags]      libSQL's server with a read replica: the delay from a commit to the replica, its memory, reads
//	manydb advise [flags]       answer a scenario from results files: which variants qualify, at which pool, why not
//	manydb report -o F FILE...  write one self-contained HTML page with tables and charts
//	manydb profile --engine V   time each step of creating a store, on disk and tmpfs, and count its syncs
//	manydb env [--root DIR]     print the environment a study records
//	manydb engines              list every variant, its worker and whether it is built here
//	manydb help                 print this text
//
// Every subcommand writes to injected writers, so tests can run it whole.
package cli

import (
	"context"
	"fmt"
	"strings"

	"manydb/internal/job"
)

// command is one subcommand: its name, what follows the name on its usage
// line, one line saying what it does, and the function that runs it.
type command struct {
	name    string
	args    string
	summary string
	run     func(ctx context.Context, args []string, o Options) error
}

// commands is the table of manydb's subcommands, in the order the usage
// text lists them. The usage text, the dispatch and the package doc (a
// test compares them) come from it.
func commands() []command {
	return []command{
		{"run", "[flags]", "run a study, append its records, print its tables", runCmd},
		{"serve", "[flags]", "serve agent turns from a pool of open stores: latency and memory per pool size", serveCmd},
		{"tables", "FILE...", "print the tables of results files (--format md|overview|csv|json|gobench)", tablesCmd},
		{"compare", "OLD NEW", "compare two results files: change and significance", compareCmd},
		{"ab", "[flags] -- RUN", "A against B in interleaved rounds: same, different or not yet known per figure", abCmd},
		{"sweep", "[flags] -- RUN", "a fixed total of notes divided among more and more agents: shared index against a store per agent", sweepCmd},
		{"replica", "[flags]", "libSQL's server with a read replica: the delay from a commit to the replica, its memory, reads", replicaCmd},
		{"advise", "[flags]", "answer a scenario from results files: which variants qualify, at which pool, why not", adviseCmd},
		{"report", "-o F FILE...", "write one self-contained HTML page with tables and charts", reportCmd},
		{"profile", "--engine V", "time each step of creating a store, on disk and tmpfs, and count its syncs", profileCmd},
		{"env", "[--root DIR]", "print the environment a study records", envCmd},
		{"engines", "", "list every variant, its worker and whether it is built here", enginesCmd},
		{"help", "", "print this text", helpCmd},
	}
}

// commandLines returns a line per subcommand: its usage and, in a column
// after the longest usage, its summary.
func commandLines() []string {
	cmds := commands()
	usages := make([]string, len(cmds))
	width := 0
	for i, c := range cmds {
		usages[i] = strings.TrimSpace("manydb " + c.name + " " + c.args)
		width = max(width, len(usages[i]))
	}
	lines := make([]string, len(cmds))
	for i, c := range cmds {
		lines[i] = fmt.Sprintf("%-*s %s", width, usages[i], c.summary)
	}
	return lines
}

const usageIntro = `manydb measures what one small embedded database ("store") costs: to
create, open, query, close, keep open and keep on disk, with thousands of
stores per engine.

Usage:
`

const usageEnd = `
Run 'manydb COMMAND --help' for a command's flags.

Exit codes: 0 done; 1 error; 2 bad command line or input (nothing was
measured or changed); 3 the study ran to its end but some phases failed
(their records, with the worker's command line and stderr, are in the
results file).
`

// usage is the text manydb help prints.
func usage() string {
	var b strings.Builder
	b.WriteString(usageIntro)
	for _, l := range commandLines() {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString(usageEnd)
	return b.String()
}

func helpCmd(_ context.Context, _ []string, o Options) error {
	fmt.Fprint(o.Stdout, usage())
	return nil
}

// Run runs the manydb command line args (without the program name).
func Run(ctx context.Context, args []string, o Options) error {
	if len(args) == 0 {
		fmt.Fprint(o.Stderr, usage())
		return &job.InputError{Msg: "no command given"}
	}
	name := args[0]
	if name == "-h" || name == "--help" || name == "-help" {
		name = "help"
	}
	var names []string
	for _, c := range commands() {
		if c.name == name {
			return c.run(ctx, args[1:], o)
		}
		if c.name != "help" {
			names = append(names, c.name)
		}
	}
	last := len(names) - 1
	return &job.InputError{Msg: fmt.Sprintf("unknown command %q: use %s or %s (manydb help)", args[0], strings.Join(names[:last], ", "), names[last])}
}
