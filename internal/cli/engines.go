package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"manydb/internal/engine"
	"manydb/internal/orchestrate"
)

const enginesSynopsis = `manydb engines [--ids] [--bin DIR]

Lists every variant in manydb's catalog: its worker binary, whether the
engine allocates with glibc's malloc (so allocator settings apply), whether
it is built here (the worker asked with --list), and what it needs.
Exits 1 when a worker and the catalog disagree (a variant without an
adapter, an adapter answering another id).

--ids prints only the ids of the variants built here, one per line.`

// enginesOptions are the flags of manydb engines.
type enginesOptions struct {
	ids    bool
	binDir string
}

// AddFlags defines engines' flags in fs.
func (opt *enginesOptions) AddFlags(fs *flag.FlagSet) {
	fs.BoolVar(&opt.ids, "ids", false, "print only the ids of the variants built here, one per line")
	fs.StringVar(&opt.binDir, "bin", opt.binDir, "directory of the worker binaries")
}

// Validate: every value of engines' flags is taken.
func (opt *enginesOptions) Validate() error { return nil }

func enginesCmd(ctx context.Context, args []string, o Options) error {
	opt := enginesOptions{binDir: o.BinDir}
	rest, done, err := parseOptions("engines", enginesSynopsis, &opt, args, o)
	if done || err != nil {
		return err
	}
	if err := noArgs("engines", rest); err != nil {
		return err
	}
	if err := opt.Validate(); err != nil {
		return err
	}
	statuses, problems := orchestrate.ListEngines(ctx, o.Catalog, opt.binDir, o.Environ)
	if opt.ids {
		for _, s := range statuses {
			if s.State == orchestrate.EngineBuilt {
				fmt.Fprintln(o.Stdout, s.Variant)
			}
		}
	} else {
		tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "VARIANT\tWORKER\tGLIBC MALLOC\tHERE\tNEEDS")
		for _, s := range statuses {
			here := s.State
			if s.State == orchestrate.EngineBroken {
				here += ": " + s.Detail
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Variant, s.Family.Binary, yesNo(s.Family.Cgo), here, s.Family.Needs)
		}
		tw.Flush()
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w:\n  %s", engine.ErrCatalogMismatch, strings.Join(problems, "\n  "))
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
