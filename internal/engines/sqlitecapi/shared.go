package sqlitecapi

/*
#include "capi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/workload"
)

var (
	_ engine.SharedVariant = (*Variant)(nil)
	_ engine.SharedStore   = (*shared)(nil)
	_ engine.Store         = (*agent)(nil)
)

// CreateShared implements engine.SharedVariant: one database for every
// agent (sqlnotes.SharedSchema, its pragmas first), opened as a store of
// one agent is.
func (v *Variant) CreateShared(dir string) (engine.SharedStore, error) {
	s, err := v.open(dir, true)
	if err != nil {
		return nil, err
	}
	for _, q := range []string{sqlnotes.SharedPragmas, sqlnotes.SharedWAL, sqlnotes.SharedSync, sqlnotes.SharedSchema} {
		if err := s.exec(q); err != nil {
			s.Close()
			return nil, err
		}
	}
	return &shared{s: s}, nil
}

// OpenShared implements engine.SharedVariant.
func (v *Variant) OpenShared(dir string) (engine.SharedStore, error) {
	s, err := v.open(dir, false)
	if err != nil {
		return nil, err
	}
	if err := s.exec(sqlnotes.SharedSync); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return &shared{s: s}, nil
}

// SharedLayout implements engine.SharedVariant.
func (v *Variant) SharedLayout() string {
	return sqlnotes.SharedLayout + "; the statements of a store of one agent with the agent as parameter ?4, bound when prepared"
}

// shared is the open shared store: one connection.
type shared struct{ s *store }

// Agent implements engine.SharedStore.
func (sh *shared) Agent(a int) (engine.Store, error) { return &agent{s: sh.s, id: int64(a)}, nil }

// DeleteAgent implements engine.SharedStore: the agent's rows deleted
// (autocommit), then the free pages given back (sqlnotes.SharedReclaim,
// sqlnotes.SharedCheckpoint).
func (sh *shared) DeleteAgent(a int) error {
	q, err := (&agent{s: sh.s, id: int64(a)}).prepare(sqlnotes.SharedDeleteNumbered)
	if err != nil {
		return err
	}
	if rc := C.sqlite3_step(q.st); rc != C.MANYDB_SQLITE_DONE {
		err = fmt.Errorf("delete agent %d: %s (%d)", a, errmsg(sh.s.db), rc)
	}
	if err = errors.Join(err, q.Close()); err != nil {
		return err
	}
	return errors.Join(sh.s.exec(sqlnotes.SharedReclaim), sh.s.exec(sqlnotes.SharedCheckpoint))
}

// Close implements engine.SharedStore.
func (sh *shared) Close() error { return sh.s.Close() }

// agent is one agent's view of the shared store.
type agent struct {
	s  *store
	id int64
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

func (a *agent) queries() sqlnotes.Queries {
	return sqlnotes.Queries{Prepare: a.prep, SQL: sqlnotes.SharedNumbered}
}

// Insert implements engine.Store: the agent's notes between BEGIN and
// COMMIT with one prepared statement.
func (a *agent) Insert(notes []workload.Note) error {
	return a.s.inTx(func() error {
		q, err := a.prepare(sqlnotes.SharedInsertNumbered)
		if err != nil {
			return err
		}
		for _, n := range notes {
			if err := a.insertOne(q, n); err != nil {
				return errors.Join(err, q.Close())
			}
		}
		return q.Close()
	})
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

// Recent implements engine.Store.
func (a *agent) Recent(n int, dst []workload.Note) ([]workload.Note, error) {
	return a.queries().Recent(n, dst)
}

// Get implements engine.Store.
func (a *agent) Get(ids []int64, dst []workload.Note) ([]workload.Note, error) {
	return a.queries().Get(ids, dst)
}

// Scan implements engine.Store.
func (a *agent) Scan(fn func(workload.Note)) error { return a.queries().Scan(fn) }

// Append implements engine.Store: one autocommitted insert.
func (a *agent) Append(n workload.Note) error {
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
