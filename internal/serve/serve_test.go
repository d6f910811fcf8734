package serve

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"manydb/internal/engine"
	"manydb/internal/engines/fakeengine"
)

// fakeStore is a store of the fake engine below: a null store
// (fakeengine.Null) whose Close counts what is open.
type fakeStore struct {
	engine.Store
	i int
	e *fakeEngine
}

func (s *fakeStore) Close() error {
	s.e.open.Add(-1)
	s.e.mu.Lock()
	s.e.log = append(s.e.log, fmt.Sprintf("close %d", s.i))
	s.e.mu.Unlock()
	return nil
}

// fakeEngine is a FAKE engine for the pool's tests: it records opens and
// closes, the most stores open at once and whether a store was used by
// two requests at once.
type fakeEngine struct {
	open, maxOpen atomic.Int64
	inUse         []atomic.Int32
	overlap       atomic.Bool
	sleep         time.Duration
	mu            sync.Mutex
	log           []string
	// stall, when set, stalls the whole engine once (stall.hold).
	stall *stall
}

// stall stops every request of an engine for a while, as a checkpoint
// or a global lock would: the request that arrives at it holds the gate
// shut for its length, and the others wait at the gate.
type stall struct {
	at       int64         // the arrival (1, 2, …) that stalls the engine
	length   time.Duration // how long it stays stalled at most
	until    int64         // if above 0, the stall ends once this many requests arrived in it
	arrivals atomic.Int64
	on       atomic.Bool
	during   atomic.Int64 // requests that arrived while it was stalled
	gate     sync.RWMutex
}

// hold is one request's pass through the stalled engine's gate.
func (s *stall) hold() {
	if n := s.arrivals.Add(1); n == s.at {
		s.gate.Lock()
		s.on.Store(true)
		s.wait()
		s.on.Store(false)
		s.gate.Unlock()
		return
	}
	if s.on.Load() {
		s.during.Add(1)
	}
	s.gate.RLock()
	s.gate.RUnlock()
}

// wait keeps the engine stalled for s.length, or until s.until requests
// arrived in the stall: a count, not a time, ends it, so that a busy
// machine cannot make the test pass or fail.
func (s *stall) wait() {
	deadline := time.Now().Add(s.length)
	for time.Now().Before(deadline) && (s.until == 0 || s.during.Load() < s.until) {
		time.Sleep(time.Millisecond)
	}
}

func newFake(stores int) *fakeEngine { return &fakeEngine{inUse: make([]atomic.Int32, stores)} }

func (e *fakeEngine) funcs() Funcs {
	return Funcs{
		Open: func(i int) (engine.Store, error) {
			n := e.open.Add(1)
			for m := e.maxOpen.Load(); n > m && !e.maxOpen.CompareAndSwap(m, n); m = e.maxOpen.Load() {
			}
			e.mu.Lock()
			e.log = append(e.log, fmt.Sprintf("open %d", i))
			e.mu.Unlock()
			s, err := fakeengine.NewNull(0).Open("")
			return &fakeStore{Store: s, i: i, e: e}, err
		},
		NewTurn: func() Turn {
			return func(i int, s engine.Store) error {
				if e.inUse[i].Add(1) > 1 {
					e.overlap.Store(true)
				}
				if e.stall != nil {
					e.stall.hold()
				}
				time.Sleep(e.sleep)
				e.inUse[i].Add(-1)
				return nil
			}
		},
	}
}

// TestLRU: with one goroutine and a pool of 2, the hits and the order of
// opens and closes are those of an LRU cache.
func TestLRU(t *testing.T) {
	e := newFake(4)
	seq := []int{0, 1, 0, 2, 0, 1, 3, 3}
	res, err := run(Config{Stores: 4, Requests: len(seq), Concurrency: 1, Pool: 2, Zipf: 1.1}, e.funcs(), nil, seq)
	if err != nil {
		t.Fatal(err)
	}
	// 0 miss, 1 miss, 0 hit, 2 miss (closes 1), 0 hit, 1 miss (closes 2),
	// 3 miss (closes 0), 3 hit; at the end 1 and 3 are closed.
	if res.Hits != 3 || res.Opens != 5 || res.Closes != 3 {
		t.Errorf("hits %d, opens %d, closes %d; want 3, 5, 3", res.Hits, res.Opens, res.Closes)
	}
	want := "[open 0 open 1 open 2 close 1 open 1 close 2 open 3 close 0]"
	if got := fmt.Sprint(e.log[:8]); got != want {
		t.Errorf("log %s, want %s", got, want)
	}
	if res.Latency.TotalCount() != int64(len(seq)) {
		t.Errorf("%d latencies recorded, want %d", res.Latency.TotalCount(), len(seq))
	}
	if e.open.Load() != 0 {
		t.Errorf("%d stores left open", e.open.Load())
	}
}

