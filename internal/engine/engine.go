// Package engine defines what a database engine adapter provides to manydb,
// and the catalog of every variant and the worker binary that serves it.
//
// It links no engine and uses no cgo, so the orchestrator can import it.
// Adapters live in their own packages (internal/engines/sqlite, …) and are linked
// only into their worker binary (cmd/worker-<family>).
//
// An adapter never times itself: the worker (internal/worker) wraps every
// call in its own spans, so all engines are measured the same way.
package engine

import (
	"errors"

	"manydb/internal/workload"
)

// Variant is one way of using an engine, with its own id (for example
// "sqlite" or "obx_cached"). A Variant may keep process-wide state that a
// real application would keep too (a cached model, a shared block cache);
// it is created once per worker process.
type Variant interface {
	// ID is the variant id used on the command line and in records.
	ID() string
	// Create makes a new store in dir, which exists and is empty, with its
	// schema or model committed, and returns it open for writing.
	Create(dir string) (Store, error)
	// Open opens the existing store in dir so that it can serve a query.
	Open(dir string) (Store, error)
	// Versions names the engine library versions this variant runs with,
	// e.g. {"sqlite": "3.51.0"}; module versions are added by the worker.
	Versions() map[string]string
}

// Store is one open store: what an agent does with it. Besides writing and
// counting its notes, an agent reads its newest notes, fetches notes by
// id, reads everything, and appends one note per turn; every variant
// answers every query.
//
// Each query decodes what the engine returns into Go values the way an
// application would (a note's Text is a Go string the caller may keep), and
// answers from the store, never from a cache kept on the Go side.
type Store interface {
	// Insert writes all notes in one transaction, commit included.
	Insert(notes []workload.Note) error
	// Count returns the number of notes in the store.
	Count() (int64, error)
	// Recent appends to dst the n notes with the highest ids, newest first,
	// and returns it.
	Recent(n int, dst []workload.Note) ([]workload.Note, error)
	// Get appends to dst the notes with the given ids, in that order, and
	// returns it. A missing id is an error that wraps ErrNotFound.
	Get(ids []int64, dst []workload.Note) ([]workload.Note, error)
	// Scan calls fn for every note of the store in ascending id order.
	Scan(fn func(workload.Note)) error
	// Append writes one note in its own transaction, committed and synced
	// as the engine's defaults do (the durability of Insert). note.ID is
	// the store's highest id plus one; an engine that assigns ids itself
	// must fail if it assigned another.
	Append(note workload.Note) error
	// Close releases every resource the store holds.
	Close() error
}

// VectorVariant is implemented by a Variant whose stores can keep each
// note's embedding (workload.Note.Emb) and find the notes nearest to a
// query vector: the knn query of a workload with vectors (--dims). A
// variant without it is n/a there, for the reason its catalog family
// gives (Family.NoVectors).
type VectorVariant interface {
	// CreateVectors is Create for notes with embeddings of dims float32
	// values: the store keeps each note's Emb (Insert and Append), with
	// the engine's vector index if the variant uses one, and the store
	// Create returns, and Open later, implement VectorStore.
	CreateVectors(dir string, dims int) (Store, error)
	// VectorSearch says how the variant's knn searches.
	VectorSearch() VectorSearch
}

// VectorSearch describes a variant's nearest-neighbour search; the
// worker records it with every record of a workload with vectors.
type VectorSearch struct {
	// Method names the engine's search as its API names it, with the
	// options given, e.g. "vec0 virtual table (sqlite-vec v0.1.6), emb
	// float[D] distance_metric=cosine" or "exact scan in Go".
	Method string `json:"method"`
	// Exact is true when the search compares the query with every note:
	// its answer must then be the true nearest notes (recall 1), and any
	// other answer fails the phase.
	Exact bool `json:"exact"`
}

// VectorPreparer is implemented by a VectorVariant whose engine needs the
// process prepared before it opens a store with embeddings (package
// sqlite registers sqlite-vec with SQLite, which then loads it into every
// connection opened). The worker calls PrepareVectors once, before the
// first open, and only when the workload has embeddings, so the
// connections of the reference workload stay as they were.
type VectorPreparer interface {
	PrepareVectors() error
}

// VectorOptioner is implemented by a lean VectorVariant whose Options
// include options of its vector index or search: VectorOptions names
// those (a subset of Options). The worker records them only when the
// workload has embeddings; without, they set nothing.
type VectorOptioner interface {
	VectorOptions() map[string]string
}

// VectorStore is a store of a VectorVariant made by CreateVectors.
type VectorStore interface {
	// KNN appends to dst the ids of the k notes nearest to q by cosine
	// distance, nearest first, and returns it. The search is the engine's
	// own (VectorSearch), answered from the store.
	KNN(q []float32, k int, dst []int64) ([]int64, error)
}

// ErrNotFound is wrapped by Store.Get when a requested id is not stored.
var ErrNotFound = errors.New("note not found")

// Closer is implemented by a Variant that holds process-wide resources
// (a shared cache, a cached model) to release when the worker ends.
type Closer interface {
	CloseVariant() error
}

// Settler is implemented by a Variant that finishes closing a store in
// the background, after Store.Close returned (go-libsql closes on a
// thread of its own). Settle waits until every store closed so far is
// closed for good; the hold calls it before its first snapshot, so that
// what a store closed before it still holds is not counted as the
// process' own.
type Settler interface {
	Settle() error
}

// Optioner is implemented by a Variant made by a Factory's Lean: Options
// names each engine option the variant sets for the lean setting, as the
// engine's API names it, with the value set (e.g. {"PRAGMA cache_size":
// "-64"}). The worker records them in every record (engine_options); a
// variant made by New reports none.
type Optioner interface {
	Options() map[string]string
}

