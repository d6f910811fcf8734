package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/memcg"
	"manydb/internal/report"
	"manydb/internal/results"
)

// TestStudyWithQueriesColdAndTurns runs a study with every query, a warm
// and a cold mode and two turn runs, then kills nothing but reruns it: the
// phases come in order, each cell once, and the turns' notes are counted by
// the manifest.
func TestStudyWithQueriesColdAndTurns(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Queries, c.Cache, c.Turns, c.Keep = []job.Query{"recent", "count", "get", "scan"}, []string{"warm", "cold"}, 2, true
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		if r.Phase == job.PhaseEnv || r.Phase == job.PhaseEnd {
			continue
		}
		got = append(got, phase{name: r.Phase, run: r.Repeat(), cache: r.Cache}.String())
		if r.Phase == job.PhaseOpen && !slices.Equal(r.Queries, c.Queries) {
			t.Errorf("%s run %d: queries %v, want %v", r.Phase, r.Run, r.Queries, c.Queries)
		}
		if r.Phase == job.PhaseTurn && r.Appended != r.Turn-1 {
			t.Errorf("turn run %d: %d notes appended before it, want %d", r.Turn, r.Appended, r.Turn-1)
		}
		// A cold run's evictions and a warm run's residency samples are
		// page cache work; a turn run's read-backs are untimed engine calls.
		if w := r.WorkerTime; (r.Phase == job.PhaseOpen || r.Phase == job.PhaseTurn) && (w == nil || w.CacheS <= 0) {
			t.Errorf("%s: account %+v, want its page cache work", phase{name: r.Phase, run: r.Repeat(), cache: r.Cache}, w)
		}
		if w := r.WorkerTime; r.Phase == job.PhaseTurn && w.UntimedS <= 0 {
			t.Errorf("turn run %d: account %+v, want its warm-up and read-back", r.Turn, w)
		}
	}
	want := []string{"create", "open run 1", "open run 2", "open run 1 (cold)", "open run 2 (cold)", "hold", "space", "turn run 1", "turn run 2"}
	if !slices.Equal(got, want) {
		t.Fatalf("phases %v, want %v", got, want)
	}
	m, err := readManifest(filepath.Join(c.Root, "default", "fake"))
	if err != nil || m.Appended != 2 || m.Uneven {
		t.Fatalf("manifest after two turns: %+v, %v", m, err)
	}

	// One more turn run on a rerun: only it runs, on the kept stores.
	c.Turns = 3
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, _ = results.ReadFile(c.Out)
	var turns []int
	for _, r := range recs {
		if r.Phase == job.PhaseTurn {
			turns = append(turns, r.Appended)
		}
	}
	if !slices.Equal(turns, []int{0, 1, 2}) {
		t.Fatalf("turn records appended before each: %v, want [0 1 2]", turns)
	}
}

// A turn run cut short leaves stores that are never reused: the rerun
// makes them again.
func TestCutTurnRunRebuildsTheStores(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Turns, c.Keep = 1, true
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(c.Root, "default", "fake")
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Uneven = true
	if err := writeManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	if ok, why := storesMatch(dir, m); ok {
		t.Fatal("stores of a cut turn run match")
	} else if why == "" {
		t.Fatal("no reason given")
	}
}

// A rerun after turn run 2 was cut short makes the stores again and
// replays turn run 1 on them (not recorded), so turn run 2 is measured on
// stores with the note of run 1, as in one session (issue 31, case 7).
func TestRerunAfterCutTurnReplaysEarlierTurns(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Turns, c.Runs = 2, 1
	c.Keep = true
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	// Cut turn run 2: its record goes, its stores are left uneven.
	dropLines(t, c.Out, func(l string) bool {
		return strings.Contains(l, `"phase":"turn"`) && strings.Contains(l, `"turn":2`) || strings.Contains(l, `"phase":"end"`)
	})
	dir := filepath.Join(c.Root, "default", "fake")
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Uneven = true
	writeManifest(dir, m)

	var log strings.Builder
	c.Log = &log
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "turn run 1 (redone on the stores made again, not recorded)") {
		t.Errorf("the log does not say turn run 1 was redone:\n%s", log.String())
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	turns := map[int]int{} // turn run → records
	for _, r := range recs {
		if r.Phase != job.PhaseTurn {
			continue
		}
		turns[r.Turn]++
		if r.Turn == 2 && r.Appended != 1 {
			t.Errorf("turn run 2 measured with %d notes appended before it, want 1", r.Appended)
		}
	}
	if turns[1] != 1 || turns[2] != 1 {
		t.Errorf("turn records per run %v, want one each", turns)
	}
	// The rerun's time remaking the stores and replaying turn run 1 is
	// the workers', under its own name, not removing stores.
	end := recs[len(recs)-1]
	if end.Phase != job.PhaseEnd || end.Budget == nil || end.Budget.Rebuild <= 0 {
		t.Errorf("the rerun's end record: %+v, want its rebuild counted apart from the cleanup", end.Budget)
	}
	if !strings.Contains(log.String(), "in workers remaking a resumed study's stores") {
		t.Errorf("the summary does not name the rebuild:\n%s", log.String())
	}
}