// TestNoPoolOpensEveryRequest: pool 0 opens and closes once per request.
func TestNoPoolOpensEveryRequest(t *testing.T) {
	e := newFake(3)
	res, err := run(Config{Stores: 3, Requests: 6, Concurrency: 1, Zipf: 1.1}, e.funcs(), nil, []int{0, 0, 1, 1, 2, 0})
	if err != nil || res.Hits != 0 || res.Opens != 6 || res.Closes != 6 || e.maxOpen.Load() != 1 {
		t.Fatalf("err %v, hits %d, opens %d, closes %d, max open %d", err, res.Hits, res.Opens, res.Closes, e.maxOpen.Load())
	}
}

// TestConcurrentPool: with 8 goroutines on hot stores, no store serves two
// requests at once, and no more than pool + goroutines stores are open.
func TestConcurrentPool(t *testing.T) {
	e := newFake(50)
	e.sleep = 100 * time.Microsecond
	c := Config{Stores: 50, Requests: 3000, Warmup: 100, Concurrency: 8, Pool: 5, Zipf: 1.2, Seed: 7}
	res, err := Run(c, e.funcs())
	if err != nil {
		t.Fatal(err)
	}
	if e.overlap.Load() {
		t.Error("a store served two requests at once")
	}
	if m := e.maxOpen.Load(); m > int64(c.Pool+c.Concurrency) {
		t.Errorf("%d stores open at once, pool %d + %d goroutines", m, c.Pool, c.Concurrency)
	}
	if res.Latency.TotalCount() != int64(c.Requests) || res.Hits+res.Opens != int64(c.Requests) {
		t.Errorf("%d latencies, %d hits + %d opens; want %d requests", res.Latency.TotalCount(), res.Hits, res.Opens, c.Requests)
	}
	if e.open.Load() != 0 {
		t.Errorf("%d stores left open", e.open.Load())
	}
}

// TestOpenLoopCountsFromTheSchedule: every request is due at once and one
// goroutine serves them, each taking at least 2 ms: the k-th waited for
// the k before it, so the slowest latency is at least 49 × 2 ms, where the
// closed loop measures each request alone.
func TestOpenLoopCountsFromTheSchedule(t *testing.T) {
	e := newFake(1)
	e.sleep = 2 * time.Millisecond
	seq := make([]int, 50)
	open, err := run(Config{Stores: 1, Requests: 50, Concurrency: 1, Pool: 1, Zipf: 1.1, Rate: 1e9}, e.funcs(), nil, seq)
	if err != nil {
		t.Fatal(err)
	}
	if max := time.Duration(open.Latency.Max()) * time.Microsecond; max < 98*time.Millisecond {
		t.Errorf("open loop: slowest latency %v, want at least 98 ms (queued behind 49 requests of 2 ms)", max)
	}
	if min := time.Duration(open.Latency.Min()) * time.Microsecond; min < 2*time.Millisecond {
		t.Errorf("open loop: fastest latency %v, below one request's 2 ms", min)
	}
}

func TestSequenceIsSeededAndSkewed(t *testing.T) {
	a, b := Sequence(1000, 5000, 1.1, 3), Sequence(1000, 5000, 1.1, 3)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("same seed, different sequences")
	}
	counts := map[int]int{}
	for _, i := range a {
		counts[i]++
	}
	top := 0
	for _, n := range counts {
		top = max(top, n)
	}
	// Under Zipf s = 1.1 over 1,000 agents the hottest gets far more than
	// the 5 requests a uniform draw would give it.
	if top < 100 || len(counts) < 100 {
		t.Errorf("hottest agent %d requests, %d agents drawn", top, len(counts))
	}
}

