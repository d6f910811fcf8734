package orchestrate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"manydb/internal/job"
)

// made is a set of stores manydb made in a variant's directory: stores
// store directories laid out with fanout (job.StoreDir).
type made struct{ stores, fanout int }

// owned returns what manydb made in the variant's directory dir, by path
// relative to dir: true for what goes whole (each store of sets and of
// the set dir's manifest records, the shared layout's one store, the
// manifest, the delete phase's exports), false for a fanout folder that
// holds stores. A store's directory is the engine's: its files go with it.
func owned(dir string, sets []made) map[string]bool {
	if m, err := readManifest(dir); err == nil {
		sets = append(sets, made{stores: m.Stores, fanout: m.Fanout})
	}
	own := map[string]bool{ManifestFile: true}
	for _, p := range []string{job.SharedDir(dir), job.ExportsDir(dir)} {
		own[filepath.Base(p)] = true
	}
	for _, s := range sets {
		for i := range s.stores {
			rel, err := filepath.Rel(dir, job.StoreDir(dir, i, s.fanout))
			if err != nil {
				continue
			}
			own[rel] = true
			for d := filepath.Dir(rel); d != "."; d = filepath.Dir(d) {
				if _, ok := own[d]; !ok {
					own[d] = false
				}
			}
		}
	}
	return own
}

// sorted is a variant's directory sorted out: what manydb made there
// (whole), the fanout folders that held it (outermost first), and what
// it did not make (left), each relative to the directory.
type sorted struct {
	whole, folders, left []string
}

// sortOut sorts out the entries of dir by own (owned), going into the
// fanout folders; a link or a file where a fanout folder should be is
// not manydb's.
func sortOut(dir string, own map[string]bool) (sorted, error) {
	var s sorted
	err := s.add(dir, ".", own)
	return s, err
}

// add sorts out the entries of the folder rel inside dir.
func (s *sorted) add(dir, rel string, own map[string]bool) error {
	entries, err := os.ReadDir(filepath.Join(dir, rel))
	if err != nil {
		return err
	}
	for _, e := range entries {
		r := filepath.Join(rel, e.Name())
		whole, ok := own[r]
		switch {
		case !ok || !whole && !e.IsDir():
			s.left = append(s.left, r)
		case whole:
			s.whole = append(s.whole, r)
		default:
			s.folders = append(s.folders, r)
			if err := s.add(dir, r, own); err != nil {
				return err
			}
		}
	}
	return nil
}

// move moves what manydb made in dir into the new folder doomed, each
// under its path with "_" for the separators, then removes the fanout
// folders that are empty once it is gone (those that hold what is left
// stay).
func (s sorted) move(dir, doomed string) error {
	if err := os.Mkdir(doomed, 0o755); err != nil {
		return err
	}
	for _, r := range s.whole {
		to := filepath.Join(doomed, strings.ReplaceAll(r, string(filepath.Separator), "_"))
		if err := os.Rename(filepath.Join(dir, r), to); err != nil {
			return err
		}
	}
	for _, r := range slices.Backward(s.folders) {
		err := os.Remove(filepath.Join(dir, r))
		if err != nil && !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
			return err
		}
	}
	return nil
}

// leftLine is the console's line on what a removal of the stores in dir
// left there (left: relative to dir), naming up to five of them.
func leftLine(dir string, left []string) string {
	names := left
	more := ""
	if len(left) > 5 {
		names, more = left[:5], fmt.Sprintf(" and %d more", len(left)-5)
	}
	return fmt.Sprintf("left in %s what manydb did not make there: %s%s\n", dir, strings.Join(names, ", "), more)
}
