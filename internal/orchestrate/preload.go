package orchestrate

import (
	"errors"
	"fmt"
	"strings"

	"manydb/internal/job"
	"manydb/internal/settings"
)

// resolveSettings finds the library of every allocator setting (LD_PRELOAD
// in its Env) and leaves out, with one line on the log each, the settings
// whose library is not installed: the line says how to install it. It is
// bad input when no setting is left.
func (c *Config) resolveSettings() error {
	dirs := c.LibDirs
	if dirs == nil {
		dirs = settings.LibDirs()
	}
	var kept []settings.Setting
	var skipped []string
	for _, set := range c.Settings {
		r, err := set.Resolve(dirs)
		if errors.Is(err, settings.ErrLibraryMissing) {
			fmt.Fprintf(c.Log, "skipping the setting %s: %v\n", set.Name, err)
			skipped = append(skipped, set.Name)
			continue
		}
		if err != nil {
			return err
		}
		kept = append(kept, r)
	}
	if len(kept) == 0 {
		return &job.InputError{Msg: fmt.Sprintf("no setting left to run (%s skipped: allocator library not installed, see above)", strings.Join(skipped, ", "))}
	}
	c.Settings = kept
	return nil
}
