//go:build turso

package turso

/*
#include <stdlib.h>
#include "manydb_turso.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// The shared layout of turso and turso_ckpt: one database, notes.db,
// holding every agent's notes keyed by (agent, id). Turso 0.8 has no
// WITHOUT ROWID tables, so the key is a primary key index beside the
// rowid table; it writes ahead in its own WAL always, and has no
// incremental vacuum, so a deleted agent's pages stay in the file. An
// agent's statements carry its number as a literal (the C ABI binds one
// parameter of a query), so an agent's open makes its statements' text.
const (
	sharedSchema    = "CREATE TABLE notes(agent INTEGER NOT NULL, id INTEGER NOT NULL, text TEXT NOT NULL, ts INTEGER NOT NULL, PRIMARY KEY(agent, id))"
	sharedEmbSchema = "CREATE TABLE notes(agent INTEGER NOT NULL, id INTEGER NOT NULL, text TEXT NOT NULL, ts INTEGER NOT NULL, emb BLOB, PRIMARY KEY(agent, id))"
)

// The interfaces of the shared layout.
var (
	_ engine.SharedVariant       = (*Variant)(nil)
	_ engine.SharedVectorVariant = (*Variant)(nil)
	_ engine.VectorStore         = (*sharedAgent)(nil)
)

// sharedStore is the open shared database.
type sharedStore struct{ st *store }

// CreateShared implements engine.SharedVariant.
func (v *Variant) CreateShared(dir string) (engine.SharedStore, error) {
	return v.createShared(dir, sharedSchema)
}

// CreateSharedVectors implements engine.SharedVectorVariant: the notes
// table with an emb column, searched exactly.
func (v *Variant) CreateSharedVectors(dir string, dims int) (engine.SharedStore, error) {
	if dims < 1 {
		return nil, fmt.Errorf("turso: embeddings of %d values", dims)
	}
	return v.createShared(dir, sharedEmbSchema)
}

// createShared makes the shared database in dir with schema.
func (v *Variant) createShared(dir, schema string) (engine.SharedStore, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("turso: store directory: %w (the harness creates it before Create)", err)
	}
	s, err := open(filepath.Join(dir, FileName), v.checkpoint)
	if err != nil {
		return nil, err
	}
	if err := s.exec(schema); err != nil {
		return nil, errors.Join(fmt.Errorf("create table: %w", err), s.Close())
	}
	return &sharedStore{st: s}, nil
}

// OpenShared implements engine.SharedVariant.
func (v *Variant) OpenShared(dir string) (engine.SharedStore, error) {
	s, err := v.Open(dir)
	if err != nil {
		return nil, err
	}
	return &sharedStore{st: s.(*store)}, nil
}

// SharedLayout implements engine.SharedVariant.
func (v *Variant) SharedLayout() string {
	return "one database, notes.db: " + sharedSchema + " (Turso 0.8 has no WITHOUT ROWID tables: the key is an index beside the rowid table), in Turso's WAL, one connection for all agents; " +
		"an agent's open makes its statements' text, the agent's number a literal in each (the C ABI binds one parameter), prepared at each query; " +
		"deleting an agent is DELETE … WHERE agent = A, then a WAL checkpoint (TRUNCATE): Turso has no incremental vacuum, so the pages stay in the file"
}

// SharedVectorSearch implements engine.SharedVectorVariant.
func (v *Variant) SharedVectorSearch() engine.VectorSearch {
	return engine.VectorSearch{Exact: true, Method: "Turso vector functions, exact, over the agent's rows of the shared table: " + sharedKNN("A")}
}

// sharedKNN is the knn query of agent a (a literal).
func sharedKNN(a string) string {
	return "SELECT id FROM notes WHERE agent = " + a + " ORDER BY vector_distance_cos(emb, vector32(?)) LIMIT ?"
}

// Agent implements engine.SharedStore: the agent's statements.
func (s *sharedStore) Agent(a int) (engine.Store, error) {
	if a < 0 {
		return nil, fmt.Errorf("agent %d: agents are numbered from 0", a)
	}
	where := fmt.Sprintf("WHERE agent = %d", a)
	return &sharedAgent{st: s.st, agent: a,
		count:   cstring("SELECT count(*) FROM notes " + where),
		insert:  fmt.Sprintf("INSERT INTO notes(agent, id, text, ts) VALUES (%d, ?, ?, ?)", a),
		embIns:  fmt.Sprintf("INSERT INTO notes(agent, id, text, ts, emb) VALUES (%d, ?, ?, ?, ?)", a),
		knn:     cstring(sharedKNN(fmt.Sprint(a))),
		Queries: sqlnotes.On(s.st.prep, sqlnotes.NotesSQL("notes", fmt.Sprint(a), "?1")),
	}, nil
}

// cstring is s NUL-terminated, in Go memory without Go pointers.
func cstring(s string) []byte { return append([]byte(s), 0) }

// DeleteAgent implements engine.SharedStore.
func (s *sharedStore) DeleteAgent(a int) error {
	if err := s.st.inTx(func() error { return s.st.exec(fmt.Sprintf("DELETE FROM notes WHERE agent = %d", a)) }); err != nil {
		return fmt.Errorf("delete agent %d: %w", a, err)
	}
	var msg *C.char
	if C.mt_checkpoint(s.st.s, &msg) != 0 {
		return cError("checkpoint", msg)
	}
	return nil
}

// Close implements engine.SharedStore.
func (s *sharedStore) Close() error { return s.st.Close() }

// sharedAgent is an agent's notes in the shared database.
type sharedAgent struct {
	st               *store
	agent            int
	count, knn       []byte // NUL-terminated
	insert, embIns   string
	sqlnotes.Queries // the agent's statements on the shared connection
}

// Insert implements engine.Store: the agent's notes in one transaction.
func (a *sharedAgent) Insert(notes []workload.Note) error {
	if len(notes) == 0 {
		return nil
	}
	sql, blob := a.insert, []byte(nil)
	if notes[0].Emb != nil {
		sql = a.embIns
		for _, n := range notes {
			blob = vector.AppendBlob(blob, n.Emb)
		}
	}
	return a.st.insertSQL(sql, notes, blob)
}

// Append implements engine.Store: one note, its own transaction.
func (a *sharedAgent) Append(n workload.Note) error { return a.Insert([]workload.Note{n}) }

// Count implements engine.Store.
func (a *sharedAgent) Count() (int64, error) {
	var n C.int64_t
	var msg *C.char
	if C.mt_query_int(a.st.s, (*C.char)(unsafe.Pointer(&a.count[0])), &n, &msg) != 0 {
		return 0, cError("count", msg)
	}
	return int64(n), nil
}

// KNN implements engine.VectorStore: the agent's exact search.
func (a *sharedAgent) KNN(q []float32, k int, dst []int64) ([]int64, error) {
	return a.st.knnSQL(a.knn, q, k, dst)
}

// Close implements engine.Store: the shared connection stays open.
func (a *sharedAgent) Close() error { return nil }
