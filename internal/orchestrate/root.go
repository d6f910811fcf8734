package orchestrate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// MarkerFile marks a data root as manydb's. manydb writes stores only into
// a root that carries it and removes only what lies inside such a root.
const MarkerFile = ".manydb-root"

const markerText = "This directory is a manydb data root: manydb created it and may delete\n" +
	"the stores inside it. Remove this file to keep manydb from touching it.\n"

// PrepareRoot makes root ready for stores: it creates the directory and its
// marker if needed. A directory that exists, is not empty and carries no
// marker belongs to someone else and is refused.
func PrepareRoot(root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return &InputError{fmt.Sprintf("data root %s cannot be created (%v): choose another --root", root, errors.Unwrap(err))}
	}
	marker := filepath.Join(root, MarkerFile)
	if _, err := os.Stat(marker); err == nil {
		return checkWritable(root)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return &InputError{fmt.Sprintf("data root %s cannot be read (%v): choose another --root", root, err)}
	}
	if len(entries) > 0 {
		return &InputError{fmt.Sprintf("data root %s is not empty and has no %s marker, so it is not manydb's: choose an empty or new directory for --root", root, MarkerFile)}
	}
	if err := os.WriteFile(marker, []byte(markerText), 0o644); err != nil {
		return &InputError{fmt.Sprintf("data root %s is not writable (%v): choose another --root", root, errors.Unwrap(err))}
	}
	return nil
}

func checkWritable(root string) error {
	f, err := os.CreateTemp(root, ".write-test-*")
	if err != nil {
		return &InputError{fmt.Sprintf("data root %s is not writable (%v): choose another --root", root, errors.Unwrap(err))}
	}
	f.Close()
	return os.Remove(f.Name())
}

// RemoveInRoot removes dir, which must lie inside root, and only if root
// carries manydb's marker file.
func RemoveInRoot(root, dir string) error {
	if _, err := os.Stat(filepath.Join(root, MarkerFile)); err != nil {
		return fmt.Errorf("refusing to remove %s: %s has no %s marker, so manydb did not create it", dir, root, MarkerFile)
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." || rel == ".." || filepath.IsAbs(rel) || len(rel) >= 3 && rel[:3] == ".."+string(filepath.Separator) {
		return fmt.Errorf("refusing to remove %s: it is not inside the data root %s", dir, root)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove stores: %w", err)
	}
	return nil
}
