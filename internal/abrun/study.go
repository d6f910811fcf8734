package abrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"manydb/internal/report"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// studyRunner runs one side of a round as a manydb run of its own.
type studyRunner struct {
	dir     string
	runArgs []string
	// settle runs before each side: syscall.Sync, so that the dirty pages
	// of the side before are written back before this side's timed spans
	// (an fsync in them would wait for that writeback).
	settle func()
}

// makeDir makes the comparison's directory; one that exists is refused,
// so that nothing of an earlier comparison is mixed in or overwritten.
func (s *studyRunner) makeDir() error {
	if err := os.Mkdir(s.dir, 0o755); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%w: %s exists: name a new directory for the rounds", ErrConfig, s.dir)
		}
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return nil
}

// paths are where round n's side keeps its root, results and log.
func (s *studyRunner) paths(n int, side Side) (root, out, log string) {
	base := filepath.Join(s.dir, fmt.Sprintf("round-%03d-%s", n, side.Name))
	return base, base + ".jsonl", base + ".log"
}

// measure runs round n's study of side and returns its figures.
func (s *studyRunner) measure(ctx context.Context, n int, side Side) (Values, error) {
	root, out, logName := s.paths(n, side)
	log, err := os.Create(logName)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	s.settle()
	args := slices.Concat([]string{"run"}, s.runArgs, side.Args, []string{"--root", root, "--out", out})
	cmd := exec.CommandContext(ctx, side.Manydb, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), side.Env...)
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %v: %w (its output: %s)", side.Manydb, args, err, logName)
	}
	recs, err := results.ReadFile(out)
	if err != nil {
		return nil, err
	}
	return studyValues(recs), nil
}

// studyValues is one study's value of each figure of each column: a
// figure pooled over the runs' samples (a p99 of every store of every
// run) as the tables compute it, another the median of its runs' values
// (a single-valued figure has one).
func studyValues(recs []results.Record) Values {
	out := Values{}
	for _, f := range report.CollectFigures(recs) {
		for name, vals := range f.Values {
			v, ok := f.Pooled[name]
			if !ok {
				v = stats.Median(vals)
			}
			out[Key{Column: f.Key(), Figure: name}] = v
		}
	}
	return out
}