func TestCacheDropNeedsRoot(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Cache = []string{"drop"}
	err := c.Validate()
	var in *job.InputError
	switch {
	case os.Geteuid() == 0 && err != nil:
		t.Fatalf("root: %v", err)
	case os.Geteuid() != 0 && !errors.As(err, &in):
		t.Fatalf("not root: err = %v, want an input error", err)
	}
	c.Cache = []string{"cold", "cold"}
	if err := c.Validate(); !errors.As(err, &in) {
		t.Fatalf("cold listed twice: %v", err)
	}
	c.Cache = []string{"lukewarm"}
	if err := c.Validate(); !errors.As(err, &in) {
		t.Fatalf("unknown mode: %v", err)
	}
}

// The hold worker reports its memory cgroup's charge where one can be
// made (root), and says why not elsewhere.
func TestHoldInAMemoryCgroup(t *testing.T) {
	hold := func(c Config) *results.Hold {
		t.Helper()
		if _, err := Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		recs, err := results.ReadFile(c.Out)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if r.Phase == job.PhaseHold {
				return r.Hold
			}
		}
		t.Fatal("no hold record")
		return nil
	}
	c := fakeConfig(t, "fake") // noCgroups
	if h := hold(c); h.Container != nil || !strings.Contains(h.ContainerNA, "no memory cgroup") {
		t.Errorf("without a hierarchy: container %+v, reason %q", h.Container, h.ContainerNA)
	}
	if os.Geteuid() != 0 {
		return // the rest needs root
	}
	c = fakeConfig(t, "fake")
	c.Cgroups = nil // memcg.Default()
	h := hold(c)
	if h.Container == nil {
		t.Fatalf("as root: no container figure (%s)", h.ContainerNA)
	}
	if h.Container.BytesAfter <= 0 || h.Container.AnonAfter <= 0 {
		t.Errorf("container %+v: want the worker's charge", h.Container)
	}
	if _, err := os.Stat(h.Container.Cgroup); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cgroup %s not removed after the hold: %v", h.Container.Cgroup, err)
	}
}

