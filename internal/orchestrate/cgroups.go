package orchestrate

import (
	"fmt"
	"time"

	"manydb/internal/memcg"
	"manydb/internal/results"
)

// makeCgroup makes a memory cgroup for a hold worker and returns its path
// and how to remove it, or why none can be made here.
func (s *study) makeCgroup(label string) (path, na string, remove func()) {
	g, err := s.cgroups().New(cgroupPrefix)
	if err != nil {
		return "", err.Error(), func() {}
	}
	return g.Path, "", func() {
		if rerr := g.Remove(); rerr != nil {
			fmt.Fprintf(s.Log, "%s: %v\n", label, rerr)
		}
	}
}

// makeLimitedCgroup makes the memory cgroup of a serve worker under
// --memory-max, with that limit, and returns it and how to remove it.
// Unlike the hold's container figure, the step cannot run without it.
func (s *study) makeLimitedCgroup(label string, limit int64) (memcg.Group, func(), error) {
	g, err := s.cgroups().New(cgroupPrefix)
	if err != nil {
		return g, nil, fmt.Errorf("%s: --memory-max: %w", label, err)
	}
	remove := func() {
		if rerr := g.Remove(); rerr != nil {
			fmt.Fprintf(s.Log, "%s: %v\n", label, rerr)
		}
	}
	if err := g.SetLimit(limit); err != nil {
		remove()
		return g, nil, fmt.Errorf("%s: --memory-max: %w", label, err)
	}
	return g, remove, nil
}

// readLimit reads what a serve worker's limited cgroup went through, once
// the worker is gone and memory.stat has folded its last counts in.
func (s *study) readLimit(g memcg.Group) (*results.MemoryLimit, error) {
	time.Sleep(memcg.StatDelay)
	p, err := g.ReadPressure()
	if err != nil {
		return nil, err
	}
	return &results.MemoryLimit{Cgroup: g.Path, V2: g.V2, LimitBytes: s.Serve.MemoryMaxBytes, Pressure: p}, nil
}
