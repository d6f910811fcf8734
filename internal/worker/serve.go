package worker

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"manydb/internal/datasource"
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
// newest note it read (checkServedKNN; its recall is not computed, which would
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
func serveRun(j job.Job, v engine.Variant, data datasource.Source, rec *results.Record, loop *storeLoop) error {
	sj := j.Serve
	dirs, open := storeDirs(j), opener(v)
	lo, hi := j.AgentRange()
	fs, own := filesOf(v), dirs[lo:hi]
	if err := serveCache(j, fs, own, rec, loop); err != nil {
		return err
	}
	server := serverOf(v)
	base, _, err := readServed(server)
	if err != nil {
		return err
	}
	c := serve.Config{Stores: j.Stores, Requests: sj.Requests, Warmup: serve.Warmup(sj.Requests), Concurrency: sj.Concurrency,
		Pool: sj.Pool, Zipf: sj.Zipf, Seed: j.Seed, Rate: sj.Rate, TimeLimit: sj.PoolTime, Procs: j.Procs, Proc: j.Proc}
	warm, recorded := c.Agents()
	lruHits := serve.LRUHits(warm, recorded, c.Pool) // before the run: not in its time
	turns, err := newServeTurns(j, v, data)
	if err != nil {
		return err
	}
	rec.KNNAsked = turns.asked
	f := serve.Funcs{
		Open:    func(i int) (engine.Store, error) { return open(i, dirs[i]) },
		NewTurn: turns.newTurn,
	}
	var done atomic.Int64
	f.Done = func() { done.Add(1) }
	stopReport := reportRequests(&loop.progress, &done, c.Warmup+c.Requests)
	samples := startSampling(sampleEvery, server)
	t := time.Now()
	res, err := serve.RunAgents(c, f, warm, recorded)
	smp := samples.stop()
	stopReport()
	if err != nil {
		return err
	}
	// The warm-up requests: engine calls that no sample holds.
	loop.spent.UntimedS += max(0, time.Since(t).Seconds()-res.Wall.Seconds())
	if res.StoppedEarly {
		// Stopped by --pool-time: the hits of the requests served, the
		// first Done of the recorded ones, after the run.
		lruHits = serve.LRUHits(warm, recorded[:min(res.Done, len(recorded))], c.Pool)
	}
	if err := warmAfter(j, fs, own, rec, loop); err != nil {
		return err
	}
	rec.Serve = &results.Serve{Pool: sj.Pool, Requests: res.Requests, Warmup: res.Warmup, Concurrency: sj.Concurrency, LRUHits: lruHits,
		Zipf: sj.Zipf, Seed: j.Seed, Rate: sj.Rate,
		PoolTimeS: sj.PoolTime.Seconds(), StoppedEarly: res.StoppedEarly, Done: res.Done,
		WallS: res.Wall.Seconds(), Hits: res.Hits, Opens: res.Opens, Closes: res.Closes, MaxOpen: res.MaxOpen,
		SampleMs: int(sampleEvery / time.Millisecond), RssKB: smp.rss, AnonKB: smp.anon, Threads: smp.threads, FDs: smp.fds,
		BaseRssKB: base.RssKB, ServerProcesses: smp.serverProcs}
	if sj.Rate > 0 {
		rec.Serve.AchievedRate, rec.Serve.Senders = res.AchievedRate(), res.Senders
	}
	return serve.RecordLatency(rec.Serve, res.Latency)
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

// serveTurns makes the turns of serve's goroutines: a request is the
// steps recent, knn (with embeddings) and append, each made by
// answers.run as every visit's steps are, on buffers of the goroutine's
// own. newest[i] is the note the last request on store i appended (0:
// none yet), guarded by the pool's lock of each store.
type serveTurns struct {
	j      job.Job
	v      engine.Variant
	data   datasource.Source
	steps  []job.Query
	newest []int64
	asked  int // the knn's results.Record.KNNAsked
}

func newServeTurns(j job.Job, v engine.Variant, data datasource.Source) (*serveTurns, error) {
	t := &serveTurns{j: j, v: v, data: data, steps: []job.Query{job.QueryRecent, job.QueryAppend}, newest: make([]int64, j.Stores)}
	if j.Workload.Dims > 0 {
		k, err := newKNN(j, v, data) // how the variant's knn asks, or why it cannot
		if err != nil {
			return nil, err
		}
		t.steps, t.asked = []job.Query{job.QueryRecent, job.QueryKNN, job.QueryAppend}, k.asked()
	}
	return t, nil
}

// newTurn is one goroutine's turn (serve.Funcs.NewTurn).
func (t *serveTurns) newTurn() serve.Turn {
	a := newAnswers(t.data, job.RecentN)
	if t.j.Workload.Dims > 0 {
		a.knn, _ = newKNN(t.j, t.v, t.data) // newServeTurns made one without error
	}
	return func(i int, s engine.Store) error {
		var top int64 // the newest note recent read
		for _, step := range t.steps {
			switch step {
			case job.QueryKNN:
				a.knn.drawNote(i, top)
			case job.QueryAppend:
				a.note = t.data.Turn(i, int(top)-t.j.Workload.Objects+1)
			}
			if err := a.run(step, s); err != nil {
				return fmt.Errorf("%s: %w", step, err)
			}
			var err error
			switch step {
			case job.QueryRecent:
				top, err = t.checkRecent(i, a.recent)
			case job.QueryKNN:
				err = checkServedKNN(a.knn, top)
			case job.QueryAppend:
				t.newest[i] = a.note.ID
			}
			if err != nil {
				return fmt.Errorf("%s: %w", step, err)
			}
		}
		return nil
	}
}

// checkRecent checks the notes recent returned on store i and returns
// the newest one's id: it must be the note the last request appended, or
// on the first request at least the workload's last, and every note the
// workload's.
func (t *serveTurns) checkRecent(i int, notes []workload.Note) (int64, error) {
	if len(notes) == 0 {
		return 0, fmt.Errorf("no note returned")
	}
	objects, top := t.j.Workload.Objects, notes[0].ID
	if t.newest[i] != 0 && top != t.newest[i] {
		return 0, fmt.Errorf("note %d returned first, but the last request appended note %d", top, t.newest[i])
	}
	if top < int64(objects) {
		return 0, fmt.Errorf("note %d returned first, but the store was made with %d", top, objects)
	}
	for k, n := range notes {
		if err := t.data.Check(i, top-int64(k), n); err != nil {
			return 0, err
		}
	}
	return top, nil
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

// checkServedKNN checks the answer of a knn for the embedding of note
// newest: it must be possible (vector.CheckAnswer), and an exact search
// must find that note first. (The full check, against the exact nearest
// notes, would take longer than the request; the open runs and turns make
// it.)
func checkServedKNN(k *knn, newest int64) error {
	if err := vector.CheckAnswer(vector.K, int(newest), k.ids, k.exact); err != nil {
		return err
	}
	if k.exact && k.ids[0] != newest {
		return fmt.Errorf("an exact search for note %d's own embedding returned %v, not that note first", newest, k.ids)
	}
	return nil
}