func TestValidate(t *testing.T) {
	good := Config{Stores: 1, Requests: 1, Concurrency: 1, Zipf: 1.1}
	for name, c := range map[string]Config{
		"stores": {Requests: 1, Concurrency: 1, Zipf: 1.1}, "zipf": {Stores: 1, Requests: 1, Concurrency: 1, Zipf: 1},
		"concurrency": {Stores: 1, Requests: 1, Zipf: 1.1}, "pool": {Stores: 1, Requests: 1, Concurrency: 1, Zipf: 1.1, Pool: -1},
	} {
		if c.Validate() == nil {
			t.Errorf("%s: accepted %+v", name, c)
		}
	}
	if err := good.Validate(); err != nil {
		t.Error(err)
	}
}

// TestTimeLimit: a run whose time limit passes long before its requests
// are served stops early; its figures are of the requests done, which the
// histogram counts. Without a limit every request is served. (The limit is
// 1/500 of the time the requests would take, so the test does not depend
// on the machine's speed.)
func TestTimeLimit(t *testing.T) {
	e := newFake(50)
	e.sleep = time.Millisecond
	c := Config{Stores: 50, Requests: 50000, Concurrency: 2, Pool: 5, Zipf: 1.1, Seed: 1, TimeLimit: 50 * time.Millisecond}
	res, err := Run(c, e.funcs())
	if err != nil {
		t.Fatal(err)
	}
	if !res.StoppedEarly || res.Done < 1 || res.Done >= c.Requests || res.Requests != c.Requests {
		t.Fatalf("stopped early %v, done %d of %d (asked %d); want stopped with 0 < done < %d", res.StoppedEarly, res.Done, res.Requests, c.Requests, c.Requests)
	}
	if got := res.Latency.TotalCount(); got != int64(res.Done) {
		t.Errorf("histogram counts %d requests, done %d", got, res.Done)
	}
	if res.Hits+res.Opens != int64(res.Done) {
		t.Errorf("hits %d + opens %d != done %d", res.Hits, res.Opens, res.Done)
	}
	if e.open.Load() != 0 {
		t.Errorf("%d stores left open", e.open.Load())
	}

	// The limit passes in the warm-up: nothing is recorded.
	c.Warmup, c.Requests = 50000, 10
	res, err = Run(c, e.funcs())
	if err != nil {
		t.Fatal(err)
	}
	if !res.StoppedEarly || res.Done != 0 || res.Latency.TotalCount() != 0 {
		t.Errorf("limit in the warm-up: stopped early %v, done %d, histogram %d; want true, 0, 0", res.StoppedEarly, res.Done, res.Latency.TotalCount())
	}

	e.sleep = 0
	c = Config{Stores: 50, Requests: 500, Warmup: 25, Concurrency: 2, Pool: 5, Zipf: 1.1, Seed: 1}
	if res, err = Run(c, e.funcs()); err != nil {
		t.Fatal(err)
	}
	if res.StoppedEarly || res.Done != c.Requests || res.Latency.TotalCount() != int64(c.Requests) {
		t.Errorf("no limit: stopped early %v, done %d, histogram %d; want false, %d, %d", res.StoppedEarly, res.Done, res.Latency.TotalCount(), c.Requests, c.Requests)
	}
	// The open loop: 50,000 requests at 10,000 per second would take 5 s;
	// none starts after the limit of 50 ms.
	c = Config{Stores: 50, Requests: 50000, Concurrency: 2, Pool: 5, Zipf: 1.1, Seed: 1, Rate: 10000, TimeLimit: 50 * time.Millisecond}
	if res, err = Run(c, e.funcs()); err != nil {
		t.Fatal(err)
	}
	if !res.StoppedEarly || res.Done < 1 || res.Done >= c.Requests || res.Latency.TotalCount() != int64(res.Done) {
		t.Errorf("open loop: stopped early %v, done %d, histogram %d; want stopped with 0 < done < %d, all recorded", res.StoppedEarly, res.Done, res.Latency.TotalCount(), c.Requests)
	}
	if err := (Config{Stores: 1, Requests: 1, Concurrency: 1, Zipf: 1.1, TimeLimit: -time.Second}).Validate(); err == nil {
		t.Error("a negative time limit was accepted")
	}
}

