package kvnote

import (
	"fmt"
	"io"

	"manydb/internal/engine"
)

// Shared is an open shared store of a key-value engine (Pebble, Badger):
// one database holding every agent's keys under the agent's prefix
// (AgentKeys). The engine gives its store on an agent's keys and its way
// of deleting them.
type Shared[DB io.Closer] struct {
	DB DB
	// Dims is the embeddings' length; 0: none.
	Dims int
	// View is the engine's store of the agent's keys.
	View func(s *Shared[DB], keys Keys) engine.Store
	// Delete removes every key under keys' prefix, committed, and gives
	// the space back as the engine can.
	Delete func(db DB, keys Keys) error
}

var _ engine.SharedStore = (*Shared[io.Closer])(nil)

// Agent implements engine.SharedStore: a view of the agent's keys.
func (s *Shared[DB]) Agent(a int) (engine.Store, error) {
	keys, err := AgentKeys(a)
	if err != nil {
		return nil, err
	}
	return s.View(s, keys), nil
}

// DeleteAgent implements engine.SharedStore: Delete of the agent's keys.
func (s *Shared[DB]) DeleteAgent(a int) error {
	keys, err := AgentKeys(a)
	if err != nil {
		return err
	}
	if err := s.Delete(s.DB, keys); err != nil {
		return fmt.Errorf("delete agent %d: %w", a, err)
	}
	return nil
}

// Close implements engine.SharedStore.
func (s *Shared[DB]) Close() error { return s.DB.Close() }
