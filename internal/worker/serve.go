package worker

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/memcg"
	"manydb/internal/results"
	"manydb/internal/serve"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// sampleEvery is how often the serve phase samples the process.
const sampleEvery = 250 * time.Millisecond

// serveRun serves agent traffic on the job's stores (internal/serve):
// each request opens its agent's store or takes it from the pool, reads
// its 20 newest notes, appends one and gives it back. With embeddings it
// also recalls between the two: a knn query for the embedding of the
// newest note it read (serveKNN; its recall is not computed, which would
// take longer than the request). The first request on
// a store in this process checks the notes it finds against the workload;
// every later one must find the note the request before it appended
// first. A warm-up of 5 % of the requests is not recorded. With a time
// limit (--pool-time) the phase stops early once it has passed since the
// warm-up began; its record says how many requests were done, and its
// figures are of those. With a memory cgroup (serve --memory-max) the
// worker moves into it first and evicts every store's files from the page
// cache, so the pages its requests read are charged to it, as in a new
// container; without one it starts warm, as a warm open run does
// (serveCache).
func serveRun(j job.Job, v engine.Variant, rec *results.Record, loop *storeLoop) error {
	sj := j.Serve
	dirs, open := storeDirs(j), opener(v)
	fs := filesOf(v)
	if err := serveCache(j, fs, dirs, rec, loop); err != nil {
		return err
	}
	server := serverOf(v)
	base, _, err := readServed(server)
	if err != nil {
		return err
	}
	c := serve.Config{Stores: j.Stores, Requests: sj.Requests, Warmup: serve.Warmup(sj.Requests), Concurrency: sj.Concurrency,
		Pool: sj.Pool, Zipf: sj.Zipf, Seed: j.Seed, Rate: sj.Rate, TimeLimit: sj.PoolTime}
	spec := j.Workload
	var search *knnSearch // with embeddings: how the variant's knn asks
	if spec.Dims > 0 {
		k, err := newKNN(j, v)
		if err != nil {
			return err
		}
		search, rec.KNNAsked = &k.knnSearch, k.asked()
	}
	f := serve.Funcs{
		Open: func(i int) (engine.Store, error) { return open(i, dirs[i]) },
		Turn: serveTurn(spec, make([]int64, j.Stores), search),
	}
	var done atomic.Int64
	f.Done = func() { done.Add(1) }
	stopReport := reportRequests(&loop.progress, &done, c.Warmup+c.Requests)
	samples := startSampling(sampleEvery, server)
	res, err := serve.Run(c, f)
	smp := samples.stop()
	stopReport()
	if err != nil {
		return err
	}
	if err := warmAfter(j, fs, dirs, rec); err != nil {
		return err
	}
	hist, err := res.Latency.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return fmt.Errorf("encode the histogram: %w", err)
	}
	q := func(pct float64) float64 { return float64(res.Latency.ValueAtQuantile(pct)) / 1000 }
	rec.Serve = &results.Serve{Pool: sj.Pool, Requests: sj.Requests, Warmup: c.Warmup, Concurrency: sj.Concurrency,
		Zipf: sj.Zipf, Seed: j.Seed, Rate: sj.Rate, Histogram: hist,
		PoolTimeS: sj.PoolTime.Seconds(), StoppedEarly: res.StoppedEarly, Done: res.Done,
		P50Ms: q(50), P90Ms: q(90), P99Ms: q(99), P999Ms: q(99.9), MaxMs: float64(res.Latency.Max()) / 1000,
		WallS: res.Wall.Seconds(), Hits: res.Hits, Opens: res.Opens, Closes: res.Closes, MaxOpen: res.MaxOpen,
		SampleMs: int(sampleEvery / time.Millisecond), RssKB: smp.rss, AnonKB: smp.anon, Threads: smp.threads, FDs: smp.fds,
		BaseRssKB: base.RssKB, ServerProcesses: smp.serverProcs}
	return nil
}

// serveCache readies the page cache for serve: under a memory cgroup the
// worker joins it and evicts every store's files (a new container reads
// them in, charged to it); otherwise the phase is a warm one, its stores
// read in first when the job says so and their residency sampled before
// (warmBefore) and after (warmAfter) the requests.
func serveCache(j job.Job, fs filer, dirs []string, rec *results.Record, loop *storeLoop) error {
	if j.Cgroup == "" {
		return warmBefore(j, fs, dirs, rec, loop)
	}
	if err := memcg.Open(j.Cgroup).Join(os.Getpid()); err != nil {
		return err
	}
	for i, dir := range distinct(dirs) {
		if err := measure.Evict(dir); err != nil {
			return storeError(j, i, "evict from the page cache", err)
		}
	}
	return nil
}

