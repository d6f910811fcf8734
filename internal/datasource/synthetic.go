package datasource

import "manydb/internal/workload"

// synthetic is the generator of internal/workload as a source: notes of
// Lorem ipsum named by their store and id (workload.Spec.Fill), and with
// --dims embeddings around each store's topic centres
// (workload.Embedder). It reads nothing, so it cannot fail to open.
type synthetic struct{ spec workload.Spec }

func openSynthetic(s workload.Spec) (Source, error) { return synthetic{spec: s}, nil }

func (g synthetic) Info() workload.Data { return workload.Data{} }

func (g synthetic) Fill(i int, notes []workload.Note) { g.spec.Fill(i, notes) }

func (g synthetic) Turn(i, k int) workload.Note { return g.spec.TurnNote(i, k) }

func (g synthetic) Check(i int, id int64, n workload.Note) error { return g.spec.Check(i, id, n) }

// Embeddings returns store i's embedder; nil without --dims.
func (g synthetic) Embeddings(i int) Embeddings {
	e := g.spec.Embedder(i)
	if e == nil {
		return nil
	}
	return syntheticEmbeddings{e}
}

// syntheticEmbeddings is one store's workload.Embedder.
type syntheticEmbeddings struct{ e *workload.Embedder }

func (s syntheticEmbeddings) Note(id int64, dst []float32) []float32 { return s.e.Note(id, dst) }

// Query is the embedder's query; the note it was drawn near is not
// needed, the answer being checked against every note.
func (s syntheticEmbeddings) Query(seed uint64, total int, dst []float32) []float32 {
	q, _ := s.e.Query(seed, total, dst)
	return q
}
