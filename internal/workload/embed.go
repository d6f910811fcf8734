package workload

import (
	"math"
	"math/bits"
)

// The synthetic embeddings of --dims (docs/method.md, "Vectors"): each
// agent's notes lie around a few topic centres, as real text embeddings
// do, rather than uniformly at random (the worst case for graph indexes).
const (
	// MinTopics and MaxTopics bound an agent's number of topic centres,
	// drawn per agent.
	MinTopics = 8
	MaxTopics = 32
	// NoteSpread is σ unless the workload gives another (Spec.Spread): a
	// note is its topic's centre plus noise of norm about σ, so two notes
	// of one topic have a cosine of about 1/(1+σ²) = 0.5 and notes of two
	// topics about 0.
	NoteSpread = 1.0
	// MaxTopicPool and MaxSpread bound --topic-pool and --note-spread.
	MaxTopicPool = 1_000_000
	MaxSpread    = 10.0
	// QuerySpread is τ: a knn query is one of the store's notes plus noise
	// of norm about τ (a cosine of about 0.9 with that note).
	QuerySpread = 0.5
)

// The streams of the embeddings' generator, so that centres, notes and
// queries never share random numbers.
const (
	streamCentre = 1
	streamNote   = 2
	streamQuery  = 3
	streamPool   = 4 // which pool centre an agent's topic is
)

// poolAgent stands for the agent in the seed of a pool's centres, which
// belong to no agent.
const poolAgent = 1<<64 - 1

// Embedder makes the embeddings of one agent's (store's) notes: unit
// vectors of Dims float32 values, the same on every machine and Go
// version (a SplitMix64 generator and float64 arithmetic, rounded to
// float32 at the end).
type Embedder struct {
	agent   int
	dims    int
	pool    int         // Spec.TopicPool
	spread  float64     // σ
	centres [][]float64 // unit vectors, each made when a note first needs it (nil before)
	buf     []float64
}

// Embedder returns the embedder of agent i's notes; nil when the workload
// has no vectors (Dims 0).
func (s Spec) Embedder(i int) *Embedder {
	if s.Dims <= 0 {
		return nil
	}
	e := &Embedder{agent: i, dims: s.Dims, pool: s.TopicPool, spread: s.NoteSpread(), buf: make([]float64, s.Dims)}
	n := MinTopics + int(mix(uint64(i), 0, 0)%uint64(MaxTopics-MinTopics+1))
	e.centres = make([][]float64, n)
	return e
}

// centre returns topic t's centre, made on first use: a random direction
// from its own generator, so the order of use does not change it. With a
// topic pool it is the pool's centre the agent's topic t draws (PoolTopic),
// the same for every agent that draws it.
func (e *Embedder) centre(t int) []float64 {
	if e.centres[t] == nil {
		owner, index := uint64(e.agent), uint64(t)
		if e.pool > 0 {
			owner, index = poolAgent, uint64(e.PoolTopic(t))
		}
		c := make([]float64, e.dims)
		r := rng(owner, streamCentre, index)
		r.noise(c, 1)
		normalize(c)
		e.centres[t] = c
	}
	return e.centres[t]
}

// PoolTopic is the pool centre (0 … TopicPool−1) of the agent's topic t,
// drawn per agent and topic (two topics of one agent may draw the same);
// −1 without a pool.
func (e *Embedder) PoolTopic(t int) int {
	if e.pool <= 0 {
		return -1
	}
	return int(mix(uint64(e.agent), streamPool, uint64(t)) % uint64(e.pool))
}

// Topics returns the agent's number of topic centres.
func (e *Embedder) Topics() int { return len(e.centres) }

// Note writes the embedding of note id (1-based, the workload's notes and
// the appended ones alike) into dst, which must have Dims elements, and
// returns it: the centre of the note's topic (drawn per note) plus noise
// of norm about σ (Spec.NoteSpread), normalised.
func (e *Embedder) Note(id int64, dst []float32) []float32 {
	r := rng(uint64(e.agent), streamNote, uint64(id))
	c := e.centre(int(r.next() % uint64(len(e.centres))))
	copy(e.buf, c)
	r.noise(e.buf, e.spread)
	return round(e.buf, dst)
}

// Query writes a knn query vector into dst and returns it, with the id of
// the note it was drawn near: one of notes 1..total, drawn from a
// generator seeded with (seed, agent), plus noise of norm about
// QuerySpread, normalised.
func (e *Embedder) Query(seed uint64, total int, dst []float32) ([]float32, int64) {
	r := rng(seed, streamQuery, uint64(e.agent))
	id := 1 + int64(r.next()%uint64(total))
	e.Note(id, dst)
	for k, v := range dst {
		e.buf[k] = float64(v)
	}
	r.noise(e.buf, QuerySpread)
	return round(e.buf, dst), id
}

// splitmix is the SplitMix64 generator (Steele, Lea and Flood, 2014):
// fixed here so that the embeddings never change with Go's math/rand.
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// noise adds to v a vector of norm about scale: each component uniform in
// [-√3, √3]·scale/√len(v) (variance scale²/len(v)). Uniform components
// are used instead of Gaussian ones because they are cheaper to draw; in
// hundreds of dimensions their sum in any direction is Gaussian all the
// same (the central limit theorem), so distances behave alike.
func (r *splitmix) noise(v []float64, scale float64) {
	a := math.Sqrt(3) * scale / math.Sqrt(float64(len(v)))
	for k := range v {
		u := float64(r.next()>>11) / (1 << 53) // [0, 1)
		v[k] += (2*u - 1) * a
	}
}

// rng returns a generator seeded from (a, stream, b).
func rng(a, stream, b uint64) *splitmix {
	return &splitmix{s: mix(a, stream, b)}
}

// mix hashes three numbers into a seed.
func mix(a, stream, b uint64) uint64 {
	r := splitmix{s: a}
	h := r.next() ^ bits.RotateLeft64(stream*0xd6e8feb86659fd93, 17)
	r = splitmix{s: h}
	h = r.next() ^ b*0x9e3779b97f4a7c15
	r = splitmix{s: h}
	return r.next()
}

// normalize scales v to unit length.
func normalize(v []float64) {
	var n float64
	for _, x := range v {
		n += x * x
	}
	n = math.Sqrt(n)
	for k := range v {
		v[k] /= n
	}
}

// round normalises v and writes it into dst as float32.
func round(v []float64, dst []float32) []float32 {
	normalize(v)
	for k, x := range v {
		dst[k] = float32(x)
	}
	return dst
}

// NoteSpread is the workload's σ: Spread, or the default NoteSpread.
func (s Spec) NoteSpread() float64 {
	if s.Spread > 0 {
		return s.Spread
	}
	return NoteSpread
}
