package enginetest

import (
	"testing"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/workload"
)

// ServeStores and ServeRequests size CheckServe's run: a few hundred
// stores, as the serve issue's end-to-end check asks.
const (
	ServeStores   = 200
	ServeRequests = 1000
)

// CheckServe runs manydb serve's phase end to end with the real engine:
// ServeStores small stores, ServeRequests agent turns from 4 goroutines
// through a pool of 20 open stores, every answer checked by the worker
// (the 20 newest notes, then each append read back by the next request
// on its store). It fails t when the phase fails or its counts do not add
// up. Skipped under -short (a few seconds per variant).
func CheckServe(t *testing.T, v engine.Variant) {
	t.Helper()
	checkServe(t, v, "")
}

// checkServe is CheckServe of a variant whose stores live in the server
// at server ("" for none).
func checkServe(t *testing.T, v engine.Variant, server string) {
	t.Helper()
	if testing.Short() {
		t.Log("serve end to end not run under -short")
		return
	}
	spec, err := workload.Lookup("small", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	base := job.Job{Variant: v.ID(), Dir: t.TempDir(), Stores: ServeStores, Workload: spec, Server: server}
	Phase(t, v, base, job.PhaseCreate, nil)
	rec := Phase(t, v, base, job.PhaseServe, func(j *job.Job) {
		j.Run, j.Seed = 1, 1
		j.Serve = job.Serve{Pool: 20, Requests: ServeRequests, Concurrency: 4, Zipf: 1.1}
	})
	s := rec.Serve
	switch {
	case s == nil:
		t.Fatal("serve: no serve figures in the record")
	case s.Requests != ServeRequests || s.Hits+s.Opens != int64(s.Requests):
		t.Errorf("serve: %d requests, %d hits + %d opens; want %d requests, each a hit or an open", s.Requests, s.Hits, s.Opens, ServeRequests)
	case s.Hits == 0 || s.P99Ms <= 0:
		t.Errorf("serve: %d hits with a pool of 20 over Zipf agents, p99 %v ms", s.Hits, s.P99Ms)
	}
	if _, ok := v.(engine.ServerVariant); ok && s.ServerProcesses < 1 {
		t.Errorf("serve: the memory samples count %d of the server's processes, want them all", s.ServerProcesses)
	}
}