// runRecords runs study c and returns the records of its results file.
func runRecords(t *testing.T, c Config) []results.Record {
	t.Helper()
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestServeStudy runs manydb serve's phases with the fake engine: create,
// hold, one serve phase per pool size, each with its figures; a pool too
// large for the memory is skipped with a record saying why.
func TestServeStudy(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Hold = 5
	c.Serve = &results.ServeConfig{Pools: []int{0, 3, 10}, Requests: 200, Concurrency: 4, Zipf: 1.1}
	recs := runRecords(t, c)
	var got []string
	for _, r := range recs {
		if r.Phase == job.PhaseServe {
			if r.Status != results.StatusOK || r.Serve.Requests != 200 || r.Serve.Hits+r.Serve.Opens != 200 {
				t.Errorf("serve record: %s %+v", r.Status, r.Serve)
			}
			if r.Serve.Pool == 0 && r.Serve.Hits != 0 {
				t.Errorf("pool 0 had %d hits", r.Serve.Hits)
			}
			got = append(got, fmt.Sprint(r.Serve.Pool))
			if r.PoolStep != len(got)-2 {
				t.Errorf("serve of pool %d recorded as pool step %d", r.Serve.Pool, r.PoolStep)
			}
		} else if r.Phase != job.PhaseEnv && r.Phase != job.PhaseEnd {
			got = append(got, string(r.Phase))
		}
	}
	if want := []string{"create", "hold", "0", "3", "10"}; !slices.Equal(got, want) {
		t.Fatalf("phases %v, want %v", got, want)
	}
	var out strings.Builder
	if err := report.Tables(&out, recs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Pool of 0 open stores", "### Pool of 3 open stores", "### Pool of 10 open stores", "| 3 | "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("serve tables lack %q:\n%s", want, out.String())
		}
	}
	// A rerun finds every cell recorded.
	before := len(recs)
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, _ = results.ReadFile(c.Out)
	for _, r := range recs[before:] {
		if r.Phase != job.PhaseEnv && r.Phase != job.PhaseEnd {
			t.Errorf("the rerun recorded %s again", r.Phase)
		}
	}

	// Resident pages of mapped files are page cache: only the anonymous
	// memory counts.
	s := &study{Config: c, held: map[storesKey]results.Hold{{"fake", "default", ""}: {Held: 1, RssKB: 1 << 40, AnonKB: 1}}}
	if why := s.tooManyOpen(storesKey{"fake", "default", ""}, 10, c.Serve.Concurrency, 1, true); why != "" {
		t.Errorf("a pool of 10 stores of 1 PiB resident, 1 KB anonymous each: skipped: %q", why)
	}
	s.held[storesKey{"fake", "default", ""}] = results.Hold{Held: 1, RssKB: 1 << 40, AnonKB: 1 << 40}
	if why := s.tooManyOpen(storesKey{"fake", "default", ""}, 10, c.Serve.Concurrency, 1, true); !strings.Contains(why, "more than 70 % of the") {
		t.Errorf("a pool of 10 stores of 1 PiB each: %q", why)
	}
	if why := s.tooManyOpen(storesKey{"fake", "default", ""}, 0, c.Serve.Concurrency, 1, true); why != "" {
		t.Errorf("pool 0 skipped: %q", why)
	}
	// Under --memory-max the memory is not checked: the limit guards the
	// machine.
	if why := s.tooManyOpen(storesKey{"fake", "default", ""}, 10, c.Serve.Concurrency, 1, false); why != "" {
		t.Errorf("a pool of 10 stores of 1 PiB each under a memory limit: skipped: %q", why)
	}
	// Open files: 10 descriptors per open store against this process'
	// hard limit.
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	s.held[storesKey{"fake", "default", ""}] = results.Hold{Held: 10, RssKB: 1, FDsBefore: 8, FDs: 108}
	fits := int(lim.Max/10) - c.Serve.Concurrency - 1
	if why := s.tooManyOpen(storesKey{"fake", "default", ""}, fits, c.Serve.Concurrency, 1, true); why != "" {
		t.Errorf("a pool of %d stores of 10 files each under a limit of %d skipped: %q", fits, lim.Max, why)
	}
	if why := s.tooManyOpen(storesKey{"fake", "default", ""}, fits+2, c.Serve.Concurrency, 1, true); !strings.Contains(why, "open files") {
		t.Errorf("a pool of %d stores of 10 files each under a limit of %d: %q", fits+2, lim.Max, why)
	}
	// A serve phase that peaked at 100 files per open store (a store that
	// is written to) makes the check stricter than the hold's 10.
	s.servedFDs = map[storesKey]float64{}
	s.noteServed(&results.Record{Variant: "fake", Setting: "default", Status: results.StatusOK,
		Serve: &results.Serve{MaxOpen: 20, FDs: []int{10, 2000, 40}}})
	if why := s.tooManyOpen(storesKey{"fake", "default", ""}, fits/10, c.Serve.Concurrency, 1, true); !strings.Contains(why, "a smaller pool's serve phase") {
		t.Errorf("a pool of %d stores after a serve phase with 100 files per open store, limit %d: %q", fits/10, lim.Max, why)
	}
}

