// Package datasource is where the notes every engine writes come from: a
// data source gives each store's notes (their texts and, with --dims,
// their embeddings), the knn queries and what their exact answers are
// computed from, and checks the notes an engine returns.
//
// Every source is one entry of the registry (registry.go), found by the
// name --data gives; what it can do beyond notes is an optional interface
// (Vectors). A worker opens the job's source once (Open), which may read
// files and fail, and then asks it per store. The first entry, synthetic,
// is the generator of internal/workload (synthetic.go).
package datasource

import "manydb/internal/workload"

// Source is one data source, opened for one workload (Open): what every
// store holds, identically for every engine.
type Source interface {
	// Info names the source as a record holds it (workload.Spec.Data):
	// its name, and for a source read from files their version and
	// SHA-256; the zero Data for synthetic.
	Info() workload.Data
	// Fill writes the notes of store i into notes, which has
	// Spec.Objects elements: ids from 1, timestamps workload.Ts(id), and
	// with embeddings (Spec.Dims > 0) each note's Emb.
	Fill(i int, notes []workload.Note)
	// Turn returns the note the k-th turn (1-based) appends to store i:
	// id Spec.Objects+k, with its embedding when the workload has them.
	Turn(i, k int) workload.Note
	// Check reports whether n, as an engine returned it (without its
	// embedding), is note id of store i: one of Fill's or of Turn's.
	Check(i int, id int64, n workload.Note) error
}

// Vectors is a source with embeddings, which a workload with --dims
// needs (Open checks it).
type Vectors interface {
	Source
	// Embeddings returns store i's embeddings and knn queries.
	Embeddings(i int) Embeddings
}

// Embeddings are one store's embeddings and knn queries: the exact
// answer to a query is the store's notes nearest to it, computed from
// Note for every note the store holds.
type Embeddings interface {
	// Note writes the embedding of note id (1-based, Fill's notes and
	// Turn's alike) into dst, which has Spec.Dims elements, and returns
	// it.
	Note(id int64, dst []float32) []float32
	// Query writes the knn query of a run's seed into dst and returns
	// it, for the store holding total notes: the same seed and store
	// give the same query.
	Query(seed uint64, total int, dst []float32) []float32
}

// Planner is a source that can draw, once, what each of a job's stores
// holds, so that its checks during measured work cost a lookup (DrawPlans
// is called by Ready, before any phase measures).
type Planner interface {
	DrawPlans(stores int) error
}

// Ready prepares src for a job of stores stores: a Planner draws its
// plans (an error says the source cannot fill them); any other source
// needs nothing.
func Ready(src Source, stores int) error {
	if p, ok := src.(Planner); ok {
		return p.DrawPlans(stores)
	}
	return nil
}
