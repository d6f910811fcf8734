// Package serve is the load generator of manydb serve: agents' requests
// drawn from a Zipf distribution, served by G goroutines (closed loop) or
// due on a schedule at a given rate (open loop, latency counted from each
// request's due time) from a pool of at most P open stores (least
// recently used closed first; P = 0 opens and closes on every request),
// one request per store at a time, each request's latency recorded in an
// HDR histogram. It knows stores only
// through the Open and Turn functions it is given, so tests drive it with
// a fake engine and the worker with a real one.
package serve

import (
	"container/list"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
)

// Config is one serve run.
type Config struct {
	Stores      int     // agents, one store each
	Requests    int     // recorded requests
	Warmup      int     // requests before them, not recorded
	Concurrency int     // goroutines sending requests
	Pool        int     // open stores kept between requests (0: none)
	Zipf        float64 // Zipf exponent s (> 1)
	Seed        uint64  // of the agents' sequence
	// Rate, when positive, makes an open loop: request k is due at
	// start + k/Rate and its latency counts from then; Concurrency is
	// then the senders it starts with (senders.openLoop).
	Rate float64
	// TimeLimit, when positive, bounds the run from the start of the
	// warm-up: once it has passed no new request starts (those under way
	// finish), and the run stops early with the requests done.
	TimeLimit time.Duration
	// Procs, above 1, makes the run process Proc's share of Procs
	// (--procs): of the one sequence of Warmup + Requests requests it
	// serves those for its own agents (job.Split of the stores), with
	// its own Pool and Concurrency.
	Procs, Proc int
}

// Validate checks c: its traffic by the rules of job.Serve, and its
// warm-up.
func (c Config) Validate() error {
	t := job.Serve{Pool: c.Pool, Requests: c.Requests, Concurrency: c.Concurrency, Zipf: c.Zipf, Rate: c.Rate, PoolTime: c.TimeLimit}
	if err := t.Validate(c.Stores); err != nil {
		return err
	}
	if c.Warmup < 0 {
		return fmt.Errorf("warm-up %d must not be negative", c.Warmup)
	}
	if c.Procs > 1 && c.Rate > 0 {
		return errors.New("--rate: an open loop's schedule is one process'; split a closed loop (no --rate) over processes")
	}
	if err := job.CheckProcs(c.Procs, c.Stores, "agents"); err != nil {
		return err
	}
	if c.Proc < 0 || c.Proc >= max(c.Procs, 1) {
		return fmt.Errorf("process %d of %d", c.Proc, c.Procs)
	}
	return nil
}

// Warmup returns the unrecorded requests served before requests recorded
// ones: 5 % of them.
func Warmup(requests int) int { return requests / 20 }

// Sequence returns the agents of n requests: Zipf ranks (rank 0 the
// hottest) mapped to stores through a seeded permutation, so the hot
// agents are spread over the stores.
func Sequence(stores, n int, s float64, seed uint64) []int {
	r := rand.New(rand.NewPCG(seed, 1))
	perm := r.Perm(stores)
	z := rand.NewZipf(r, s, 1, uint64(stores-1))
	seq := make([]int, n)
	for k := range seq {
		seq[k] = perm[z.Uint64()]
	}
	return seq
}

// A Turn serves one request on store i, open in s.
type Turn func(i int, s engine.Store) error

// Funcs are what a request does with a store.
type Funcs struct {
	// Open opens store i.
	Open func(i int) (engine.Store, error)
	// NewTurn makes the turn of one goroutine: each sending goroutine
	// calls it once and serves its requests with the Turn it returned, so
	// a Turn's buffers are its goroutine's own.
	NewTurn func() Turn
	// Done, when set, is called after each request (warm-up ones too),
	// outside its latency: the worker counts them for its progress lines.
	Done func()
}

// Result is what a serve run measured. When the time limit stopped it
// early, every figure is of the Done recorded requests served.
type Result struct {
	Latency  *hdrhistogram.Histogram // µs, recorded requests
	Wall     time.Duration           // of the recorded requests
	Hits     int64                   // recorded requests whose store was open
	Opens    int64                   // during the recorded requests
	Closes   int64                   // during the recorded requests
	MaxOpen  int64                   // most stores open at once
	Requests int                     // recorded requests asked for (of a share: its own)
	Warmup   int                     // warm-up requests served before (of a share: its own)
	// Done is the number of recorded requests served: Requests, or fewer
	// when the time limit stopped the run (0 if it passed in the warm-up).
	Done         int
	StoppedEarly bool // the time limit passed before every request was served
	// Senders is the goroutines that sent the recorded requests: the
	// closed loop's Concurrency, or as many as the open loop started.
	Senders int
}

