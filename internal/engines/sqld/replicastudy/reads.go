package replicastudy

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"manydb/internal/engine"
	"manydb/internal/replica"
)

// reads times the newest notes of agents drawn at random, the same
// agents on each server, each answer checked.
func reads(_ context.Context, c replica.Config, sp *pair, res *replica.Result) error {
	for _, side := range []struct {
		name string
		v    engine.Variant
		out  *[]float64
	}{{"primary", sp.p, &res.PrimaryRecentMs}, {"replica", sp.r, &res.ReplicaRecentMs}} {
		rng := rand.New(rand.NewPCG(c.Seed, 2))
		for range c.Reads {
			i := rng.IntN(c.Agents)
			d, err := readRecent(c, side.v, i)
			if err != nil {
				return fmt.Errorf("a read of agent %d on the %s: %w", i, side.name, err)
			}
			*side.out = append(*side.out, d)
		}
		sp.say("replica: %d reads of the newest %d notes on the %s", c.Reads, c.Recent, side.name)
	}
	return nil
}

// readRecent opens agent i's store on v, times one read of its newest
// c.Recent notes and checks them: ids from its highest down (its notes
// and the turns appended to it), each note the one written.
func readRecent(c replica.Config, v engine.Variant, i int) (float64, error) {
	s, err := v.Open(agentDir(c, i))
	if err != nil {
		return 0, err
	}
	defer s.Close()
	t := time.Now()
	got, err := s.Recent(c.Recent, nil)
	d := ms(time.Since(t))
	if err != nil {
		return 0, err
	}
	if len(got) < min(c.Recent, c.Notes) || len(got) > c.Recent {
		return 0, fmt.Errorf("%d notes returned, want %d to %d", len(got), min(c.Recent, c.Notes), c.Recent)
	}
	sp := spec(c)
	for k, n := range got {
		if err := sp.Check(i, got[0].ID-int64(k), n); err != nil {
			return 0, fmt.Errorf("not newest first, or not as written: %w", err)
		}
	}
	return d, nil
}

// loseThePrimary kills the primary (SIGKILL, as a machine lost) and asks
// the replica for every agent's count, then for an append.
func loseThePrimary(_ context.Context, c replica.Config, sp *pair, res *replica.Result) error {
	sp.primary.Kill()
	res.Lost.ReadsServed = true
	for i := range c.Agents {
		if err := countOnReplica(c, sp, i); err != nil {
			res.Lost.ReadsServed, res.Lost.ReadError = false, fmt.Sprintf("agent %d: %v", i, err)
			break
		}
	}
	err := appendWithin(c, sp, c.Wait)
	if err == nil {
		return errors.New("an append to the replica succeeded with its primary killed: where did it go?")
	}
	res.Lost.WriteError = err.Error()
	sp.say("replica: the primary killed: reads served %v; an append answered: %v", res.Lost.ReadsServed, err)
	return nil
}

// appendWithin appends a note to agent 0 on the replica, which sends it
// on to its primary, and waits for the answer at most wait (a replica
// may keep trying a primary that is gone).
func appendWithin(c replica.Config, sp *pair, wait time.Duration) error {
	done := make(chan error, 1)
	go func() {
		s, err := sp.r.Open(agentDir(c, 0))
		if err == nil {
			err = errors.Join(s.Append(spec(c).TurnNote(0, 1_000_000)), s.Close())
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(wait):
		return fmt.Errorf("no answer within %v", wait)
	}
}

// countOnReplica checks that the replica still counts agent i's notes:
// at least its notes (appends may have added more).
func countOnReplica(c replica.Config, sp *pair, i int) error {
	s, err := sp.r.Open(agentDir(c, i))
	if err != nil {
		return err
	}
	defer s.Close()
	n, err := s.Count()
	if err == nil && n < int64(c.Notes) {
		err = fmt.Errorf("count %d, fewer than its %d notes", n, c.Notes)
	}
	return err
}
