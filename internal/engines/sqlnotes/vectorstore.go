package sqlnotes

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"manydb/internal/engine"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// VectorsFunc is a variant's choice of Vectors (SQLiteVec, LibSQL with
// its options, Turso, ScanInGo): the statements for embeddings of dims
// values.
type VectorsFunc func(dims int) Vectors

// Search is what a variant with these statements reports
// (engine.VectorVariant): a Search names no dims, so any dims gives it.
func (f VectorsFunc) Search() engine.VectorSearch { return f(0).Search }

// VectorStore is Store for the adapters with vectors that work through a
// database/sql/driver connection (SQLite through mattn and modernc,
// turso-go): the variant's Open returns one for every store, since it
// cannot tell a store with embeddings from one without. A note with an
// embedding (workload.Note.Emb) is written with it by Vectors' statements,
// which must then be those the store was made with (CreateVectors); a
// note without one is written as Store writes it, so a store made by
// Create runs exactly the statements it runs without vectors. KNN
// searches with Vectors' knn query.
type VectorStore struct {
	Store
	// Vectors is the variant's choice of statements.
	Vectors VectorsFunc

	vec  Vectors // Vectors(dims) for the dims last seen
	dims int
	blob []byte       // the embedding being bound
	emb  []float32    // an embedding read back (ScanInGo)
	top  *vector.TopK // the nearest kept (ScanInGo), for topK of them
	topK int
}

var (
	_ engine.Store       = (*VectorStore)(nil)
	_ engine.VectorStore = (*VectorStore)(nil)
)

// CreateVectors commits vec's schema on c, a new database's connection,
// in one transaction, and returns c as a VectorStore of vectors; c is
// closed when that fails.
func CreateVectors(c driver.Conn, dims int, vectors VectorsFunc) (*VectorStore, error) {
	vec := vectors(dims)
	if err := inTx(c, func() error {
		for _, q := range vec.Schema {
			if err := exec(c, q, nil); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	}); err != nil {
		c.Close()
		return nil, fmt.Errorf("create the store with vectors: %w", err)
	}
	return &VectorStore{Store: NewStore(c), Vectors: vectors, vec: vec, dims: dims}, nil
}

// statements returns Vectors(dims), made once per dims.
func (s *VectorStore) statements(dims int) *Vectors {
	if s.vec.KNNSQL == "" || s.dims != dims {
		s.vec, s.dims = s.Vectors(dims), dims
	}
	return &s.vec
}

// Insert implements engine.Store: notes with embeddings in one
// transaction through Vectors' statements, prepared once; notes without
// as Store.Insert writes them.
func (s *VectorStore) Insert(notes []workload.Note) error {
	if len(notes) == 0 || notes[0].Emb == nil {
		return s.Store.Insert(notes)
	}
	return s.insert(notes)
}

// Append implements engine.Store: a note with its embedding is written in
// its own transaction (with sqlite-vec, two inserts: the note and its
// vector), committed as Insert's; a note without as Store.Append does.
func (s *VectorStore) Append(n workload.Note) error {
	if n.Emb == nil {
		return s.Store.Append(n)
	}
	return s.insert([]workload.Note{n})
}

func (s *VectorStore) insert(notes []workload.Note) error {
	vec := s.statements(len(notes[0].Emb))
	c := s.Conn
	return inTx(c, func() (err error) {
		ins, err := c.Prepare(vec.InsertSQL)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, ins.Close()) }()
		var vins driver.Stmt
		if vec.VecInsertSQL != "" {
			if vins, err = c.Prepare(vec.VecInsertSQL); err != nil {
				return err
			}
			defer func() { err = errors.Join(err, vins.Close()) }()
		}
		args := make([]driver.Value, 4)
		for _, n := range notes {
			if len(n.Emb) != len(notes[0].Emb) {
				return fmt.Errorf("note %d: an embedding of %d values, want %d", n.ID, len(n.Emb), len(notes[0].Emb))
			}
			s.blob = vector.AppendBlob(s.blob[:0], n.Emb)
			args[0], args[1], args[2], args[3] = n.ID, n.Text, n.Ts, s.blob
			if !vec.EmbInNotes {
				args = args[:3]
			}
			if _, err := ins.Exec(args); err != nil { //lint:ignore SA1019 the driver's own Exec, no context needed
				return fmt.Errorf("insert note %d: %w", n.ID, err)
			}
			args = args[:4]
			if vins != nil {
				if _, err := vins.Exec([]driver.Value{n.ID, s.blob}); err != nil { //lint:ignore SA1019 as above
					return fmt.Errorf("insert note %d's embedding: %w", n.ID, err)
				}
			}
		}
		return nil
	})
}

