package sqlitecapi

import (
	"errors"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlnotes"
)

var _ engine.SharedConnsVariant = (*Variant)(nil)

// busyTimeout is the pragma each connection of OpenSharedConns runs: a
// writer waits up to 5 s for another's commit instead of failing at once
// with SQLITE_BUSY, as mattn/go-sqlite3's connections do by default.
const busyTimeout = "PRAGMA busy_timeout=5000"

// OpenSharedConns implements engine.SharedConnsVariant: the shared store
// opened n times, each connection with the shared store's pragmas and
// busyTimeout; an agent's call takes one of them for its length (bind).
func (v *Variant) OpenSharedConns(dir string, n int) (engine.SharedStore, error) {
	var vec *sqlnotes.Vectors
	p, err := sqlnotes.OpenPool(n, func() (*store, error) {
		s, err := v.OpenShared(dir)
		if err != nil {
			return nil, err
		}
		sh := s.(*shared)
		vec = sh.vec
		c := sh.conns.First()
		if err := c.exec(busyTimeout); err != nil {
			return nil, errors.Join(err, c.Close())
		}
		return c, nil
	})
	if err != nil {
		return nil, err
	}
	return &shared{conns: p, vec: vec}, nil
}

// bind returns the agent's view on a connection for one call, and how to
// give the connection back: the view itself on the one connection (or
// when the pool hands it the view's own), else a copy on the one taken.
func (a *agent) bind() (*agent, func()) {
	s, done := a.sh.conns.Take()
	if s == a.s {
		return a, done
	}
	b := *a
	b.s = s
	return &b, done
}

// Close implements engine.SharedStore: it closes every connection.
func (sh *shared) Close() error { return sh.conns.Close() }
