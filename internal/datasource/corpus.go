package datasource

import (
	"fmt"
	"math/rand/v2"
	"unicode/utf8"

	"manydb/internal/corpus"
	"manydb/internal/workload"
)

// A store of a corpus source holds notes from a few of the corpus's
// topics (storeTopics), so that agents share topics and compete for the
// same neighbourhoods; its knn queries are held-out items of its topics,
// which no store holds (queryShare of each topic).
const (
	storeTopics = 3
	queryShare  = 20             // one item in queryShare of each topic is a query, never a note
	poolSeed    = 0x6d616e796462 // shuffles each topic's items once
)

// corpusSource is a source whose notes are a prepared corpus's items:
// their texts (cut to Spec.TextLen bytes) and their embeddings.
type corpusSource struct {
	spec    workload.Spec
	info    workload.Data
	c       *corpus.Corpus
	byAgent bool      // store i holds the notes of the corpus's i-th agent
	notes   [][]int32 // per topic, the items notes are drawn from, shuffled
	queries [][]int32 // per topic, the held-out items queries are drawn from
	// plans are stores 0 … len-1's plans, drawn once by DrawPlans before a
	// worker measures anything: a check of a returned note, which serve
	// makes inside a request, then reads a plan instead of drawing it.
	plans []storePlan
}

// newCorpusSource splits c's topics into notes and queries for workload
// s, and checks that every store can be filled.
func newCorpusSource(s workload.Spec, info workload.Data, c *corpus.Corpus, byAgent bool) (*corpusSource, error) {
	src := &corpusSource{spec: s, info: info, c: c, byAgent: byAgent}
	src.notes, src.queries = splitTopics(c)
	if s.Dims > 0 && s.Dims != c.Dims {
		return nil, fmt.Errorf("its embeddings have %d dims, --dims asks for %d", c.Dims, s.Dims)
	}
	return src, nil
}

// splitTopics groups c's items by topic, shuffles each group with
// poolSeed and keeps one item in queryShare of a group of two or more as
// a query.
func splitTopics(c *corpus.Corpus) (notes, queries [][]int32) {
	groups := make([][]int32, len(c.TopicNames))
	for i, t := range c.Topics {
		groups[t] = append(groups[t], int32(i))
	}
	notes, queries = make([][]int32, len(groups)), make([][]int32, len(groups))
	for t, g := range groups {
		r := rand.New(rand.NewPCG(poolSeed, uint64(t)))
		r.Shuffle(len(g), func(a, b int) { g[a], g[b] = g[b], g[a] })
		for k, item := range g {
			if len(g) > 1 && k%queryShare == 0 {
				queries[t] = append(queries[t], item)
			} else {
				notes[t] = append(notes[t], item)
			}
		}
	}
	return notes, queries
}

// CheckStores reports whether every one of stores stores can hold
// Spec.Objects distinct notes: an error saying how many are needed.
func (src *corpusSource) CheckStores(stores int) error {
	if src.spec.Split && src.byAgent {
		return fmt.Errorf("its lines name their agents, so its notes are divided among the stores already: a split needs texts with topics")
	}
	if src.spec.Split {
		_, err := src.splitPool(stores)
		return err
	}
	if src.byAgent && stores > len(src.notes) {
		return fmt.Errorf("it names %d agents, --stores asks for %d", len(src.notes), stores)
	}
	for i := range stores {
		if p := src.plan(i); p.size < src.spec.Objects {
			return fmt.Errorf("store %d's topics hold %d notes, --objects asks for %d (the corpus holds %d items; a store takes its notes from the topics it is given)",
				i+1, p.size, src.spec.Objects, src.c.Len())
		}
	}
	return nil
}

// storePlan is which items store i holds: position p of its notes
// (0-based; Fill's, then Turn's) is item (mul·p + add) mod size of the
// concatenation of its topics' note pools, a permutation of them; in a
// split corpus (split.go), item p mod size of its run of the pool.
type storePlan struct {
	topics    []int
	run       []int32 // a split corpus' store: its items
	size      int
	mul, add  int
	querySeed uint64
}

// DrawPlans draws the plans of stores 0 … stores-1 (Planner).
func (src *corpusSource) DrawPlans(stores int) error {
	if src.spec.Split {
		return src.drawSplitPlans(stores)
	}
	src.plans = make([]storePlan, stores)
	for i := range src.plans {
		src.plans[i] = src.drawPlan(i)
	}
	return nil
}

// plan returns store i's plan: the one DrawPlans drew, or drawn now (a
// split corpus' plans are drawn by DrawPlans only: they depend on the
// number of stores).
func (src *corpusSource) plan(i int) storePlan {
	if i < len(src.plans) {
		return src.plans[i]
	}
	if src.spec.Split {
		panic(fmt.Sprintf("datasource: store %d of a split corpus of %d stores", i, len(src.plans)))
	}
	return src.drawPlan(i)
}

