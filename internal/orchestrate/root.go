package orchestrate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"manydb/internal/job"
	"manydb/internal/measure"
)

// MarkerFile marks a data root as manydb's. manydb writes stores only into
// a root that carries it and removes only what lies inside such a root.
const MarkerFile = ".manydb-root"

// TrashDir is the folder inside a data root where stores go to be
// removed: a removal first renames them there (atomic), then deletes them,
// and every run empties it, so stores whose removal was interrupted are
// removed by the next run.
const TrashDir = ".manydb-trash"

const markerText = "This directory is a manydb data root: manydb created it and may delete\n" +
	"the stores inside it. Remove this file to keep manydb from touching it.\n"

// CheckRoot checks, without changing anything, that root (given with the
// command line flag flag) can be a data root: an existing directory that carries the marker or is empty, or a
// path whose nearest existing parent is a writable directory.
func CheckRoot(root, flag string) error {
	st, err := os.Stat(root)
	switch {
	case errors.Is(err, os.ErrNotExist):
		parent := existingAncestor(root)
		if pst, err := os.Stat(parent); err != nil || !pst.IsDir() {
			return &job.InputError{Msg: fmt.Sprintf("data root %s cannot be created: %s is not a directory; choose another "+flag, root, parent)}
		}
		if err := unix.Access(parent, unix.W_OK); err != nil {
			return &job.InputError{Msg: fmt.Sprintf("data root %s cannot be created: %s is not writable (%v); choose another "+flag, root, parent, err)}
		}
		return nil
	case err != nil:
		return &job.InputError{Msg: fmt.Sprintf("data root %s cannot be read (%v): choose another "+flag, root, err)}
	case !st.IsDir():
		return &job.InputError{Msg: fmt.Sprintf("data root %s is a file, not a directory: choose another "+flag, root)}
	}
	if _, err := os.Stat(filepath.Join(root, MarkerFile)); err == nil {
		if err := unix.Access(root, unix.W_OK); err != nil {
			return &job.InputError{Msg: fmt.Sprintf("data root %s is not writable (%v): choose another "+flag, root, err)}
		}
		return nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return &job.InputError{Msg: fmt.Sprintf("data root %s cannot be read (%v): choose another "+flag, root, err)}
	}
	if len(entries) > 0 {
		return &job.InputError{Msg: fmt.Sprintf("data root %s is not empty and has no %s marker, so it is not manydb's: choose an empty or new directory for %s", root, MarkerFile, flag)}
	}
	return nil
}

// existingAncestor returns path itself or its nearest parent that exists.
func existingAncestor(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	for {
		if _, err := os.Lstat(abs); err == nil || filepath.Dir(abs) == abs {
			return abs
		}
		abs = filepath.Dir(abs)
	}
}

// PrepareRoot makes root ready for stores, after CheckRoot: it creates the
// directory and its marker if needed. A directory that exists, is not
// empty and carries no marker belongs to someone else and is refused.
func PrepareRoot(root, flag string) error {
	if err := CheckRoot(root, flag); err != nil {
		return err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return &job.InputError{Msg: fmt.Sprintf("data root %s cannot be created (%v): choose another "+flag, root, errors.Unwrap(err))}
	}
	marker := filepath.Join(root, MarkerFile)
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	if err := os.WriteFile(marker, []byte(markerText), 0o644); err != nil {
		return &job.InputError{Msg: fmt.Sprintf("data root %s is not writable (%v): choose another "+flag, root, errors.Unwrap(err))}
	}
	return nil
}

// Lock is an exclusive lock on a file (flock), held until Release.
type Lock struct{ f *os.File }

// LockFile takes an exclusive lock on path, creating the file if needed.
// When another process holds it, the job.InputError says that what (e.g.
// "data root data/") is in use by that process.
func LockFile(path, what string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, &job.InputError{Msg: fmt.Sprintf("%s cannot be opened (%v)", what, errors.Unwrap(err))}
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		who := "another process"
		if pid, cmd, ok := measure.FlockHolder(path); ok {
			who = fmt.Sprintf("manydb process %d (%s)", pid, cmd)
		}
		return nil, &job.InputError{Msg: fmt.Sprintf("%s is in use by %s: wait for it to end, or choose another", what, who)}
	}
	return &Lock{f: f}, nil
}

// Release releases the lock.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		l.f.Close()
	}
}

// RemoveInRoot removes what manydb made in dir, which must lie inside
// root, and only if root carries manydb's marker file (moveToTrash): it
// moves that into the root's trash, then deletes it there. It returns what
// it left in dir, relative to dir: what manydb did not make. A dir that
// does not exist is not an error.
func RemoveInRoot(root, dir string, sets ...made) (left []string, err error) {
	doomed, left, err := moveToTrash(root, dir, sets...)
	if err != nil || doomed == "" {
		return left, err
	}
	if err := removeAll(doomed); err != nil {
		return left, fmt.Errorf("remove stores: %w", err)
	}
	return left, nil
}