// KNN implements engine.VectorStore: Vectors' knn query, prepared, bound
// with the query's blob and k; or, for ScanInGo, every note's embedding
// read and the k nearest kept in Go.
func (s *VectorStore) KNN(q []float32, k int, dst []int64) (_ []int64, err error) {
	vec := s.statements(len(q))
	st, err := s.Conn.Prepare(vec.KNNSQL)
	if err != nil {
		return dst, fmt.Errorf("prepare %s: %w", vec.KNNSQL, err)
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	var args []driver.Value
	if !vec.ScanInGo {
		s.blob = vector.AppendBlob(s.blob[:0], q)
		args = []driver.Value{s.blob, int64(k)}
	}
	rows, err := st.Query(args) //lint:ignore SA1019 the driver's own Query, no context needed
	if err != nil {
		return dst, fmt.Errorf("%s: %w", vec.KNNSQL, err)
	}
	defer func() { err = errors.Join(err, rows.Close()) }()
	if !vec.ScanInGo {
		return IDs(rows, dst)
	}
	if s.top == nil || s.topK != k {
		s.top, s.topK = vector.NewTopK(k), k
	}
	s.top.Reset()
	dest := make([]driver.Value, 2)
	for {
		if err := rows.Next(dest); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return dst, err
		}
		id, ok1 := dest[0].(int64)
		b, ok2 := dest[1].([]byte)
		if !ok1 || !ok2 {
			return dst, fmt.Errorf("row of %T, %T: want an id and an embedding blob", dest[0], dest[1])
		}
		if s.emb, err = vector.FromBlob(b, s.emb); err != nil {
			return dst, fmt.Errorf("note %d: %w", id, err)
		}
		if len(s.emb) != len(q) {
			return dst, fmt.Errorf("note %d: an embedding of %d values, the query has %d", id, len(s.emb), len(q))
		}
		s.top.Offer(id, vector.Distance(s.emb, q))
	}
	return s.top.AppendIDs(dst), nil
}

// IDs appends the first column of every row of rows, an id, to dst.
func IDs(rows driver.Rows, dst []int64) ([]int64, error) {
	dest := make([]driver.Value, len(rows.Columns()))
	for {
		if err := rows.Next(dest); errors.Is(err, io.EOF) {
			return dst, nil
		} else if err != nil {
			return dst, err
		}
		id, ok := dest[0].(int64)
		if !ok {
			return dst, fmt.Errorf("knn returned an id of %T, want int64", dest[0])
		}
		dst = append(dst, id)
	}
}

// inTx runs fn between the connection's Begin and Commit, rolling back
// when it fails.
func inTx(c driver.Conn, fn func() error) error {
	tx, err := c.Begin() //lint:ignore SA1019 the driver's own Begin, no context needed
	if err != nil {
		return err
	}
	if err := fn(); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	return tx.Commit()
}

// exec runs query with args through the connection's Exec when it has
// one, otherwise through a prepared statement.
func exec(c driver.Conn, query string, args []driver.Value) error {
	if x, ok := c.(driver.Execer); ok { //lint:ignore SA1019 the driver's own Exec, no context needed
		_, err := x.Exec(query, args)
		if !errors.Is(err, driver.ErrSkip) {
			return err
		}
	}
	st, err := c.Prepare(query)
	if err != nil {
		return err
	}
	_, err = st.Exec(args) //lint:ignore SA1019 as above
	return errors.Join(err, st.Close())
}