// serveTurn returns serve's request on store i, open as s: recent, then
// (search not nil) a knn query, then an append. newest[i] is the note the
// last request on store i appended (0: none yet), guarded by the pool's
// lock of each store.
func serveTurn(spec workload.Spec, newest []int64, search *knnSearch) func(i int, s engine.Store) error {
	return func(i int, s engine.Store) error {
		notes, err := s.Recent(job.RecentN, make([]workload.Note, 0, job.RecentN))
		if err != nil {
			return fmt.Errorf("recent: %w", err)
		}
		if len(notes) == 0 {
			return fmt.Errorf("recent returned no note")
		}
		top := notes[0].ID
		if newest[i] != 0 && top != newest[i] {
			return fmt.Errorf("recent returned note %d first, but the last request appended note %d", top, newest[i])
		}
		if top < int64(spec.Objects) {
			return fmt.Errorf("recent returned note %d first, but the store was made with %d", top, spec.Objects)
		}
		for k, n := range notes {
			if err := spec.Check(i, top-int64(k), n); err != nil {
				return fmt.Errorf("recent: %w", err)
			}
		}
		if search != nil {
			if err := serveKNN(s, spec.Embedder(i).Note(top, make([]float32, spec.Dims)), top, *search); err != nil {
				return err
			}
		}
		note := spec.TurnNote(i, int(top)-spec.Objects+1)
		if err := s.Append(note); err != nil {
			return fmt.Errorf("append: %w", err)
		}
		newest[i] = note.ID
		return nil
	}
}

// reportRequests prints, while serve runs, a progress line every
// progressEvery in which requests were done: done of total requests, the
// warm-up's included. These are the watchdog's heartbeat (a serve run
// has no store loop). stop ends it with a last line.
func reportRequests(p *progress, done *atomic.Int64, total int) (stop func()) {
	if p.w == nil {
		return func() {}
	}
	quit, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		last := int64(0)
		for {
			select {
			case <-quit:
				p.line(int(done.Load()), total)
				return
			case <-t.C:
			}
			if n := done.Load(); n != last {
				last = n
				p.line(int(n), total)
			}
		}
	}()
	return func() {
		close(quit)
		<-ended
	}
}

// sampler samples the process' memory, threads and open files.
type sampler struct {
	server      serverProcs // nil for an engine in the worker
	serverProcs int         // server processes at the last sample
	done        chan struct{}
	wg          sync.WaitGroup
	rss         []int64
	anon        []int64
	threads,
	fds []int
}

func startSampling(every time.Duration, server serverProcs) *sampler {
	s := &sampler{done: make(chan struct{}), server: server}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *sampler) sample() {
	m, procs, err1 := readServed(s.server)
	th, err2 := measure.Threads()
	fd, err3 := measure.OpenFiles()
	if err1 == nil && err2 == nil && err3 == nil {
		s.rss, s.anon, s.threads, s.fds = append(s.rss, m.RssKB), append(s.anon, m.AnonKB), append(s.threads, th), append(s.fds, fd)
		s.serverProcs = procs
	}
}

// readServed reads the worker's memory and, for a store on a server, adds
// the server's processes' (their Pss to Rss, their anonymous memory to
// Anon), as the hold counts them; it returns how many server processes
// it read.
func readServed(server serverProcs) (measure.Memory, int, error) {
	m, err := measure.ReadMemory()
	if err != nil {
		return m, 0, err
	}
	sv, err := server.snapshot()
	if err != nil || sv == nil {
		return m, 0, err
	}
	m.RssKB, m.AnonKB = m.RssKB+sv.mem.PssKB, m.AnonKB+sv.mem.AnonKB
	return m, sv.processes, nil
}

// stop takes a last sample and returns all.
func (s *sampler) stop() *sampler {
	close(s.done)
	s.wg.Wait()
	s.sample()
	return s
}

// serveKNN asks s for the notes nearest to q, the embedding of its newest
// note, newest, and checks the answer: it must be possible
// (vector.CheckAnswer), and an exact search must find that note first.
// (The full check, against the exact nearest notes, would take longer
// than the request; the open runs and turns make it.)
func serveKNN(s engine.Store, q []float32, newest int64, search knnSearch) error {
	exact := search.exact
	vs, ok := s.(engine.VectorStore)
	if !ok {
		return fmt.Errorf("knn: the store is not an engine.VectorStore")
	}
	ids, err := search.keep(vs, q, make([]int64, 0, search.ask))
	if err != nil {
		return fmt.Errorf("knn: %w", err)
	}
	if err := vector.CheckAnswer(vector.K, int(newest), ids, exact); err != nil {
		return fmt.Errorf("knn: %w", err)
	}
	if exact && ids[0] != newest {
		return fmt.Errorf("knn: an exact search for note %d's own embedding returned %v, not that note first", newest, ids)
	}
	return nil
}