// stalledRun serves 2,000 requests, each on a store of its own (so none
// waits for another's store), on an engine that stalls for 100 ms at the
// 100th request, at rate (0: a closed loop of 8 goroutines), and returns
// the result and the requests that arrived during the stall.
func stalledRun(t *testing.T, rate float64) (Result, int64) {
	t.Helper()
	e := newFake(2000)
	e.stall = &stall{at: 100, length: 100 * time.Millisecond}
	if rate > 0 { // the open loop: stalled until stallArrivals more requests reached the engine
		e.stall.length, e.stall.until = time.Minute, stallArrivals
	}
	c := Config{Stores: 2000, Requests: 2000, Concurrency: 8, Pool: 2000, Zipf: 1.1, Rate: rate}
	seq := make([]int, c.Requests)
	for k := range seq {
		seq[k] = k
	}
	res, err := run(c, e.funcs(), nil, seq)
	if err != nil {
		t.Fatal(err)
	}
	if res.Done != c.Requests || res.Latency.TotalCount() != int64(c.Requests) {
		t.Fatalf("rate %g: %d requests done, %d recorded; want %d", rate, res.Done, res.Latency.TotalCount(), c.Requests)
	}
	return res, e.stall.during.Load()
}

// stallArrivals is how many requests must reach the stalled engine in
// the open loop before the stall ends: at 5,000 requests/s the last of
// them falls due 20 ms after the stall began, however busy the machine.
const stallArrivals = 100

// TestStallShowsInTheOpenLoop: an engine that stalls. The closed loop's
// 8 goroutines all wait in a stall of 100 ms and send nothing meanwhile,
// so at most 8 of 2,000 requests are slow and its p99 does not see the
// stall. In the open loop at 5,000 requests/s the stall lasts until 100
// requests fell due and reached the engine (at least 20 ms by the
// schedule); each counts from its due time, so the first 50 waited at
// least 10 ms and the p99 (the 20th slowest of 2,000) does too.
func TestStallShowsInTheOpenLoop(t *testing.T) {
	closed, _ := stalledRun(t, 0)
	if p99 := closed.Latency.ValueAtQuantile(99); p99 >= 50_000 {
		t.Errorf("closed loop: p99 %d µs, want under 50,000 µs (at most 8 requests in the stall)", p99)
	}
	open, _ := stalledRun(t, 5000)
	if p99 := open.Latency.ValueAtQuantile(99); p99 < 10_000 {
		t.Errorf("open loop: p99 %d µs, want at least 10,000 µs (the requests due in the stall's first 10 ms)", p99)
	}
}

// TestOpenLoopKeepsTheSchedule: while the engine stalls, the schedule
// goes on handing out the requests due, each on a sender of its own, so
// that 100 of them reach the stalled engine (the stall waits for them, a
// minute at most); the closed loop's 8 goroutines send at most 7 more
// once the first is stalled.
func TestOpenLoopKeepsTheSchedule(t *testing.T) {
	closed, during := stalledRun(t, 0)
	if during > 7 || closed.Senders != 8 {
		t.Errorf("closed loop: %d requests arrived in the stall, %d senders; want at most 7 and 8", during, closed.Senders)
	}
	open, during := stalledRun(t, 5000)
	t.Logf("open loop: %d requests arrived in the stall, %d senders", during, open.Senders)
	if during < stallArrivals {
		t.Errorf("open loop: %d requests arrived in the stall in a minute, want %d", during, stallArrivals)
	}
	if open.Senders <= int(during) || open.Senders > MaxSenders {
		t.Errorf("open loop: %d senders for %d requests waiting at once, want more (at most %d)", open.Senders, during, MaxSenders)
	}
	if r := open.AchievedRate(); !(r > 0 && r <= 5000) {
		t.Errorf("open loop: achieved %g requests/s, want above 0 and at most the offered 5,000", r)
	}
}
