package sqlnotes

import (
	"errors"
	"fmt"
	"io"
)

// Pool is the connections of a shared store: one, or several (OpenPool),
// of which each call of an agent's view takes one for its length, so that
// concurrent callers run on connections of their own
// (engine.SharedConnsVariant).
type Pool[C io.Closer] struct {
	one   C
	conns chan C // nil: one alone
}

// OnePool is the pool of one connection.
func OnePool[C io.Closer](c C) Pool[C] { return Pool[C]{one: c} }

// OpenPool opens n connections with open; those made are closed when one
// fails.
func OpenPool[C io.Closer](n int, open func() (C, error)) (Pool[C], error) {
	if n < 1 {
		return Pool[C]{}, fmt.Errorf("a shared store of %d connections", n)
	}
	made := make([]C, 0, n)
	for range n {
		c, err := open()
		if err != nil {
			for _, m := range made {
				err = errors.Join(err, m.Close())
			}
			return Pool[C]{}, err
		}
		made = append(made, c)
	}
	p := Pool[C]{one: made[0], conns: make(chan C, n)}
	for _, c := range made {
		p.conns <- c
	}
	return p, nil
}

// First is the pool's first connection.
func (p Pool[C]) First() C { return p.one }

// Take returns a connection for one call and how to give it back; with
// one connection, that one and nothing to give back.
func (p Pool[C]) Take() (C, func()) {
	if p.conns == nil {
		return p.one, noop
	}
	c := <-p.conns
	return c, func() { p.conns <- c }
}

func noop() {}

// Close closes every connection (once every call has given its back).
func (p Pool[C]) Close() error {
	if p.conns == nil {
		return p.one.Close()
	}
	var errs []error
	for range cap(p.conns) {
		errs = append(errs, (<-p.conns).Close())
	}
	return errors.Join(errs...)
}
