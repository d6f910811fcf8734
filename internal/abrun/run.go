package abrun

import (
	"context"
	"syscall"
	"time"
)

// Run runs c's rounds with the real manydb binaries and returns the
// comparison (also written to Dir/ab.json).
func Run(ctx context.Context, c Config) (*Comparison, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	studies := &studyRunner{dir: c.Dir, runArgs: c.RunArgs, settle: syscall.Sync}
	if err := studies.makeDir(); err != nil {
		return nil, err
	}
	cmp, err := runRounds(ctx, c, studies.measure, time.Now)
	if cmp != nil {
		if werr := writeRecord(c, cmp); werr != nil && err == nil {
			err = werr
		}
	}
	return cmp, err
}
