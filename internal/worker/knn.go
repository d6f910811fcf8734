package worker

import (
	"errors"
	"fmt"

	"manydb/internal/datasource"
	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/vector"
)

// knn is the knn query of one store: its query vector, the engine's
// answer, and what checking the answer needs. Its buffers are reused from
// store to store.
type knn struct {
	data datasource.Vectors
	knnSearch
	emb   datasource.Embeddings // of the store whose query was drawn
	q     []float32
	ids   []int64
	vec   []float32
	dists []float64
}

// knnSearch is how a phase's knn asks: whether the search is exact, and
// how many notes it asks the engine for (vector.K, or more for an
// approximate search with job.Job.KNNOversample) before it keeps the
// first vector.K.
type knnSearch struct {
	exact bool // the variant searches exactly: any recall below 1 is a wrong answer
	ask   int
}

// newKNN returns the knn query of variant v on the job's stores, whose
// notes come from data, or nil when they have no embeddings; an error when
// v cannot search them.
func newKNN(j job.Job, v engine.Variant, data datasource.Source) (*knn, error) {
	spec := j.Workload
	if spec.Dims == 0 {
		return nil, nil
	}
	vecs, err := datasource.VectorsOf(data)
	if err != nil {
		return nil, err
	}
	search, err := searchOf(j, v)
	if err != nil {
		return nil, err
	}
	ks := knnSearch{exact: search.Exact, ask: vector.K}
	if !search.Exact && j.KNNOversample > 1 {
		ks.ask = vector.K * j.KNNOversample
	}
	return &knn{data: vecs, knnSearch: ks, q: make([]float32, spec.Dims),
		ids: make([]int64, 0, ks.ask), vec: make([]float32, spec.Dims)}, nil
}

// asked is what a record says of the notes each knn asked for
// (results.Record.KNNAsked): 0 when it asked for vector.K.
func (s knnSearch) asked() int {
	if s.ask == vector.K {
		return 0
	}
	return s.ask
}

// keep asks vs for s.ask notes nearest to q and keeps the first vector.K
// of the answer, appended to dst.
func (s knnSearch) keep(vs engine.VectorStore, q []float32, dst []int64) ([]int64, error) {
	ids, err := vs.KNN(q, s.ask, dst)
	if len(ids) > len(dst)+vector.K {
		ids = ids[:len(dst)+vector.K]
	}
	return ids, err
}

// vectorVariant returns v as an engine.VectorVariant, or an error saying
// that it cannot run a workload with embeddings.
func vectorVariant(v engine.Variant) (engine.VectorVariant, error) {
	vv, ok := v.(engine.VectorVariant)
	if !ok {
		return nil, fmt.Errorf("variant %s keeps no embeddings (engine.VectorVariant), so it cannot run a workload with --dims", v.ID())
	}
	return vv, nil
}

// searchOf is how the job's knn searches: in a layout of one store for
// every agent (job.OneStore) the shared store's search (v may be the variant or its *agents), else the
// variant's.
func searchOf(j job.Job, v engine.Variant) (engine.VectorSearch, error) {
	v = base(v)
	if j.Layout.Stores() == job.OneStore {
		sv, ok := v.(engine.SharedVectorVariant)
		if !ok || sv.SharedVectorSearch().Method == "" {
			return engine.VectorSearch{}, errors.New("its shared store keeps no embeddings (engine.SharedVectorVariant); the catalog's NoSharedVectors should say why")
		}
		return sv.SharedVectorSearch(), nil
	}
	vv, err := vectorVariant(v)
	if err != nil {
		return engine.VectorSearch{}, err
	}
	return vv.VectorSearch(), nil
}

// draw makes store i's query for a run's seed, the store holding total
// notes (datasource.Embeddings.Query).
func (k *knn) draw(seed uint64, i, total int) {
	k.emb = k.data.Embeddings(i)
	k.q = k.emb.Query(seed, total, k.q)
}

// drawNote makes store i's query the embedding of its note id: a turn
// recalls the notes nearest to the note it is about to write.
func (k *knn) drawNote(i int, id int64) {
	k.emb = k.data.Embeddings(i)
	k.q = k.emb.Note(id, k.q)
}

// run asks s for the vector.K notes nearest to the query.
func (k *knn) run(s engine.Store) error {
	vs, ok := s.(engine.VectorStore)
	if !ok {
		return fmt.Errorf("the store is not an engine.VectorStore")
	}
	var err error
	k.ids, err = k.keep(vs, k.q, k.ids[:0])
	return err
}

// check checks the answer against the exact nearest of the store's total
// notes, made again from the data source, and returns its recall@K: an
// exact search must find them all, an index may miss some.
func (k *knn) check(total int) (float64, error) {
	if err := vector.CheckAnswer(vector.K, total, k.ids, k.exact); err != nil {
		return 0, err
	}
	k.dists = k.dists[:0]
	for id := range int64(total) {
		k.vec = k.emb.Note(id+1, k.vec)
		k.dists = append(k.dists, vector.Distance(k.vec, k.q))
	}
	r := vector.Recall(vector.K, k.dists, k.ids)
	// The embedder is dropped once checked: a hold's snapshots then find
	// no store's embedder live.
	k.emb = nil
	if k.exact && r < 1 {
		return r, fmt.Errorf("an exact search returned %v, recall@%d %.2f: not the nearest notes", k.ids, vector.K, r)
	}
	return r, nil
}