// TestServeRateLadder: serve --rates serves each pool size at each rate
// in turn, as steps 1, 2, …; the open loop's records keep the offered
// and the achieved rate and their senders, the closed loop's none; the
// tables name the rate of each step and give p50/p99 against it.
func TestServeRateLadder(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Hold = 5
	c.Serve = &results.ServeConfig{Pools: []int{0, 3}, Requests: 200, Concurrency: 2, Zipf: 1.1, Rates: []float64{4000, 0}}
	recs := runRecords(t, c)
	var got []string
	for _, r := range recs {
		if r.Phase != job.PhaseServe {
			continue
		}
		s := r.Serve
		got = append(got, fmt.Sprintf("%d:%d@%s", r.PoolStep, s.Pool, job.FormatRate(s.Rate)))
		open := s.Rate > 0
		if r.Status != results.StatusOK || (s.AchievedRate > 0) != open || (s.Senders >= 2) != open || s.AchievedRate > s.Rate*1.01 && open {
			t.Errorf("step %d: %s, offered %g, achieved %g, %d senders", r.PoolStep, r.Status, s.Rate, s.AchievedRate, s.Senders)
		}
	}
	if want := []string{"1:0@4000", "2:0@max", "3:3@4000", "4:3@max"}; !slices.Equal(got, want) {
		t.Fatalf("serve steps %v, want %v", got, want)
	}
	var out strings.Builder
	if err := report.Tables(&out, recs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Pool of 3 open stores at 4,000 requests/s", "### Pool of 3 open stores, closed loop", "### Latency against the offered rate"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("serve tables lack %q:\n%s", want, out.String())
		}
	}
}

// Serve does not take over stores that their study did not keep (it may
// resume on them), nor a kept set with a store missing: it makes its own
// and says why (issue 31, case 12).
func TestServeTakesOnlyKeptCompleteStores(t *testing.T) {
	for _, tt := range []struct {
		name, want string
		spoil      func(dir string)
	}{
		{"not kept", "made them without --keep", func(dir string) {
			m, err := readManifest(dir)
			if err != nil {
				t.Fatal(err)
			}
			m.Kept = false
			writeManifest(dir, m)
		}},
		{"store missing", "store 3 (", func(dir string) {
			os.RemoveAll(job.StoreDir(dir, 3, 0))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := fakeConfig(t, "fake")
			c.Keep, c.Runs = true, 1
			if _, err := Run(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			tt.spoil(filepath.Join(c.Root, "default", "fake"))
			var log strings.Builder
			sc := c
			sc.Keep, sc.Hold, sc.Log = false, 5, &log
			sc.Out = filepath.Join(t.TempDir(), "serve.jsonl")
			sc.Serve = &results.ServeConfig{Pools: []int{0}, Requests: 20, Concurrency: 1, Zipf: 1.1}
			id, err := Run(context.Background(), sc)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(log.String(), "not reusing the stores") || !strings.Contains(log.String(), tt.want) {
				t.Errorf("log lacks why the stores were not reused (%q):\n%s", tt.want, log.String())
			}
			recs, err := results.ReadFile(sc.Out)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				if r.Phase == job.PhaseCreate && (r.Status != results.StatusOK || r.StoresFrom != "") {
					t.Errorf("create: %s from %q, want this study's own ok create", r.Status, r.StoresFrom)
				}
				if r.Phase == job.PhaseServe && r.StoresFrom != id {
					t.Errorf("serve: stores_from %q, want its own study %s", r.StoresFrom, id)
				}
			}
		})
	}
}

