package fakeengine

import (
	"fmt"
	"os"
	"path/filepath"

	"manydb/internal/engine"
)

var (
	_ engine.SharedVariant       = (*Variant)(nil)
	_ engine.SharedVectorVariant = (*Variant)(nil)
	_ engine.SharedStore         = (*shared)(nil)
)

// SharedLayout is what the fake shared store is.
const SharedLayout = "FAKE: a directory with a file of JSON notes per agent"

// CreateShared implements engine.SharedVariant: the directory is the
// store; an agent's file is made by its first write.
func (v *Variant) CreateShared(dir string) (engine.SharedStore, error) {
	return &shared{v: v, dir: dir}, nil
}

// CreateSharedVectors implements engine.SharedVectorVariant: the notes'
// files keep their embeddings as without the shared layout.
func (v *Variant) CreateSharedVectors(dir string, dims int) (engine.SharedStore, error) {
	return v.CreateShared(dir)
}

// SharedVectorSearch implements engine.SharedVectorVariant: the store's
// exact scan of the agent's file.
func (v *Variant) SharedVectorSearch() engine.VectorSearch { return v.VectorSearch() }

// OpenShared implements engine.SharedVariant.
func (v *Variant) OpenShared(dir string) (engine.SharedStore, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	return &shared{v: v, dir: dir}, nil
}

// SharedLayout implements engine.SharedVariant.
func (v *Variant) SharedLayout() string { return SharedLayout }

type shared struct {
	v   *Variant
	dir string
}

// path is agent a's file; fake_mixedagents gives every agent agent 0's.
func (s *shared) path(a int) string {
	if s.v.id == "fake_mixedagents" {
		a = 0
	}
	return filepath.Join(s.dir, fmt.Sprintf("%06d.json", a))
}

// Agent implements engine.SharedStore.
func (s *shared) Agent(a int) (engine.Store, error) {
	return &store{path: s.path(a), v: s.v, agent: true}, nil
}

// DeleteAgent implements engine.SharedStore: the agent's file removed.
func (s *shared) DeleteAgent(a int) error { return os.Remove(s.path(a)) }

// Close implements engine.SharedStore.
func (s *shared) Close() error { return nil }
