package orchestrate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// claim is what a command takes before it writes anything: the lock on its
// results file and on each data root, and a note of every file and folder
// it created for them. When a later lock is refused, undo removes exactly
// what the claim created, so a refused command leaves nothing behind.
type claim struct {
	locks []*Lock
	made  []string // paths created, in the order they were made
}

// lockOut locks the results file out, creating it (empty) if needed.
func (cl *claim) lockOut(out string) error {
	_, statErr := os.Lstat(out)
	lock, err := LockFile(out, "results file "+out)
	if err != nil {
		return err
	}
	if errors.Is(statErr, os.ErrNotExist) {
		cl.made = append(cl.made, out)
	}
	cl.locks = append(cl.locks, lock)
	return nil
}

// lockRoot makes root a data root (PrepareRoot) and locks its marker,
// noting the folders and the marker it created.
func (cl *claim) lockRoot(root, flag string) error {
	made := missingDirs(root)
	marker := filepath.Join(root, MarkerFile)
	if _, err := os.Lstat(marker); errors.Is(err, os.ErrNotExist) {
		made = append(made, marker)
	}
	if err := PrepareRoot(root, flag); err != nil {
		cl.made = append(cl.made, made...) // MkdirAll may have made some
		return err
	}
	cl.made = append(cl.made, made...)
	lock, err := LockFile(marker, "data root "+root)
	if err != nil {
		return err
	}
	cl.locks = append(cl.locks, lock)
	return nil
}

// missingDirs returns the folders that os.MkdirAll(dir) would create,
// outermost first.
func missingDirs(dir string) []string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	var dirs []string
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		dirs = append(dirs, d)
	}
	slices.Reverse(dirs)
	return dirs
}

// release releases the locks, the last taken first.
func (cl *claim) release() {
	for _, l := range slices.Backward(cl.locks) {
		l.Release()
	}
	cl.locks = nil
}

// undo releases the locks and removes what the claim created, the last
// made first: the marker it wrote, a file only while it is still empty, a
// folder only while it is empty (os.Remove), so nothing written since is
// lost. It returns an
// error naming what it could not remove.
func (cl *claim) undo() error {
	cl.release()
	var errs []error
	for _, p := range slices.Backward(cl.made) {
		st, err := os.Lstat(p)
		if err != nil {
			continue // not made after all, or gone
		}
		if st.Mode().IsRegular() && st.Size() > 0 && filepath.Base(p) != MarkerFile {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove %s: %w", p, err))
		}
	}
	cl.made = nil
	return errors.Join(errs...)
}

// undoAfter undoes cl after err refused the command, and returns err, with
// what could not be undone joined to it.
func undoAfter(err error, cl *claim) error {
	if uerr := cl.undo(); uerr != nil {
		return errors.Join(err, uerr)
	}
	return err
}