// AchievedRate is the recorded requests served per second of the
// run's wall time (0 when none were).
func (r Result) AchievedRate() float64 {
	if r.Done == 0 || r.Wall <= 0 {
		return 0
	}
	return float64(r.Done) / r.Wall.Seconds()
}

// Run serves the warm-up and the recorded requests and returns what the
// recorded ones measured. The first error stops the run. Every store still
// open at the end is closed.
func Run(c Config, f Funcs) (Result, error) {
	warm, recorded := c.Agents()
	return RunAgents(c, f, warm, recorded)
}

// RunAgents is Run with c's agents drawn already (Config.Agents), for a
// caller that needs them before the run too (LRUHits).
func RunAgents(c Config, f Funcs, warm, recorded []int) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	return run(c, f, warm, recorded)
}

// RecordLatency puts the latencies of h (µs) into s: the histogram,
// encoded, and its percentiles in ms.
func RecordLatency(s *results.Serve, h *hdrhistogram.Histogram) error {
	hist, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return fmt.Errorf("encode the latency histogram: %w", err)
	}
	q := func(pct float64) float64 { return float64(h.ValueAtQuantile(pct)) / 1000 }
	s.Histogram = hist
	s.P50Ms, s.P90Ms, s.P99Ms, s.P999Ms, s.MaxMs = q(50), q(90), q(99), q(99.9), float64(h.Max())/1000
	return nil
}

// Agents is the agents of c's warm-up requests and of its recorded ones,
// in order: the whole sequence, or for a share (Procs) the requests for
// its own agents.
func (c Config) Agents() (warm, recorded []int) {
	seq := Sequence(c.Stores, c.Warmup+c.Requests, c.Zipf, c.Seed)
	warm, recorded = seq[:c.Warmup], seq[c.Warmup:]
	if c.Procs <= 1 {
		return warm, recorded
	}
	lo, hi := job.Split(c.Stores, c.Procs, c.Proc)
	return ownAgents(warm, lo, hi), ownAgents(recorded, lo, hi)
}

// ownAgents is the requests of seq for agents lo…hi-1, in order.
func ownAgents(seq []int, lo, hi int) []int {
	var own []int
	for _, a := range seq {
		if a >= lo && a < hi {
			own = append(own, a)
		}
	}
	return own
}

// run serves the warm-up's requests unrecorded, then the recorded ones.
func run(c Config, f Funcs, warm, recorded []int) (Result, error) {
	p := newPool(c.Stores, c.Pool, f.Open)
	var res Result
	res.Requests, res.Warmup = len(recorded), len(warm)
	var deadline time.Time // zero: no limit
	if c.TimeLimit > 0 {
		deadline = time.Now().Add(c.TimeLimit)
	}
	var err error
	if len(warm) > 0 {
		var served int
		if served, _, err = p.serve(c, f, warm, nil, deadline); err != nil {
			return res, errors.Join(err, p.closeAll())
		}
		if served < len(warm) {
			// The time limit passed in the warm-up: nothing recorded.
			res.Latency, res.StoppedEarly = NewHistogram(), true
			return res, p.closeAll()
		}
	}
	p.reset()
	start := time.Now()
	res.Latency = NewHistogram()
	res.Done, res.Senders, err = p.serve(c, f, recorded, res.Latency, deadline)
	res.Wall = time.Since(start)
	res.StoppedEarly = res.Done < len(recorded)
	res.Hits, res.Opens, res.Closes, res.MaxOpen = p.hits.Load(), p.opens.Load(), p.closes.Load(), p.maxOpen.Load()
	return res, errors.Join(err, p.closeAll())
}

// NewHistogram returns an empty latency histogram: 1 µs to an hour, three
// significant digits.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
}

// entry is an open store.
type entry struct {
	i    int
	s    engine.Store
	elem *list.Element // in idle while not in use
}

// pool holds the open stores.
type pool struct {
	cap   int
	open  func(i int) (engine.Store, error)
	locks []sync.Mutex // one request per store at a time

	mu     sync.Mutex
	stores map[int]*entry
	idle   *list.List // least recently used at the back

	hits, opens, closes, maxOpen atomic.Int64
}