// drawPlan draws store i's topics and the permutation of their notes,
// the same in every process.
func (src *corpusSource) drawPlan(i int) storePlan {
	r := rand.New(rand.NewPCG(uint64(i), poolSeed))
	var p storePlan
	if src.byAgent {
		p.topics = []int{i}
	} else {
		p.topics = src.drawTopics(r)
	}
	for _, t := range p.topics {
		p.size += len(src.notes[t])
	}
	p.mul = 1 + r.IntN(max(1, p.size-1))
	for gcd(p.mul, p.size) != 1 {
		p.mul = 1 + r.IntN(max(1, p.size-1))
	}
	p.add, p.querySeed = r.IntN(max(1, p.size)), r.Uint64()
	return p
}

// drawTopics draws storeTopics distinct topics that have queries, more
// while their notes are fewer than Spec.Objects and topics are left.
func (src *corpusSource) drawTopics(r *rand.Rand) []int {
	var topics []int
	size := 0
	for _, t := range r.Perm(len(src.notes)) {
		if len(src.queries[t]) == 0 {
			continue
		}
		if len(topics) >= storeTopics && size >= src.spec.Objects {
			break
		}
		topics, size = append(topics, t), size+len(src.notes[t])
	}
	return topics
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// item returns the corpus item at position pos of store plan p.
func (src *corpusSource) item(p storePlan, pos int) int {
	if p.run != nil {
		return int(p.run[pos%p.size])
	}
	q := (p.mul*(pos%p.size) + p.add) % p.size
	for _, t := range p.topics {
		if q < len(src.notes[t]) {
			return int(src.notes[t][q])
		}
		q -= len(src.notes[t])
	}
	panic("corpus: a position past the store's notes")
}

// note returns note id (1-based) of the store of plan p.
func (src *corpusSource) note(p storePlan, id int64) workload.Note {
	text := src.c.Texts[src.item(p, int(id-1))]
	return workload.Note{ID: id, Text: cutText(text, src.spec.TextLen), Ts: workload.Ts(id)}
}

// cutText cuts s to at most n bytes, at a character's start.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func (src *corpusSource) Info() workload.Data { return src.info }

func (src *corpusSource) Fill(i int, notes []workload.Note) {
	p := src.plan(i)
	for j := range notes {
		notes[j] = src.note(p, int64(j+1))
		if src.spec.Dims > 0 {
			notes[j].Emb = src.c.Vec(src.item(p, j))
		}
	}
}

func (src *corpusSource) Turn(i, k int) workload.Note {
	p := src.plan(i)
	id := int64(src.spec.Objects + k)
	n := src.note(p, id)
	if src.spec.Dims > 0 {
		n.Emb = src.c.Vec(src.item(p, int(id-1)))
	}
	return n
}

func (src *corpusSource) Check(i int, id int64, n workload.Note) error {
	if id < 1 {
		return fmt.Errorf("note %d: no such note", id)
	}
	want := src.note(src.plan(i), id)
	if n.ID != want.ID || n.Ts != want.Ts || n.Text != want.Text {
		return fmt.Errorf("note %d: got id %d, ts %d, text %q; want id %d, ts %d, text %q", id, n.ID, n.Ts, n.Text, want.ID, want.Ts, want.Text)
	}
	return nil
}

func (src *corpusSource) Embeddings(i int) Embeddings {
	if src.spec.Dims == 0 {
		return nil
	}
	return corpusEmbeddings{src: src, p: src.plan(i)}
}

// corpusEmbeddings are one store's embeddings and queries.
type corpusEmbeddings struct {
	src *corpusSource
	p   storePlan
}

func (e corpusEmbeddings) Note(id int64, dst []float32) []float32 {
	return append(dst[:0], e.src.c.Vec(e.src.item(e.p, int(id-1)))...)
}

// Query is a held-out item of one of the store's topics, drawn by seed:
// never a note of any store.
func (e corpusEmbeddings) Query(seed uint64, _ int, dst []float32) []float32 {
	r := rand.New(rand.NewPCG(seed, e.p.querySeed))
	if e.p.run != nil {
		return e.splitQuery(r, dst)
	}
	var withQueries []int
	for _, t := range e.p.topics {
		if len(e.src.queries[t]) > 0 {
			withQueries = append(withQueries, t)
		}
	}
	if len(withQueries) == 0 { // an agent of a user's file with one note
		return e.Note(1+int64(r.IntN(e.src.spec.Objects)), dst)
	}
	pool := e.src.queries[withQueries[r.IntN(len(withQueries))]]
	return append(dst[:0], e.src.c.Vec(int(pool[r.IntN(len(pool))]))...)
}
