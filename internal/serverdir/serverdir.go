// Package serverdir is the directory of a server manydb starts for a
// study (PostgreSQL, internal/pgserver; libSQL's server,
// internal/sqldserver): made with a marker file in it, so that only a
// directory manydb made is ever removed, and the last lines of the
// server's log, its own word on why it failed.
package serverdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrNotOurs is wrapped by Check's error when the server directory exists
// but was not made by manydb: it is left alone.
var ErrNotOurs = errors.New("not a server directory manydb made")

// Make makes the server's directory dir, mode 0700, with the file marker
// in it, owned by the server's user (cred; nil: manydb's own).
func Make(dir, marker string, cred *syscall.Credential) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("make the server's directory: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fmt.Errorf("make the server's directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, marker), []byte("made by manydb: removed when its study ends\n"), 0o644); err != nil {
		return fmt.Errorf("make the server's directory: %w", err)
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fmt.Errorf("give the server's directory to its user: %w", err)
		}
	}
	return nil
}

// Check reports whether dir exists, and fails (wrapping ErrNotOurs) when
// it exists without the file marker that Make writes.
func Check(dir, marker string) (exists bool, err error) {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if _, err := os.Stat(filepath.Join(dir, marker)); err != nil {
		return true, fmt.Errorf("%s exists: %w (no %s file in it); remove it or give another --root", dir, ErrNotOurs, marker)
	}
	return true, nil
}

// LastLines returns the last n non-empty lines of s, joined by " | ".
func LastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// FindUp returns dir/rel, or the same path under the nearest parent of
// dir that has it (a program a fetch script installed in the repository
// that holds dir), and whether there is one.
func FindUp(dir, rel string) (string, bool) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		path := filepath.Join(dir, rel)
		if _, err := os.Stat(path); err == nil {
			return path, true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", false
		}
		dir = up
	}
}