// TestServeReusesKeptStores: manydb serve on the root of a study that kept
// its stores takes them over when they match (no create phase, an n/a
// create record naming that study) and makes its own when they do not.
func TestServeReusesKeptStores(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Keep, c.Runs = true, 1
	runID, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	sc := c
	sc.Keep, sc.Hold = false, 5
	sc.Out = filepath.Join(t.TempDir(), "serve.jsonl")
	sc.Serve = &results.ServeConfig{Pools: []int{0, 3}, Requests: 50, Concurrency: 2, Zipf: 1.1}
	if _, err := Run(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadFile(sc.Out)
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	for _, r := range recs {
		if r.Phase == job.PhaseCreate {
			if r.Status != results.StatusNotApplicable || r.StoresFrom != runID || len(r.CreateMs) != 0 {
				t.Errorf("create record of the reused stores: %s from %q (want n/a from %s), %d samples", r.Status, r.StoresFrom, runID, len(r.CreateMs))
			}
		}
		if r.Phase == job.PhaseServe && r.Status != results.StatusOK {
			t.Errorf("serve on reused stores: %s %s", r.Status, r.Error)
		}
		phases = append(phases, string(r.Phase))
	}
	if want := []string{"env", "create", "hold", "serve", "serve", "end"}; !slices.Equal(phases, want) {
		t.Errorf("phases %v, want %v", phases, want)
	}
	var out strings.Builder
	if err := report.Tables(&out, recs); err != nil {
		t.Fatal(err)
	}
	if want := "fake served the stores kept by study " + runID; !strings.Contains(out.String(), want) || strings.Contains(out.String(), "n/a") {
		t.Errorf("serve tables lack %q or mark the variant n/a:\n%s", want, out.String())
	}
	if _, err := os.Stat(filepath.Join(c.Root, "default", "fake")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the served stores were not removed at the end: %v", err)
	}
	// Every serve record names the study whose stores it served; when a
	// resumed session made them again, the tables say which pools did.
	for i := range recs {
		if r := &recs[i]; r.Phase == job.PhaseServe {
			if r.StoresFrom != runID {
				t.Errorf("serve record of pool %d: stores_from %q, want %s", r.Serve.Pool, r.StoresFrom, runID)
			}
			if r.Serve.Pool == 3 {
				r.StoresFrom = r.Study
			}
		}
	}
	out.Reset()
	if err := report.Tables(&out, recs); err != nil {
		t.Fatal(err)
	}
	if want := "fake served the stores kept by study " + runID + " with pools 0, and stores it made again (after a resume; that create is not recorded) with pools 3."; !strings.Contains(out.String(), want) {
		t.Errorf("serve tables lack %q:\n%s", want, out.String())
	}

	// Stores of another workload are not taken: serve makes its own.
	c.Out = filepath.Join(t.TempDir(), "run2.jsonl")
	c.Workload.Objects = 12
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	sc.Out = filepath.Join(t.TempDir(), "serve2.jsonl")
	if _, err := Run(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	recs, err = results.ReadFile(sc.Out)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Phase == job.PhaseCreate && (r.Status != results.StatusOK || r.StoresFrom != "" || len(r.CreateMs) != sc.Stores) {
			t.Errorf("create beside stores of another workload: %s from %q, %d samples", r.Status, r.StoresFrom, len(r.CreateMs))
		}
	}
}

// TestServePoolTime: a serve study with a time limit per pool step
// (--pool-time) hands it to the worker; a step that reaches it stops early
// and its record says so, with the requests done and the limit, and the
// pool's hits it is checked against of those requests only (a record
// that counted every planned request's is refused when read). (fake_slow
// opens a store in 20 ms: pool 0's 5,000 requests would take a minute.)
func TestServePoolTime(t *testing.T) {
	c := fakeConfig(t, "fake_slow")
	c.Stores, c.Hold = 40, 2
	c.Serve = &results.ServeConfig{Pools: []int{0, 2}, Requests: 5000, Concurrency: 2, Zipf: 1.1, PoolTimeS: 0.3}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range recs {
		if r.Phase != job.PhaseServe {
			continue
		}
		n++
		s := r.Serve
		if r.Status != results.StatusOK || !s.StoppedEarly || s.Done >= s.Requests || s.Requests != 5000 || s.PoolTimeS != 0.3 {
			t.Errorf("serve record: %s, stopped early %v, done %d of %d, limit %v s; want ok, stopped early with fewer than 5000 done, limit 0.3 s",
				r.Status, s.StoppedEarly, s.Done, s.Requests, s.PoolTimeS)
		}
		if s.LRUHits > int64(s.Done) {
			t.Errorf("pool %d: %d LRU hits of %d requests done", s.Pool, s.LRUHits, s.Done)
		}
	}
	if n != 2 {
		t.Fatalf("%d serve records, want 2", n)
	}
}

// TestServeUnderMemoryMax runs serve --memory-max with fake_hog (8 MiB
// per open store) under a 64 MiB limit: without a pool the step runs and
// records its cgroup's figures; a pool of all 20 stores (160 MiB) is
// ended by the OOM killer, recorded as oom-killed, not as a failure, and
// the study goes on and succeeds. Needs root (a memory cgroup).
func TestServeUnderMemoryMax(t *testing.T) {
	if testing.Short() {
		t.Skip("makes memory cgroups and waits for their figures; skipped under -short")
	}
	c := fakeConfig(t, "fake_hog")
	c.Cgroups = nil // the machine's
	g, err := c.cgroups().New(cgroupPrefix)
	if errors.Is(err, memcg.ErrUnavailable) && os.Geteuid() != 0 {
		t.Skipf("not root, so no cgroup can be made: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	c.Stores, c.Hold = 20, 1
	c.Serve = &results.ServeConfig{Pools: []int{0, 20}, Requests: 200, Concurrency: 1, Zipf: 1.1, MemoryMaxBytes: 64 << 20}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatalf("a study whose pool was OOM-killed: %v", err)
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	byPool := map[int]results.Record{}
	var failedS float64 = -1
	for _, r := range recs {
		if r.Phase == job.PhaseServe && r.Serve != nil {
			byPool[r.Serve.Pool] = r
		}
		if r.Phase == job.PhaseEnd && r.Budget != nil {
			failedS = r.Budget.Failed
		}
	}
	// The killed worker's time is not counted as manydb's own work.
	if failedS <= 0 {
		t.Errorf("time budget: %v s in workers that failed, want the OOM-killed worker's time", failedS)
	}
	r0, r20 := byPool[0], byPool[20]
	if r0.Serve == nil {
		t.Fatalf("no serve record of pool 0: %s %q", r0.Status, r0.Error)
	}
	if r0.Status != results.StatusOK || r0.Serve.Limit == nil || r0.Serve.Limit.LimitBytes != 64<<20 || r0.Serve.Limit.OOMKills != 0 {
		t.Errorf("pool 0 under 64 MiB: %s %q, limit %+v", r0.Status, r0.Error, r0.Serve.Limit)
	}
	if r20.Status != results.StatusOOMKilled || r20.Serve == nil || r20.Serve.Limit == nil || r20.Serve.Limit.OOMKills < 1 {
		t.Fatalf("pool of 20 stores of 8 MiB under 64 MiB: %s %q, serve %+v", r20.Status, r20.Error, r20.Serve)
	}
	if !strings.Contains(r20.Error, "OOM killer") {
		t.Errorf("oom-killed record's error: %q", r20.Error)
	}
	var out strings.Builder
	if err := report.Tables(&out, recs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"limited to 64MiB", "| Memory limit (cgroup) | 64MiB (v", "| OOM kills | 0 |", "| OOM kills | 1 |",
		"| Latency p50 | OOM-killed |", "| 20 | OOM-killed |", "fake_hog, pool of 20: the OOM killer ended the worker at its memory limit of 64MiB"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("serve tables lack %q:\n%s", want, out.String())
		}
	}
}

// dropLines removes from the results file out the lines drop says to,
// as a kill or a hand edit would leave it.
func dropLines(t *testing.T, out string, drop func(line string) bool) {
	t.Helper()
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if !drop(l) {
			kept = append(kept, l)
		}
	}
	if err := os.WriteFile(out, []byte(strings.Join(kept, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestServeLayouts: manydb serve in both layouts serves the shared store
// of a variant whose shared store serves concurrent requests, every
// answer checked, and records a variant whose family says it cannot n/a
// there with that reason.
func TestServeLayouts(t *testing.T) {
	c := fakeConfig(t, "fake", "fake_slow")
	c.Hold = 5
	c.Layouts = []job.Layout{job.LayoutPerAgent, job.LayoutShared}
	c.Catalog = []engine.Family{{Binary: "worker-fake", Variants: fakeVariants, Cgo: true,
		NoSharedServe: map[string]string{"fake_slow": "one connection for a slow fake"}}}
	c.Serve = &results.ServeConfig{Pools: []int{0, 3}, Requests: 100, Concurrency: 4, Zipf: 1.1}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]int{}
	for _, r := range recs {
		if r.Phase != job.PhaseServe {
			continue
		}
		key := r.Variant + " " + r.Layout.Name()
		switch {
		case key == "fake_slow shared":
			if r.Status != results.StatusNotApplicable || r.Error != "one connection for a slow fake" {
				t.Errorf("fake_slow shared: %s %q, want n/a with the catalog's reason", r.Status, r.Error)
			}
		case r.Status != results.StatusOK || r.Serve.Hits+r.Serve.Opens != 100:
			t.Errorf("%s pool %d: %s %s %+v", key, r.Serve.Pool, r.Status, r.Error, r.Serve)
		default:
			served[key]++
		}
	}
	for _, key := range []string{"fake per-agent", "fake shared", "fake_slow per-agent"} {
		if served[key] != 2 {
			t.Errorf("%s: %d pools served, want 2", key, served[key])
		}
	}
}
