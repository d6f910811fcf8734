package sqlnotes

import (
	"fmt"
	"strings"

	"manydb/internal/engine"
	"manydb/internal/vector"
)

// Vectors is how a SQL engine keeps the notes' embeddings and searches
// them (a workload with --dims): the statements that make the store, the
// insert of a note with its embedding, and the knn query. Every SQL
// adapter takes its statements from here, so that one engine's variants
// run the same SQL. Embeddings are bound as little-endian float32 blobs
// (vector.AppendBlob).
type Vectors struct {
	// Schema makes the store, run in order in place of the package's
	// Schema: the notes table (with an emb column when EmbInNotes) and
	// any vector table or index.
	Schema []string
	// InsertSQL writes one note: (id, text, ts, emb) when EmbInNotes,
	// otherwise (id, text, ts) followed by VecInsertSQL.
	InsertSQL string
	// EmbInNotes tells whether the notes table keeps the embedding.
	EmbInNotes bool
	// VecInsertSQL, when not empty, writes the note's embedding to the
	// vector table: (id, emb).
	VecInsertSQL string
	// KNNSQL is the knn query. Bound with (query blob, k), it returns the
	// ids of the k nearest notes; when ScanInGo, it takes no argument and
	// returns (id, emb) of every note, and the adapter keeps the k nearest
	// itself (vector.TopK).
	KNNSQL   string
	ScanInGo bool
	// Search is what the variant reports (engine.VectorVariant). It
	// names no dims (D stands for them): a variant reports it before it
	// makes a store.
	Search engine.VectorSearch
}

// VecTable is the name of sqlite-vec's vec0 table, and LibSQLIndex the
// name of libSQL's vector index.
const (
	VecTable    = "notes_vec"
	LibSQLIndex = "notes_emb"
)

// notesWithEmb is the notes table with an embedding column of type typ.
func notesWithEmb(typ string) string {
	return "CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT NOT NULL, ts INTEGER NOT NULL, emb " + typ + ")"
}

const insertWithEmb = "INSERT INTO notes(id, text, ts, emb) VALUES (?, ?, ?, ?)"

// SQLiteVec is SQLite with the sqlite-vec extension (version names its
// release, e.g. "v0.1.6"): the notes table as without vectors, and a vec0
// virtual table of the embeddings keyed by the note's id, searched by its
// KNN query, which compares the query with every vector (exact).
func SQLiteVec(dims int, version string) Vectors {
	table := func(dims string) string {
		return fmt.Sprintf("CREATE VIRTUAL TABLE %s USING vec0(emb float[%s] distance_metric=cosine)", VecTable, dims)
	}
	return Vectors{
		Schema:       []string{Schema, table(fmt.Sprint(dims))},
		InsertSQL:    InsertSQL,
		VecInsertSQL: "INSERT INTO " + VecTable + "(rowid, emb) VALUES (?, ?)",
		KNNSQL:       "SELECT rowid FROM " + VecTable + " WHERE emb MATCH ? AND k = ?",
		Search: engine.VectorSearch{Exact: true,
			Method: fmt.Sprintf("sqlite-vec %s vec0 table, %s; knn: %s MATCH … AND k = %d (a full scan)", version, table("D"), VecTable, vector.K)},
	}
}

// The options of libSQL's vector index (libsql_vector_idx), as its
// arguments. LibSQLIndexDefault gives only the metric, as an application
// following libSQL's documentation does; LibSQLIndexLean is the lean
// setting's, chosen for stores of about a thousand notes (docs/engines.md):
// neighbours compressed to one bit per dimension and at most 32 per node,
// which shrink each node's block from about 79 KB to 3.6 KB at 384
// dimensions.
var (
	LibSQLIndexDefault = []string{"metric=cosine"}
	LibSQLIndexLean    = []string{"metric=cosine", "compress_neighbors=float1bit", "max_neighbors=32"}
)

// LibSQLIndexOption is the engine_options key under which a lean libSQL
// variant records its index options.
const LibSQLIndexOption = "libsql_vector_idx"

// LibSQLVectorOptions is the part of a libSQL variant's engine options
// that concerns its vector index (engine.VectorOptioner): the
// LibSQLIndexOption entry, if options has one.
func LibSQLVectorOptions(options map[string]string) map[string]string {
	if v, ok := options[LibSQLIndexOption]; ok {
		return map[string]string{LibSQLIndexOption: v}
	}
	return nil
}

// LibSQLOptionValue is options as a record's engine_options shows them.
func LibSQLOptionValue(options []string) string { return strings.Join(options, ", ") }

// LibSQL is libSQL's native vector search: an F32_BLOB(dims) column with
// a DiskANN index made with the given options (LibSQLIndexDefault or
// LibSQLIndexLean), searched with vector_top_k (approximate).
func LibSQL(dims int, options []string) Vectors {
	index := libSQLIndex(options)
	return Vectors{
		Schema:     []string{notesWithEmb(fmt.Sprintf("F32_BLOB(%d)", dims)), index},
		InsertSQL:  insertWithEmb,
		EmbInNotes: true,
		KNNSQL:     "SELECT id FROM vector_top_k('" + LibSQLIndex + "', ?, ?)",
		Search:     engine.VectorSearch{Method: "libSQL DiskANN index, " + index + "; knn: vector_top_k"},
	}
}

// libSQLIndex makes libSQL's vector index of the notes' emb column with
// options.
func libSQLIndex(options []string) string {
	quoted := make([]string, len(options))
	for i, o := range options {
		quoted[i] = "'" + o + "'"
	}
	return fmt.Sprintf("CREATE INDEX %s ON notes(libsql_vector_idx(emb, %s))", LibSQLIndex, strings.Join(quoted, ", "))
}

// Turso is Turso Database's vector functions: the embedding as a blob,
// and an exact scan ordered by vector_distance_cos (Turso has no dense
// vector index: docs/engines.md).
func Turso() Vectors {
	knn := "SELECT id FROM notes ORDER BY vector_distance_cos(emb, vector32(?)) LIMIT ?"
	return Vectors{
		Schema:     []string{notesWithEmb("BLOB")},
		InsertSQL:  insertWithEmb,
		EmbInNotes: true,
		KNNSQL:     knn,
		Search:     engine.VectorSearch{Exact: true, Method: "Turso vector functions, exact: " + knn},
	}
}

// ScanInGo is for the SQL engines that cannot search vectors (modernc's
// and ncruces' SQLite cannot load sqlite-vec): the embedding as a blob,
// every note's read and the nearest kept in Go (exact).
func ScanInGo() Vectors {
	return Vectors{
		Schema:     []string{notesWithEmb("BLOB")},
		InsertSQL:  insertWithEmb,
		EmbInNotes: true,
		KNNSQL:     "SELECT id, emb FROM notes",
		ScanInGo:   true,
		Search:     engine.VectorSearch{Exact: true, Method: "embeddings as blobs, exact scan in Go (SELECT id, emb FROM notes; cosine and a top-10 heap in Go)"},
	}
}
