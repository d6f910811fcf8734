package sqlitecapi

/*
#include "capi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

var (
	_ engine.SharedVariant       = (*Variant)(nil)
	_ engine.SharedVectorVariant = (*Variant)(nil)
	_ engine.SharedStore         = (*shared)(nil)
	_ engine.Store               = (*agent)(nil)
	_ engine.VectorStore         = (*agent)(nil)
)

// CreateShared implements engine.SharedVariant: one database for every
// agent (sqlnotes.SharedSchema, its pragmas first), opened as a store of
// one agent is.
func (v *Variant) CreateShared(dir string) (engine.SharedStore, error) {
	return v.createShared(dir, []string{sqlnotes.SharedSchema}, nil)
}

// WithSharedVectors sets the statements of v's shared store with
// embeddings (sqlnotes.SQLiteVecShared for SQLite with sqlite-vec) and
// returns v; without it, SharedVectorSearch names none.
func (v *Variant) WithSharedVectors(vectors sqlnotes.VectorsFunc) *Variant {
	v.sharedVectors = vectors
	return v
}

// CreateSharedVectors implements engine.SharedVectorVariant: CreateShared
// with the vector table of the shared store's statements, made in one
// transaction with the notes table.
func (v *Variant) CreateSharedVectors(dir string, dims int) (engine.SharedStore, error) {
	if v.sharedVectors == nil {
		return nil, fmt.Errorf("%s keeps no embeddings in its shared store (WithSharedVectors)", v.id)
	}
	vec := v.sharedVectors(dims)
	return v.createShared(dir, vec.Schema, &vec)
}

// SharedVectorSearch implements engine.SharedVectorVariant.
func (v *Variant) SharedVectorSearch() engine.VectorSearch {
	if v.sharedVectors == nil {
		return engine.VectorSearch{}
	}
	return v.sharedVectors.Search()
}

// createShared makes the shared database: its pragmas, then schema in one
// transaction; vec is its vector statements, nil for none.
func (v *Variant) createShared(dir string, schema []string, vec *sqlnotes.Vectors) (engine.SharedStore, error) {
	s, err := v.open(dir, true)
	if err != nil {
		return nil, err
	}
	for _, q := range []string{sqlnotes.SharedPragmas, sqlnotes.SharedWAL, sqlnotes.SharedSync} {
		if err := s.exec(q); err != nil {
			s.Close()
			return nil, err
		}
	}
	err = s.inTx(func() error {
		for _, q := range schema {
			if err := s.exec(q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.Close()
		return nil, err
	}
	return &shared{conns: sqlnotes.OnePool(s), vec: vec}, nil
}

// OpenShared implements engine.SharedVariant; a database with the vector
// table gets the shared store's vector statements.
func (v *Variant) OpenShared(dir string) (engine.SharedStore, error) {
	s, err := v.open(dir, false)
	if err != nil {
		return nil, err
	}
	if err := s.exec(sqlnotes.SharedSync); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	sh := &shared{conns: sqlnotes.OnePool(s)}
	if v.sharedVectors != nil {
		n, err := s.queryInt("SELECT count(*) FROM sqlite_master WHERE name IN ('" + sqlnotes.VecTable + "', '" + sqlnotes.LibSQLIndex + "')")
		if err != nil {
			return nil, errors.Join(err, s.Close())
		}
		if n > 0 {
			vec := v.sharedVectors(0) // its statements name no dims
			sh.vec = &vec
		}
	}
	return sh, nil
}

// SharedLayout implements engine.SharedVariant.
func (v *Variant) SharedLayout() string {
	return sqlnotes.SharedLayout + "; the statements of a store of one agent with the agent as parameter ?4, bound when prepared"
}

// shared is the open shared store: one connection or, opened by
// OpenSharedConns, several (conns), of which each call of an agent's view
// takes one for its length; and its vector statements when it keeps
// embeddings (nil: none).
type shared struct {
	conns sqlnotes.Pool[*store]
	vec   *sqlnotes.Vectors
}

// Agent implements engine.SharedStore.
func (sh *shared) Agent(a int) (engine.Store, error) {
	ag := &agent{s: sh.conns.First(), sh: sh, id: int64(a), vec: sh.vec}
	ag.Queries = sqlnotes.Pooled(ag, &sqlnotes.SharedNumbered)
	return ag, nil
}

// Take implements sqlnotes.Taker: a connection of the store's with the
// agent bound (bind).
func (ag *agent) Take() (sqlnotes.Preparer, func()) {
	b, done := ag.bind()
	return b.prep, done
}

// DeleteAgent implements engine.SharedStore: the agent's rows (and
// embeddings) deleted in one transaction, then the free pages given back
// (sqlnotes.SharedReclaim, sqlnotes.SharedCheckpoint).
func (sh *shared) DeleteAgent(a int) error {
	ag, done := (&agent{s: sh.conns.First(), sh: sh, id: int64(a), vec: sh.vec}).bind()
	defer done()
	return ag.deleteAll()
}

// deleteAll deletes the agent's rows (and embeddings) in one transaction,
// then gives the free pages back.
func (ag *agent) deleteAll() error {
	a := ag.id
	deletes := []string{sqlnotes.SharedDeleteNumbered}
	if ag.vec != nil && ag.vec.VecInsertSQL != "" { // a vector table of its own
		deletes = append(deletes, sqlnotes.SharedVecDeleteNumbered)
	}
	err := ag.s.inTx(func() error {
		for _, sql := range deletes {
			if err := ag.stepOnce(sql); err != nil {
				return fmt.Errorf("delete agent %d: %w", a, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return errors.Join(ag.s.exec(sqlnotes.SharedReclaim), ag.s.exec(sqlnotes.SharedCheckpoint))
}

// stepOnce prepares sql with the agent bound, steps it to its end and
// finalizes it.
func (a *agent) stepOnce(sql string) error {
	q, err := a.prepare(sql)
	if err != nil {
		return err
	}
	if rc := C.sqlite3_step(q.st); rc != C.MANYDB_SQLITE_DONE {
		err = fmt.Errorf("%s: %s (%d)", sql, errmsg(a.s.db), rc)
	}
	return errors.Join(err, q.Close())
}

// agent is one agent's view of the shared store. Each call runs on a
// connection of the store's (bind).
type agent struct {
	sqlnotes.Queries        // on a connection of the store's (bind)
	s                *store // the connection of the call
	sh               *shared
	id               int64
	vec              *sqlnotes.Vectors // the shared store's vector statements; nil: none
}

// prepare prepares sql with the agent bound to its parameter ?4.
func (a *agent) prepare(sql string) (*stmt, error) {
	q, err := a.s.prepare(sql)
	if err != nil {
		return nil, err
	}
	if rc := C.sqlite3_bind_int64(q.st, sqlnotes.SharedAgentParam, C.int64_t(a.id)); rc != C.MANYDB_SQLITE_OK {
		return nil, errors.Join(fmt.Errorf("bind the agent: %s (%d)", errmsg(a.s.db), rc), q.Close())
	}
	return q, nil
}

func (a *agent) prep(sql string) (sqlnotes.Stmt, error) { return a.prepare(sql) }

// Insert implements engine.Store: the agent's notes between BEGIN and
// COMMIT with one prepared statement (two with embeddings).
func (a *agent) Insert(notes []workload.Note) error {
	b, done := a.bind()
	defer done()
	return b.s.inTx(func() error { return b.insert(notes) })
}

// insert writes notes with the prepared insert, and their embeddings in
// the notes' row or with the vector table's insert when the store keeps
// them.
func (a *agent) insert(notes []workload.Note) (err error) {
	withEmb := a.vec != nil && len(notes) > 0 && notes[0].Emb != nil
	sql := sqlnotes.SharedInsertNumbered
	if withEmb && a.vec.EmbInNotes {
		sql = a.vec.InsertSQL
	}
	q, err := a.prepare(sql)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, q.Close()) }()
	var vins *stmt
	if withEmb && a.vec.VecInsertSQL != "" {
		if vins, err = a.prepare(a.vec.VecInsertSQL); err != nil {
			return err
		}
		defer func() { err = errors.Join(err, vins.Close()) }()
	}
	for _, n := range notes {
		if err := a.insertNote(q, n, withEmb && a.vec.EmbInNotes); err != nil {
			return err
		}
		if vins != nil {
			if err := a.insertEmb(vins, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// insertNote binds note n to the prepared insert q, its embedding as
// parameter sqlnotes.SharedEmbParam when withEmb, and steps it.
func (a *agent) insertNote(q *stmt, n workload.Note, withEmb bool) error {
	if !withEmb {
		return a.insertOne(q, n)
	}
	a.s.blob = vector.AppendBlob(a.s.blob[:0], n.Emb)
	text := (*C.char)(unsafe.Pointer(unsafe.StringData(n.Text)))
	if rc := C.manydb_insert_emb(q.st, C.int64_t(n.ID), text, C.int(len(n.Text)), C.int64_t(n.Ts), unsafe.Pointer(&a.s.blob[0]), C.int(len(a.s.blob)), sqlnotes.SharedEmbParam); rc != C.MANYDB_SQLITE_OK {
		return fmt.Errorf("insert note %d of agent %d: %s (%d)", n.ID, a.id, errmsg(a.s.db), rc)
	}
	return nil
}

// insertEmb binds note n's embedding to the prepared vector insert q and
// steps it.
func (a *agent) insertEmb(q *stmt, n workload.Note) error {
	a.s.blob = vector.AppendBlob(a.s.blob[:0], n.Emb)
	if rc := C.manydb_insert_vec(q.st, C.int64_t(n.ID), unsafe.Pointer(&a.s.blob[0]), C.int(len(a.s.blob))); rc != C.MANYDB_SQLITE_OK {
		return fmt.Errorf("insert the embedding of note %d of agent %d: %s (%d)", n.ID, a.id, errmsg(a.s.db), rc)
	}
	return nil
}

// KNN implements engine.VectorStore: the shared store's knn query with
// the agent bound, answered from the agent's embeddings only.
func (a *agent) KNN(q []float32, k int, dst []int64) ([]int64, error) {
	b, done := a.bind()
	defer done()
	return b.knn(q, k, dst)
}

// knn runs the knn query on the call's connection.
func (a *agent) knn(q []float32, k int, dst []int64) ([]int64, error) {
	if a.vec == nil {
		return dst, errors.New("the shared store keeps no embeddings")
	}
	if len(q) == 0 || k < 1 {
		return dst, fmt.Errorf("knn of %d values, k %d", len(q), k)
	}
	st, err := a.prepare(a.vec.KNNSQL)
	if err != nil {
		return dst, err
	}
	a.s.blob = vector.AppendBlob(a.s.blob[:0], q)
	a.s.ids = slices.Grow(a.s.ids[:0], k)[:k]
	var n C.int
	if rc := C.manydb_knn(st.st, unsafe.Pointer(&a.s.blob[0]), C.int(len(a.s.blob)), C.int(k), (*C.int64_t)(unsafe.Pointer(&a.s.ids[0])), &n); rc != C.MANYDB_SQLITE_OK {
		err = fmt.Errorf("knn: %s (%d)", errmsg(a.s.db), rc)
	}
	return append(dst, a.s.ids[:n]...), errors.Join(err, st.Close())
}

// insertOne binds note n to the prepared insert q and steps it.
func (a *agent) insertOne(q *stmt, n workload.Note) error {
	text := unsafe.StringData(n.Text)
	if rc := C.manydb_insert_one(q.st, C.int64_t(n.ID), (*C.char)(unsafe.Pointer(text)), C.int(len(n.Text)), C.int64_t(n.Ts)); rc != C.MANYDB_SQLITE_OK {
		return fmt.Errorf("insert note %d of agent %d: %s (%d)", n.ID, a.id, errmsg(a.s.db), rc)
	}
	return nil
}

// Count implements engine.Store.
func (a *agent) Count() (int64, error) {
	b, done := a.bind()
	defer done()
	return b.count()
}

// count counts the agent's notes on the call's connection.
func (a *agent) count() (int64, error) {
	q, err := a.prepare(sqlnotes.SharedCountNumbered)
	if err != nil {
		return 0, err
	}
	var n int64
	switch rc := C.sqlite3_step(q.st); rc {
	case C.MANYDB_SQLITE_ROW:
		n = int64(C.sqlite3_column_int64(q.st, 0))
	default:
		err = fmt.Errorf("count: %s (%d)", errmsg(a.s.db), rc)
	}
	return n, errors.Join(err, q.Close())
}

// Append implements engine.Store: one autocommitted insert; with an
// embedding, the two inserts in one transaction.
func (a *agent) Append(n workload.Note) error {
	b, done := a.bind()
	defer done()
	return b.appendNote(n)
}

// appendNote appends n on the call's connection.
func (a *agent) appendNote(n workload.Note) error {
	if a.vec != nil && n.Emb != nil {
		return a.s.inTx(func() error { return a.insert([]workload.Note{n}) })
	}
	q, err := a.prepare(sqlnotes.SharedInsertNumbered)
	if err != nil {
		return err
	}
	return errors.Join(a.insertOne(q, n), q.Close())
}

// Close implements engine.Store: it releases nothing, the connection
// being the shared store's.
func (a *agent) Close() error { return nil }

var _ engine.WALVariant = (*Variant)(nil)

// UseWAL implements engine.WALVariant: PRAGMA journal_mode=WAL and
// synchronous=FULL (sqlnotes.SharedSync) after every open, after the
// lean setting's pragmas if any.
func (v *Variant) UseWAL() map[string]string {
	pragmas := strings.TrimSuffix(string(v.pragmas), "\x00")
	if strings.Contains(pragmas, sqlnotes.SharedWAL) {
		return walOptions()
	}
	if pragmas != "" && !strings.HasSuffix(pragmas, ";") {
		pragmas += ";"
	}
	v.pragmas = append([]byte(pragmas+sqlnotes.SharedWAL+";"+sqlnotes.SharedSync+";"), 0)
	return walOptions()
}

// walOptions are the options UseWAL sets, as the record names them.
func walOptions() map[string]string {
	o := sqlnotes.WALOption()
	o["PRAGMA synchronous"] = "FULL"
	return o
}
