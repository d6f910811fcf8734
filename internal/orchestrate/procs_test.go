package orchestrate

import (
	"context"
	"strings"
	"syscall"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"manydb/internal/job"
	"manydb/internal/results"
)

// holdRecord returns the hold record of the study c wrote.
func holdRecord(t *testing.T, c Config) results.Record {
	t.Helper()
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Phase == job.PhaseHold {
			return r
		}
	}
	t.Fatal("no hold record")
	return results.Record{}
}

// TestSplitHold: --procs 3 holds 10 stores in three worker processes of
// 3, 3 and 4 stores, one after another; the record is theirs together,
// and each one's own hold is kept with its cost before its first store.
func TestSplitHold(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Hold, c.Procs = 10, 3
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	r := holdRecord(t, c)
	h := r.Hold
	if r.Status != results.StatusOK || h.Held != 10 || len(h.OpenMs) != 10 || len(h.Procs) != 3 {
		t.Fatalf("hold %s: %d held, %d opens, %d processes; want 10 held in 3", r.Status, h.Held, len(h.OpenMs), len(h.Procs))
	}
	fds := 0
	for k, want := range []int{3, 3, 4} {
		p := h.Procs[k]
		if p.Held != want || p.PssBeforeKB <= 0 || p.RssBeforeKB <= 0 {
			t.Errorf("process %d: %d held, Pss before %d KB; want %d held and its own memory", k+1, p.Held, p.PssBeforeKB, want)
		}
		fds += p.FDs
	}
	if h.FDs != fds {
		t.Errorf("open files %d, the processes' sum %d", h.FDs, fds)
	}
}

// TestSplitHoldFails: a process of a split hold that dies fails the
// step, naming the process and its stores; nothing is recorded as held.
func TestSplitHoldFails(t *testing.T) {
	c := fakeConfig(t, "fake_sigkill") // dies at its third open
	c.Hold, c.Procs = 10, 2
	if _, err := Run(context.Background(), c); err == nil {
		t.Fatal("the study passed")
	}
	r := holdRecord(t, c)
	if r.Status != results.StatusFailed || !strings.Contains(r.Error, "process 1 of 2 (stores 0 to 4)") {
		t.Errorf("hold %s: %q; want failed in process 1 of 2", r.Status, r.Error)
	}
	if !strings.Contains(strings.Join(r.Command, " "), "--proc") {
		t.Errorf("command %q: want the failed process' own", r.Command)
	}
}

// TestProcsRules: --procs above the smallest hold, with a shared layout
// or with serve is refused.
func TestProcsRules(t *testing.T) {
	for _, tt := range []struct {
		edit func(c *Config)
		want string
	}{
		{func(c *Config) { c.Holds, c.Procs = []int{4}, 5 }, "--procs 5: split the 4 held stores over 1 to 4 processes"},
		{func(c *Config) { c.Procs, c.Layouts = 2, []job.Layout{job.LayoutPerAgent, job.LayoutShared} }, "with --layout shared"},
		{func(c *Config) {
			c.Procs, c.Serve = 2, &results.ServeConfig{Pools: []int{1}, Requests: 10, Concurrency: 1, Zipf: 1.1}
		}, "more processes than --concurrency 1"},
		{func(c *Config) {
			c.AutoProcs, c.Serve = true, &results.ServeConfig{Pools: []int{1}, Requests: 10, Concurrency: 2, Zipf: 1.1}
		}, "not auto"},
	} {
		c := fakeConfig(t, "fake")
		tt.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
	}
}

