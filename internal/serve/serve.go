// Package serve is the load generator of manydb serve: agents' requests
// drawn from a Zipf distribution, served by G goroutines from a pool of at
// most P open stores (least recently used closed first; P = 0 opens and
// closes on every request), one request per store at a time, each
// request's latency recorded in an HDR histogram. It knows stores only
// through the Open and Turn functions it is given, so tests drive it with
// a fake engine and the worker with a real one.
package serve

import (
	"container/list"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"manydb/internal/engine"
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
	// start + k/Rate and its latency counts from then.
	Rate float64
}

// Validate checks c.
func (c Config) Validate() error {
	switch {
	case c.Stores < 1:
		return fmt.Errorf("need at least one store")
	case c.Requests < 1:
		return fmt.Errorf("need at least one request")
	case c.Warmup < 0 || c.Pool < 0:
		return fmt.Errorf("warm-up and pool must not be negative")
	case c.Concurrency < 1:
		return fmt.Errorf("concurrency %d: need at least one goroutine", c.Concurrency)
	case !(c.Zipf > 1) || math.IsInf(c.Zipf, 1):
		return fmt.Errorf("zipf %v: the exponent must be a finite number above 1", c.Zipf)
	case !(c.Rate >= 0) || math.IsInf(c.Rate, 1):
		return fmt.Errorf("rate %v: use a finite number of requests per second, or 0 for a closed loop", c.Rate)
	}
	return nil
}

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

// Funcs are what a request does with a store.
type Funcs struct {
	// Open opens store i.
	Open func(i int) (engine.Store, error)
	// Turn serves one request on store i, open in s.
	Turn func(i int, s engine.Store) error
	// Done, when set, is called after each request (warm-up ones too),
	// outside its latency: the worker counts them for its progress lines.
	Done func()
}

// Result is what a serve run measured.
type Result struct {
	Latency  *hdrhistogram.Histogram // µs, recorded requests
	Wall     time.Duration           // of the recorded requests
	Hits     int64                   // recorded requests whose store was open
	Opens    int64                   // during the recorded requests
	Closes   int64                   // during the recorded requests
	MaxOpen  int64                   // most stores open at once
	Requests int
}

// Run serves the warm-up and the recorded requests and returns what the
// recorded ones measured. The first error stops the run. Every store still
// open at the end is closed.
func Run(c Config, f Funcs) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	return run(c, f, Sequence(c.Stores, c.Warmup+c.Requests, c.Zipf, c.Seed))
}

// run serves the requests of seq: the first c.Warmup unrecorded.
func run(c Config, f Funcs, seq []int) (Result, error) {
	p := newPool(c.Stores, c.Pool, f.Open)
	var res Result
	res.Requests = c.Requests
	var err error
	if c.Warmup > 0 {
		if _, err = p.serve(c, f, seq[:c.Warmup], false); err != nil {
			return res, errors.Join(err, p.closeAll())
		}
	}
	p.reset()
	start := time.Now()
	res.Latency, err = p.serve(c, f, seq[c.Warmup:], true)
	res.Wall = time.Since(start)
	res.Hits, res.Opens, res.Closes, res.MaxOpen = p.hits.Load(), p.opens.Load(), p.closes.Load(), p.maxOpen.Load()
	return res, errors.Join(err, p.closeAll())
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
// schedule (open loop) and returns their latencies when record is set.
func (p *pool) serve(c Config, f Funcs, seq []int, record bool) (*hdrhistogram.Histogram, error) {
	hists := make([]*hdrhistogram.Histogram, c.Concurrency)
	var next atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var stop atomic.Bool
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		stop.Store(true)
	}
	start := time.Now()
	due := func(k int) time.Time { return start.Add(time.Duration(float64(k) / c.Rate * float64(time.Second))) }
	var wg sync.WaitGroup
	for g := 0; g < c.Concurrency; g++ {
		h := hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
		hists[g] = h
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				k := int(next.Add(1) - 1)
				if k >= len(seq) {
					return
				}
				t0 := time.Now()
				if c.Rate > 0 {
					// Open loop: latency counts from when the request was
					// due, so a queue behind a slow engine is measured.
					t0 = due(k)
					if d := time.Until(t0); d > 0 {
						time.Sleep(d)
					}
				}
				if err := p.request(f, seq[k]); err != nil {
					fail(err)
					return
				}
				if record {
					h.RecordValue(max(1, time.Since(t0).Microseconds()))
				}
				if f.Done != nil {
					f.Done()
				}
			}
		}()
	}
	wg.Wait()
	all := hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
	for _, h := range hists {
		all.Merge(h)
	}
	return all, firstErr
}

// request serves one request on store i: wait for the store, take it from
// the pool or open it, run the turn, give it back.
func (p *pool) request(f Funcs, i int) error {
	p.locks[i].Lock()
	defer p.locks[i].Unlock()
	e, err := p.get(i)
	if err != nil {
		return err
	}
	terr := f.Turn(i, e.s)
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
