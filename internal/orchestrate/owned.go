package orchestrate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"manydb/internal/engine"
	"manydb/internal/job"
)

// made is a set of stores manydb made in a variant's directory: stores
// store directories laid out with fanout (job.StoreDir), each holding
// the files the engine makes there (files, engine.Family.FolderFiles;
// nil when not known, as for a test's variant: a store's folder is then
// the engine's as a whole).
type made struct {
	stores, fanout int
	files          []string
}

// part is what an entry of a variant's directory is to a removal.
type part int

const (
	partFolder part = iota // a fanout folder that holds stores
	partWhole              // manydb's: the manifest, the exports
	partStore              // a store's folder: the engine's files go
)

// ownership is what manydb made in a variant's directory: each entry by
// path relative to the directory, and the files of a store's folder.
type ownership struct {
	parts map[string]part
	files []string // nil: a store's folder goes whole
}

// owned returns what manydb made in the variant's directory dir: each
// store of sets and of the set dir's manifest records, the shared
// layout's one store, the manifest, the delete phase's exports, and the
// fanout folders that hold stores.
func owned(dir string, sets []made) ownership {
	if m, err := readManifest(dir); err == nil {
		sets = append(sets, made{stores: m.Stores, fanout: m.Fanout})
	}
	own := ownership{parts: map[string]part{ManifestFile: partWhole,
		filepath.Base(job.SharedDir(dir)): partStore, filepath.Base(job.ExportsDir(dir)): partWhole}}
	for _, s := range sets {
		if s.files != nil {
			own.files = s.files
		}
		for i := range s.stores {
			rel, err := filepath.Rel(dir, job.StoreDir(dir, i, s.fanout))
			if err != nil {
				continue
			}
			own.parts[rel] = partStore
			for d := filepath.Dir(rel); d != "."; d = filepath.Dir(d) {
				if _, ok := own.parts[d]; !ok {
					own.parts[d] = partFolder
				}
			}
		}
	}
	return own
}

// engines tells whether name, a file in a store's folder, is the
// engine's.
func (o ownership) engines(name string) bool { return engine.IsFolderFile(o.files, name) }

// sorted is a variant's directory sorted out: what manydb made there
// (whole), the folders that held it (outermost first: fanout folders, and
// stores' folders that hold files not the engine's), and what it did not
// make (left), each relative to the directory.
type sorted struct {
	whole, folders, left []string
}

// sortOut sorts out the entries of dir by own (owned), going into the
// fanout folders; a link or a file where a fanout folder should be is
// not manydb's.
func sortOut(dir string, own ownership) (sorted, error) {
	var s sorted
	err := s.add(dir, ".", own)
	return s, err
}

// add sorts out the entries of the folder rel inside dir.
func (s *sorted) add(dir, rel string, own ownership) error {
	entries, err := os.ReadDir(filepath.Join(dir, rel))
	if err != nil {
		return err
	}
	for _, e := range entries {
		r := filepath.Join(rel, e.Name())
		p, ok := own.parts[r]
		switch {
		case !ok || p == partFolder && !e.IsDir():
			s.left = append(s.left, r)
		case p == partWhole || !e.IsDir():
			s.whole = append(s.whole, r)
		case p == partStore:
			if err := s.addStore(dir, r, own); err != nil {
				return err
			}
		default:
			s.folders = append(s.folders, r)
			if err := s.add(dir, r, own); err != nil {
				return err
			}
		}
	}
	return nil
}

// addStore sorts out the store's folder rel inside dir: whole when it
// holds only the engine's files (or they are not known), otherwise a
// folder whose engine's files go and whose other entries are left.
func (s *sorted) addStore(dir, rel string, own ownership) error {
	if own.files == nil {
		s.whole = append(s.whole, rel)
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(dir, rel))
	if err != nil {
		return err
	}
	var mine, other []string
	for _, e := range entries {
		r := filepath.Join(rel, e.Name())
		if !e.IsDir() && own.engines(e.Name()) {
			mine = append(mine, r)
		} else {
			other = append(other, r)
		}
	}
	if len(other) == 0 {
		s.whole = append(s.whole, rel)
		return nil
	}
	s.folders = append(s.folders, rel)
	s.whole = append(s.whole, mine...)
	s.left = append(s.left, other...)
	return nil
}

// move moves what manydb made in dir into the new folder doomed, each
// under its path with "_" for the separators, then removes the folders
// that are empty once it is gone (those that hold what is left stay).
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
