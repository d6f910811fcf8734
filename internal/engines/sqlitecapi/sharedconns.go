package sqlitecapi

import (
	"errors"
	"fmt"

	"manydb/internal/engine"
)

var _ engine.SharedConnsVariant = (*Variant)(nil)

// busyTimeout is the pragma each connection of OpenSharedConns runs: a
// writer waits up to 5 s for another's commit instead of failing at once
// with SQLITE_BUSY, as mattn/go-sqlite3's connections do by default.
const busyTimeout = "PRAGMA busy_timeout=5000"

// OpenSharedConns implements engine.SharedConnsVariant: the shared store
// opened n times, each connection with the shared store's pragmas and
// busyTimeout; an agent's call takes one of them for its length.
func (v *Variant) OpenSharedConns(dir string, n int) (engine.SharedStore, error) {
	if n < 1 {
		return nil, fmt.Errorf("a shared store of %d connections", n)
	}
	var made []*shared
	for range n {
		s, err := v.OpenShared(dir)
		if err == nil {
			if err = s.(*shared).s.exec(busyTimeout); err != nil {
				err = errors.Join(err, s.Close())
			}
		}
		if err != nil {
			for _, m := range made {
				err = errors.Join(err, m.s.Close())
			}
			return nil, err
		}
		made = append(made, s.(*shared))
	}
	sh := &shared{s: made[0].s, vec: made[0].vec, conns: make(chan *store, n)}
	for _, m := range made {
		sh.conns <- m.s
	}
	return sh, nil
}

// take returns a connection for one call and how to give it back.
func (sh *shared) take() (*store, func()) {
	if sh.conns == nil {
		return sh.s, func() {}
	}
	s := <-sh.conns
	return s, func() { sh.conns <- s }
}

// on runs fn with the agent's view on a connection of its call: the one
// connection, or one taken from the shared store's for fn's length.
func (a *agent) on(fn func(b *agent) error) error {
	if a.sh == nil || a.sh.conns == nil {
		return fn(a)
	}
	s, done := a.sh.take()
	defer done()
	b := *a
	b.s = s
	return fn(&b)
}

// Close implements engine.SharedStore: it closes every connection.
func (sh *shared) Close() error {
	if sh.conns == nil {
		return sh.s.Close()
	}
	var errs []error
	for range cap(sh.conns) {
		errs = append(errs, (<-sh.conns).Close())
	}
	return errors.Join(errs...)
}