// Marshaler is implemented by a Store whose engine turns notes into its own
// wire format as a step of its own before the write (ObjectBox marshals
// each note to a FlatBuffer). manydb profile times Marshal and
// InsertMarshaled separately; the other phases call Insert, which must do
// the same as the two together.
type Marshaler interface {
	// Marshal converts notes to the engine's format, without writing.
	Marshal(notes []workload.Note) (Marshaled, error)
	// InsertMarshaled writes what Marshal returned in one transaction,
	// commit included.
	InsertMarshaled(m Marshaled) error
}

// Marshaled is an engine's own representation of a batch of notes.
type Marshaled any

// SharedVariant is implemented by a Variant that has the shared layout:
// one store holding every agent's notes, keyed by agent, instead of a
// store per agent (job.LayoutShared). A variant without it is n/a there,
// for the reason its catalog family gives (Family.NoShared).
type SharedVariant interface {
	// CreateShared makes a new shared store in dir, which exists and is
	// empty, with its schema committed, and returns it open.
	CreateShared(dir string) (SharedStore, error)
	// OpenShared opens the shared store in dir, as an application does
	// once when it starts.
	OpenShared(dir string) (SharedStore, error)
	// SharedLayout says what the shared store is: its files, how a note
	// is keyed by agent, the options it is made with, what an agent's
	// open (SharedStore.Agent) does and what deleting an agent gives back.
	SharedLayout() string
}

// SharedStore is an open shared store.
type SharedStore interface {
	// Agent is an agent's open: what an application does to start
	// serving agent a from the shared store. The Store it returns reads
	// and writes agent a's notes only (its ids are the agent's own, as in
	// a store of its own); its Close releases what Agent took, never the
	// shared store.
	Agent(a int) (Store, error)
	// DeleteAgent removes every note of agent a, committed, and then does
	// what the engine needs to give the space back (SharedLayout says
	// what and whether it can).
	DeleteAgent(a int) error
	// Close releases the shared store.
	Close() error
}

// SharedConnsVariant is implemented by a SharedVariant whose shared store
// is one connection for all agents, and which can open it with several
// instead, for concurrent callers (manydb serve opens it with one per
// goroutine). Its catalog family then gives no NoSharedServe reason.
type SharedConnsVariant interface {
	// OpenSharedConns opens the shared store in dir with n connections:
	// each call of an agent's view (SharedStore.Agent) runs on one of
	// them for its length, so n callers run at once.
	OpenSharedConns(dir string, n int) (SharedStore, error)
}

// SharedVectorVariant is implemented by a SharedVariant whose shared store
// can keep the notes' embeddings: a workload with vectors (--dims) in the
// shared layout. A variant without it (or whose SharedVectorSearch has no
// Method) is n/a there, for the reason its catalog family gives
// (Family.NoSharedVectors).
type SharedVectorVariant interface {
	// CreateSharedVectors is CreateShared for notes with embeddings of
	// dims float32 values. The agents' Stores of the store it returns, and
	// of OpenShared later, implement VectorStore: an agent's knn answers
	// from that agent's notes only.
	CreateSharedVectors(dir string, dims int) (SharedStore, error)
	// SharedVectorSearch says how an agent's knn searches the shared
	// store: the index and how it keeps to the agent's notes. Its Method
	// is empty when the variant has no such search.
	SharedVectorSearch() VectorSearch
}

// WALVariant is implemented by a Variant of SQLite (or a fork) whose
// stores can be opened in WAL journal mode: the wal setting, the mode of
// the shared layout's store. A variant without it is n/a there, for the
// reason its catalog family gives (Family.NoWAL).
type WALVariant interface {
	// UseWAL makes every store opened from now on run PRAGMA
	// journal_mode=WAL at its open, and returns the option as the
	// engine's API names it, for the record's engine_options. It is
	// called once, before the first open.
	UseWAL() map[string]string
}

// ServerVariant is implemented by a Variant whose stores live in a
// database server rather than in files of their own (PostgreSQL): a
// store's directory holds no file, and the worker asks the variant for
// what it would otherwise find there.
type ServerVariant interface {
	// UseServer gives the variant its server's address (a libpq
	// connection string naming the database); it is called once, before
	// anything else.
	UseServer(dsn string) error
	// StoreFiles names the server's files that hold the store in dir
	// (or, for the shared layout's directory, the shared store): base is
	// the server's data directory and names are relative to it. The
	// worker measures their space and page-cache residency, and reads
	// them in to warm them, as it does a store's own files.
	StoreFiles(dir string) (base string, names []string, err error)
	// DropStore deletes the store in dir: the delete of an agent in the
	// per-agent layout.
	DropStore(dir string) error
	// ServerProcesses lists the server's processes (its postmaster and
	// backends): their memory is counted with the worker's.
	ServerProcesses() ([]int, error)
}

// Retrier is implemented by a variant whose client sends a request
// again when its server refused it without running it (sqld's pool
// answers that a namespace it is evicting does not exist): Retries is how
// many requests it sent again since it was made. The worker records a
// phase's count (the record's retries); a retried request's time, every
// send, is in the span that timed it.
type Retrier interface {
	Retries() int64
}

// ServerFilesLister is implemented by a ServerVariant that can name the
// files of many stores in one request to its server, as StoreFiles names
// one store's: names[k] are those of dirs[k], none when the server holds
// no store for dirs[k] (StoreFiles then says why). The worker lists a
// phase's stores with it once at the phase's start (a warm or turn run,
// the space phase), instead of asking the server once a store each time
// it reads, samples or measures them.
type ServerFilesLister interface {
	StoresFiles(dirs []string) (base string, names [][]string, err error)
}