func newPool(stores, cap int, open func(int) (engine.Store, error)) *pool {
	return &pool{cap: cap, open: open, locks: make([]sync.Mutex, stores), stores: map[int]*entry{}, idle: list.New()}
}

func (p *pool) reset() {
	p.hits.Store(0)
	p.opens.Store(0)
	p.closes.Store(0)
	p.mu.Lock()
	p.maxOpen.Store(int64(len(p.stores)))
	p.mu.Unlock()
}

// get returns store i open; the caller holds locks[i].
func (p *pool) get(i int) (*entry, error) {
	p.mu.Lock()
	if e, ok := p.stores[i]; ok {
		p.idle.Remove(e.elem)
		e.elem = nil
		p.mu.Unlock()
		p.hits.Add(1)
		return e, nil
	}
	p.mu.Unlock()
	s, err := p.open(i)
	if err != nil {
		return nil, fmt.Errorf("open store %d: %w", i, err)
	}
	p.opens.Add(1)
	e := &entry{i: i, s: s}
	p.mu.Lock()
	p.stores[i] = e
	if n := int64(len(p.stores)); n > p.maxOpen.Load() {
		p.maxOpen.Store(n)
	}
	p.mu.Unlock()
	return e, nil
}

// put gives store e back (the caller holds locks[e.i], and releases it
// after put returns) and closes the least recently used idle stores while
// more than cap are open.
func (p *pool) put(e *entry) error {
	p.mu.Lock()
	e.elem = p.idle.PushFront(e)
	var victims []*entry
	for el := p.idle.Back(); el != nil && len(p.stores)-len(victims) > p.cap; {
		v := el.Value.(*entry)
		prev := el.Prev()
		// The caller holds its own store's lock; another store whose lock
		// is taken is about to be used: skip it.
		if v == e || p.locks[v.i].TryLock() {
			p.idle.Remove(el)
			delete(p.stores, v.i)
			victims = append(victims, v)
		}
		el = prev
	}
	p.mu.Unlock()
	var err error
	for _, v := range victims {
		if cerr := v.s.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close store %d: %w", v.i, cerr)
		}
		p.closes.Add(1)
		if v != e {
			p.locks[v.i].Unlock()
		}
	}
	return err
}

// serve runs the requests of seq with c's goroutines (closed loop) or
// schedule (open loop), records their latencies into hist when it is not
// nil and returns how many were served: all of seq, or fewer when the
// deadline (unless zero) passed first, and the most goroutines that
// sent requests at once.
func (p *pool) serve(c Config, f Funcs, seq []int, hist *hdrhistogram.Histogram, deadline time.Time) (int, int, error) {
	s := newSenders(p, f, seq, hist != nil)
	if c.Rate > 0 {
		s.openLoop(c, deadline)
	} else {
		s.closedLoop(c.Concurrency, deadline)
	}
	if hist != nil {
		for _, h := range s.hists {
			hist.Merge(h)
		}
	}
	return int(s.served.Load()), len(s.hists), s.err
}

// senders are the goroutines that send one serve's requests, each with
// its own turn and histogram.
type senders struct {
	p      *pool
	f      Funcs
	seq    []int
	record bool
	hists  []*hdrhistogram.Histogram // one per goroutine started
	served atomic.Int64
	stop   atomic.Bool
	once   sync.Once
	err    error         // the first error; stop is set with it
	failed chan struct{} // closed with the first error
	wg     sync.WaitGroup
}

func newSenders(p *pool, f Funcs, seq []int, record bool) *senders {
	return &senders{p: p, f: f, seq: seq, record: record, failed: make(chan struct{})}
}

// fail keeps the first error and stops every sender.
func (s *senders) fail(err error) {
	s.once.Do(func() {
		s.err = err
		s.stop.Store(true)
		close(s.failed)
	})
}

// start starts a goroutine that serves the request indexes next gives
// (until it gives -1), each request's latency counted from the time due
// returns for it.
func (s *senders) start(next func() int, due func(k int) time.Time) {
	h := NewHistogram()
	s.hists = append(s.hists, h)
	turn := s.f.NewTurn()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for k := next(); k >= 0 && !s.stop.Load(); k = next() {
			t0 := due(k)
			if err := s.p.request(turn, s.seq[k]); err != nil {
				s.fail(err)
				return
			}
			s.served.Add(1)
			if s.record {
				h.RecordValue(max(1, time.Since(t0).Microseconds()))
			}
			if s.f.Done != nil {
				s.f.Done()
			}
		}
	}()
}

