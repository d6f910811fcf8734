package orchestrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"

	"manydb/internal/workload"
)

// ManifestFile, in a variant's store directory, says what its stores were
// created for. It is written marked creating before the create phase
// makes them, so that a removal knows them even then, and unmarked when
// the create has made every store: a store set without it, or marked
// creating, is incomplete.
const ManifestFile = "manifest.json"

// Manifest is what a variant's store set was created for. A study reuses
// the stores only when the manifest matches it exactly.
type Manifest struct {
	Study    string            `json:"study"`
	Variant  string            `json:"variant"`
	Setting  string            `json:"setting"`
	Workload workload.Spec     `json:"workload"`
	Stores   int               `json:"stores"`
	Fanout   int               `json:"fanout,omitempty"` // the store directories' layout
	Versions map[string]string `json:"versions"`         // the engine's and worker's versions at create
	// Appended is the number of notes turn runs appended to every store.
	Appended int `json:"appended,omitempty"`
	// Uneven is set while a turn run changes the stores (a run cut short
	// leaves some stores with one note more than others) and from the first
	// serve phase on (serve appends to each store as often as its agent is
	// drawn): such stores are never reused by a rerun.
	Uneven bool `json:"uneven,omitempty"`
	// Deleting is set before a delete phase exports and deletes agents
	// (a run killed part way leaves some of them deleted): such stores
	// are never reused by a rerun, which makes them again.
	Deleting bool `json:"deleting,omitempty"`
	// Creating is set while the create phase makes the stores: they are
	// incomplete, and never reused.
	Creating bool `json:"creating,omitempty"`
	// CreatedBy is the study whose create made the stores, when a serve
	// study took them over from it (Study is then the serve study).
	CreatedBy string `json:"created_by,omitempty"`
	// Kept is set when the study that made the stores was told to keep
	// them (--keep): only such stores are taken over by a serve study.
	Kept bool `json:"kept,omitempty"`
}

// writeManifest writes m into dir, synced.
func writeManifest(dir string, m Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, ManifestFile)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// markCreating writes m into dir marked creating, before the create
// phase makes the stores it names, so that a removal knows them.
func markCreating(dir string, m Manifest) error {
	m.Creating = true
	return writeManifest(dir, m)
}

// storesMatch tells whether dir holds a complete store set made for want,
// and if not, why.
func storesMatch(dir string, want Manifest) (bool, string) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, os.ErrNotExist) {
		if _, derr := os.Lstat(dir); errors.Is(derr, os.ErrNotExist) {
			return false, "no stores there (never made, or removed since)"
		}
		return false, "no complete store set (its create did not finish)"
	}
	if err != nil {
		return false, err.Error()
	}
	var got Manifest
	if err := json.Unmarshal(b, &got); err != nil {
		return false, fmt.Sprintf("unreadable %s: %v", ManifestFile, err)
	}
	switch {
	case got.Creating:
		return false, "no complete store set (its create did not finish)"
	case got.Uneven:
		return false, "a turn run was cut short or a serve phase ran, so its stores hold different numbers of notes"
	case got.Deleting:
		return false, "a delete phase ran on them, so some agents may be deleted"
	case got.Study != want.Study:
		return false, fmt.Sprintf("made for study %s", got.Study)
	case got.Variant != want.Variant || got.Setting != want.Setting:
		return false, fmt.Sprintf("made for %s under %s", got.Variant, got.Setting)
	case got.Fanout != want.Fanout:
		return false, fmt.Sprintf("stores in the layout of --fanout %d", got.Fanout)
	case got.Workload != want.Workload || got.Stores != want.Stores:
		return false, fmt.Sprintf("%d stores of %d notes of %d characters", got.Stores, got.Workload.Objects, got.Workload.TextLen)
	case want.Versions != nil && !maps.Equal(got.Versions, want.Versions):
		return false, "made by another version of the engine or its worker"
	}
	return true, ""
}

// readManifest reads the manifest of the store set in dir.
func readManifest(dir string) (Manifest, error) {
	var m Manifest
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("unreadable %s: %w", ManifestFile, err)
	}
	return m, nil
}
