package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/orchestrate"
)

const enginesSynopsis = `manydb engines [--ids] [--bin DIR]

Lists every variant in manydb's catalog: its worker binary, whether the
engine allocates with glibc's malloc (so allocator settings apply), whether
it is built here (the worker asked with --list), and what it needs.
Exits 1 when a worker and the catalog disagree (a variant without an
adapter, an adapter answering another id).

--ids prints only the ids of the variants built here, one per line.`

func enginesCmd(ctx context.Context, args []string, o Options) error {
	fs := newFlagSet("engines")
	ids := fs.Bool("ids", false, "print only the ids of the variants built here, one per line")
	binDir := fs.String("bin", o.BinDir, "directory of the worker binaries")
	if done, err := parse(fs, args, enginesSynopsis, o); done || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &job.InputError{Msg: fmt.Sprintf("engines: unexpected argument %q (see manydb engines --help)", fs.Arg(0))}
	}
	statuses, problems := orchestrate.ListEngines(ctx, o.Catalog, *binDir, o.Environ)
	if *ids {
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