// handOut waits until request k is due and gives it to an idle
// sender, or to a new one when every sender is busy. It returns false,
// handing nothing out, when it is due past the deadline (unless zero) or a
// request failed.
func (s *senders) handOut(k int, due func(int) time.Time, deadline time.Time, work chan int, next func() int) bool {
	t := due(k)
	if s.stop.Load() || (!deadline.IsZero() && !t.Before(deadline)) {
		return false
	}
	waitUntil(t, due(k+1).Sub(t))
	if !deadline.IsZero() && !time.Now().Before(deadline) {
		return false // handed out late, behind the schedule
	}
	select {
	case work <- k:
		return true
	default: // every sender is busy
	}
	if len(s.hists) < MaxSenders {
		s.start(next, due)
	}
	select {
	case work <- k:
		return true
	case <-s.failed:
		return false
	}
}

// closedLoop: g goroutines each take the next request when the last one
// finished, and its latency counts from when it started.
func (s *senders) closedLoop(g int, deadline time.Time) {
	var taken atomic.Int64
	next := func() int {
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return -1
		}
		if k := int(taken.Add(1) - 1); k < len(s.seq) {
			return k
		}
		return -1
	}
	now := func(int) time.Time { return time.Now() }
	for range g {
		s.start(next, now)
	}
	s.wg.Wait()
}

// MaxSenders is the most goroutines an open loop starts: past it a
// request due waits for one to be free (its latency still counts from
// its due time).
const MaxSenders = 1000

// openLoop: request k is due at start + k/Rate. One goroutine keeps the
// schedule and hands each request, when due, to an idle sender; when
// none is idle it starts another (up to MaxSenders, beginning with
// c.Concurrency), so a stalled engine does not hold back the requests
// due after its stall. A request's latency counts from its due time
// (no coordinated omission). No request starts after the deadline.
func (s *senders) openLoop(c Config, deadline time.Time) {
	start := time.Now()
	due := func(k int) time.Time { return start.Add(time.Duration(float64(k) / c.Rate * float64(time.Second))) }
	work := make(chan int)
	next := func() int {
		for k := range work { // past the deadline, drain what is handed out
			if deadline.IsZero() || time.Now().Before(deadline) {
				return k
			}
		}
		return -1
	}
	for range min(c.Concurrency, MaxSenders) {
		s.start(next, due)
	}
	for k := range s.seq {
		if !s.handOut(k, due, deadline, work, next) {
			break
		}
	}
	close(work)
	s.wg.Wait()
}

// request serves one request on store i: wait for the store, take it from
// the pool or open it, run the turn, give it back.
func (p *pool) request(turn Turn, i int) error {
	p.locks[i].Lock()
	defer p.locks[i].Unlock()
	e, err := p.get(i)
	if err != nil {
		return err
	}
	terr := turn(i, e.s)
	if terr != nil {
		terr = fmt.Errorf("store %d: %w", i, terr)
	}
	return errors.Join(terr, p.put(e))
}

// closeAll closes every open store.
func (p *pool) closeAll() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var err error
	for i, e := range p.stores {
		if cerr := e.s.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close store %d: %w", i, cerr)
		}
		delete(p.stores, i)
	}
	p.idle.Init()
	return err
}

// LRUHits is how many of the recorded requests would find their store
// open in a pool of pool stores served one request after another, least
// recently used closed first, after the warm-up's requests: what the pool
// would hit without concurrency (its goroutines keep up to Concurrency
// more stores in use, and take requests out of order).
func LRUHits(warm, recorded []int, pool int) int64 {
	if pool <= 0 {
		return 0
	}
	lru := list.New()
	at := map[int]*list.Element{}
	var hits int64
	use := func(a int, count bool) {
		if e, ok := at[a]; ok {
			lru.MoveToFront(e)
			if count {
				hits++
			}
			return
		}
		at[a] = lru.PushFront(a)
		if lru.Len() > pool {
			delete(at, lru.Remove(lru.Back()).(int))
		}
	}
	for _, a := range warm {
		use(a, false)
	}
	for _, a := range recorded {
		use(a, true)
	}
	return hits
}