// moveToTrash moves what manydb made in dir, which must lie inside the
// marked root (sets' stores and what dir's manifest records, owned), into
// the root's trash under a name of its own, and returns that path ("" when
// dir does not exist) and what it left in dir, relative to dir. When dir
// holds nothing else, dir itself goes, in one rename; otherwise each thing
// manydb made goes on its own, and its fanout folders once they are empty.
func moveToTrash(root, dir string, sets ...made) (doomed string, left []string, err error) {
	if _, err := os.Stat(filepath.Join(root, MarkerFile)); err != nil {
		return "", nil, fmt.Errorf("refusing to remove %s: %s has no %s marker, so manydb did not create it", dir, root, MarkerFile)
	}
	if !inside(root, dir) {
		return "", nil, fmt.Errorf("refusing to remove %s: it is not inside the data root %s", dir, root)
	}
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return "", nil, nil
	}
	sorted, err := sortOut(dir, owned(dir, sets))
	if err != nil {
		return "", nil, fmt.Errorf("remove stores: %w", err)
	}
	trash := filepath.Join(root, TrashDir)
	if err := os.MkdirAll(trash, 0o755); err != nil {
		return "", nil, fmt.Errorf("remove stores: %w", err)
	}
	name := strings.ReplaceAll(filepath.Clean(strings.TrimPrefix(dir, root)), string(filepath.Separator), "_")
	doomed = filepath.Join(trash, fmt.Sprintf("%s-%d", strings.Trim(name, "_"), time.Now().UnixNano()))
	if len(sorted.left) == 0 {
		if err := os.Rename(dir, doomed); err != nil {
			return "", nil, fmt.Errorf("remove stores: %w", err)
		}
		return doomed, nil, nil
	}
	if err := sorted.move(dir, doomed); err != nil {
		return "", sorted.left, fmt.Errorf("remove stores: %w", err)
	}
	return doomed, sorted.left, nil
}

// removeWorkers is how many of a directory's entries removeAll deletes at
// once: unlinking mostly waits on the filesystem, so several at a time
// finish sooner even on 2 cores (docs/method.md, "Data root").
const removeWorkers = 16

// removeAll deletes dir and everything below it, as os.RemoveAll does,
// with dir's entries deleted by removeWorkers goroutines at once. It
// returns the first error, after every goroutine has stopped.
func removeAll(dir string) error {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		// Missing (RemoveAll returns nil), a file, or a symbolic link,
		// which is removed as a link: what it points to is not manydb's.
		return os.RemoveAll(dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return os.RemoveAll(dir)
	}
	paths := make(chan string)
	errs := make(chan error, removeWorkers)
	for range removeWorkers {
		go func() {
			var first error
			for p := range paths {
				if err := os.RemoveAll(p); err != nil && first == nil {
					first = err
				}
			}
			errs <- first
		}()
	}
	for _, e := range entries {
		paths <- filepath.Join(dir, e.Name())
	}
	close(paths)
	var first error
	for range removeWorkers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	return os.RemoveAll(dir)
}

// EmptyTrash deletes what an interrupted removal left in root's trash.
func EmptyTrash(root string) error {
	trash := filepath.Join(root, TrashDir)
	if fi, err := os.Lstat(trash); err == nil && !fi.IsDir() {
		// Not the folder manydb made (a link, say): removed as it is,
		// never followed.
		if err := os.Remove(trash); err != nil {
			return fmt.Errorf("empty %s: %w", trash, err)
		}
		return nil
	}
	entries, err := os.ReadDir(trash)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("empty %s: %w", trash, err)
	}
	for _, e := range entries {
		if err := removeAll(filepath.Join(trash, e.Name())); err != nil {
			return fmt.Errorf("empty %s: %w", trash, err)
		}
	}
	return nil
}

// inside tells whether path lies strictly inside dir, after making both
// absolute and resolving the symbolic links of their existing parts.
func inside(dir, path string) bool {
	d, p := resolve(dir), resolve(path)
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != "." && rel != ".." && !filepath.IsAbs(rel) && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolve returns path absolute, with the symbolic links of its longest
// existing prefix resolved.
func resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	base := existingAncestor(abs)
	real, err := filepath.EvalSymlinks(base)
	if err != nil {
		return abs
	}
	rest, _ := filepath.Rel(base, abs)
	return filepath.Join(real, rest)
}