// TestAutoProcs: --procs auto holds the first hold in one process and
// splits a later one by what a store took of a process' open files; a
// split hold is checked against each process' file limit, not the sum.
func TestAutoProcs(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	c := fakeConfig(t, "fake")
	c.AutoProcs = true
	key := storesKey{"fake", "default", ""}
	s := &study{Config: c, held: map[storesKey]results.Hold{}}
	cl := &cell{study: s, where: where{set: c.Settings[0], v: "fake"}}
	if k, by := cl.holdProcs(phase{name: job.PhaseHold, hold: 50}); k != 1 || !by.FirstHold {
		t.Errorf("the first hold: %d processes, %+v", k, by)
	}
	// 10 files per store, 8 open before: a process holds (0.9 × limit − 8) / 10.
	s.held[key] = results.Hold{Held: 10, RssKB: 1, FDsBefore: 8, FDs: 108, Limits: &results.Limits{OpenFiles: int64(lim.Max), Mappings: 1 << 30, Threads: 1 << 20}}
	each := int((0.9*float64(lim.Max) - 8) / 10)
	k, by := cl.holdProcs(phase{name: job.PhaseHold, hold: 2*each + 1})
	if k != 3 || by.Limit != "open files" || by.PerProcess != float64(each) {
		t.Errorf("%d stores of 10 files, %d per process: %d processes, %+v; want 3, set by open files", 2*each+1, each, k, by)
	}
	if why := s.tooManyOpen(key, 2*each+1, 0, 3, true); why != "" {
		t.Errorf("a hold split over 3 processes skipped: %q", why)
	}
	if why := s.tooManyOpen(key, 2*each+1, 0, 1, true); !strings.Contains(why, "open files") {
		t.Errorf("the same hold in one process: %q", why)
	}
}

// TestSplitServe: serve --procs 2 serves every request of the sequence
// once, in two worker processes with half the pool and goroutines each;
// the step's record is theirs together (requests, hits, the merged
// latency histogram) with each one's own, and its account of time is its
// longest process'.
func TestSplitServe(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Hold, c.Procs = 5, 2
	c.Serve = &results.ServeConfig{Pools: []int{0, 4}, Requests: 200, Concurrency: 4, Zipf: 1.1}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	served := 0
	for _, r := range recs {
		if r.Phase != job.PhaseServe {
			continue
		}
		served++
		s := r.Serve
		if r.Status != results.StatusOK || len(s.Procs) != 2 || s.Requests != 200 || s.Hits+s.Opens != 200 || s.Concurrency != 4 {
			t.Fatalf("serve %s: %d processes, %d requests, %d hits + %d opens, %d goroutines; want 2 processes serving 200 with 4", r.Status, len(s.Procs), s.Requests, s.Hits, s.Opens, s.Concurrency)
		}
		h, err := hdrhistogram.Decode(s.Histogram)
		if err != nil || h.TotalCount() != 200 {
			t.Errorf("pool %d: the merged histogram counts %d requests (%v), want 200", s.Pool, h.TotalCount(), err)
		}
		if w := r.WorkerTime; w == nil || w.RunS <= 0 || w.RunS > r.WorkerS {
			t.Errorf("pool %d: the step's account %+v in a step of %.3f s; want its longest process' run", s.Pool, w, r.WorkerS)
		}
		if s.Procs[0].Pool+s.Procs[1].Pool != s.Pool || s.Procs[0].Requests+s.Procs[1].Requests != 200 {
			t.Errorf("pool %d: the processes' pools %d and %d, requests %d and %d", s.Pool, s.Procs[0].Pool, s.Procs[1].Pool, s.Procs[0].Requests, s.Procs[1].Requests)
		}
	}
	if served != 2 {
		t.Errorf("%d serve steps recorded, want 2", served)
	}
}

// TestSplitServeFails: a serve process that dies fails its step, naming
// the process and its agents; nothing is recorded ok.
func TestSplitServeFails(t *testing.T) {
	c := fakeConfig(t, "fake_sigkill") // dies at its third open
	c.Hold, c.Procs = 5, 2
	c.Serve = &results.ServeConfig{Pools: []int{0}, Requests: 200, Concurrency: 2, Zipf: 1.1}
	if _, err := Run(context.Background(), c); err == nil {
		t.Fatal("the study passed")
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	named := false
	for _, r := range recs {
		if r.Phase == job.PhaseServe {
			named = r.Status == results.StatusFailed && strings.Contains(r.Error, "of 2 (agents")
		}
	}
	if !named {
		t.Error("no failed serve step naming its process")
	}
}
