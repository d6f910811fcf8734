package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/replica"
	"manydb/internal/sqldserver"
)

const replicaSynopsis = `manydb replica [flags]

Measures libSQL's server, sqld, with a read replica: a primary and a
replica that manydb starts in --root (127.0.0.1 only, every request with a
key made for the study; the replica follows the primary on a loopback
port), a namespace per agent on the primary with --notes notes each, and:
the catch-up of each namespace on the replica (from its first request there
until it returns all the notes and has followed the primary's log as far); for --appends appends committed on the
primary, each to an agent drawn at random, the delay until the replica
returns the note (a read of the replica repeated until it does); the
replica's memory per namespace it follows (/proc, before the first and
after the last); --reads reads of the newest notes on each server; and the
primary killed (SIGKILL): whether the replica still serves reads and what
an append to it answers. Every answer is checked. The samples go to --out
(JSON); the servers and their directories are removed at the end.

Example: manydb replica --agents 100 --appends 1000`

// replicaOptions are replica's flags, as given.
type replicaOptions struct {
	root, out              string
	agents, notes, textLen int
	appends, reads, recent int
	seed                   uint64
	wait                   time.Duration
}

// AddFlags defines replica's flags on fs.
func (o *replicaOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.root, "root", filepath.Join("data", "replica"), "a new directory for the two servers (removed at the end)")
	fs.StringVar(&o.out, "out", "", "the samples, as JSON (default results/replica-TIME.json)")
	fs.IntVar(&o.agents, "agents", 100, "agents, a namespace each on the primary")
	fs.IntVar(&o.notes, "notes", 100, "notes per agent")
	fs.IntVar(&o.textLen, "text-len", 300, "characters of a note's text")
	fs.IntVar(&o.appends, "appends", 1000, "appends timed until the replica returns them")
	fs.IntVar(&o.reads, "reads", 1000, "reads of the newest notes timed on each server")
	fs.IntVar(&o.recent, "recent", 20, "notes a read of the newest asks for")
	fs.Uint64Var(&o.seed, "seed", 1, "the draw of the agents appended to and read")
	fs.DurationVar(&o.wait, "wait", 10*time.Second, "how long a namespace's catch-up or an append may take to reach the replica, and an append to the replica without its primary may go unanswered, before the study fails or moves on")
}

// Validate checks every count and that --root and --out are new.
func (o *replicaOptions) Validate() error {
	for _, c := range []struct {
		name string
		n    int
	}{{"--agents", o.agents}, {"--notes", o.notes}, {"--appends", o.appends}, {"--reads", o.reads}, {"--recent", o.recent}} {
		if c.n < 1 {
			return &job.InputError{Msg: fmt.Sprintf("replica: %s %d: give at least 1", c.name, c.n)}
		}
	}
	if o.textLen < 32 {
		return &job.InputError{Msg: fmt.Sprintf("replica: --text-len %d: a note's text holds its agent and number, give at least 32", o.textLen)}
	}
	if o.wait <= 0 {
		return &job.InputError{Msg: "replica: --wait must be above 0"}
	}
	for _, p := range []string{o.root, o.out} {
		if _, err := os.Stat(p); p != "" && !errors.Is(err, os.ErrNotExist) {
			return &job.InputError{Msg: fmt.Sprintf("replica: %s exists: give a new path (manydb never writes over what it did not make)", p)}
		}
	}
	return nil
}

func replicaCmd(ctx context.Context, args []string, o Options) error {
	var opt replicaOptions
	rest, done, err := parseOptions("replica", replicaSynopsis, &opt, args, o)
	if done || err != nil {
		return err
	}
	if err := noArgs("replica", rest); err != nil {
		return err
	}
	if err := opt.Validate(); err != nil {
		return err
	}
	bin, ok := sqldserver.Find(o.BinDir)
	if !ok {
		return &job.InputError{Msg: "replica: " + sqldserver.ErrNotInstalled.Error()}
	}
	fam, _ := engine.Lookup("sqld") // the catalog's family of the sqld variant names its worker
	worker := filepath.Join(o.BinDir, fam.Binary)
	if _, err := os.Stat(worker); err != nil {
		return &job.InputError{Msg: fmt.Sprintf("replica: %s is not built (make build builds it)", worker)}
	}
	out := opt.out
	if out == "" {
		out = filepath.Join("results", "replica-"+time.Now().UTC().Format("20060102T150405Z")+".json")
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	defer os.Remove(opt.root) // made by the servers' start, new (Validate), and left empty by their stop
	res, err := replica.Exec(ctx, worker, replica.Config{Bin: bin, Root: opt.root, Agents: opt.agents, Notes: opt.notes, TextLen: opt.textLen,
		Appends: opt.appends, Reads: opt.reads, Recent: opt.recent, Seed: opt.seed, Wait: opt.wait}, o.Stderr)
	if err != nil {
		return fmt.Errorf("replica: %w", err)
	}
	if err := replica.WriteJSON(out, res); err != nil {
		return err
	}
	fmt.Fprintf(o.Stderr, "replica: the samples are in %s\n", out)
	return replica.WriteText(o.Stdout, res)
}
