package postgres

import (
	"errors"
	"fmt"

	"manydb/internal/engine"
)

// Embeddings are pgvector's vector(D) column emb with an HNSW index
// (vector_cosine_ops, pgvector's defaults: m = 16, ef_construction = 64,
// and at search hnsw.ef_search = 40 with iterative scans off), in a
// store per agent and in the shared table alike. An agent's knn is
// ORDER BY emb <=> q LIMIT k over its own rows: in the shared layout the
// index covers every agent's notes and the agent's filter is applied to
// what the index returns (pgvector's filtered search).
const (
	hnswIndex = "CREATE INDEX ON %s USING hnsw (emb vector_cosine_ops)"
	embColumn = ", emb vector(%d) NOT NULL"
)

// CreateVectors implements engine.VectorVariant.
func (v *Variant) CreateVectors(dir string, dims int) (engine.Store, error) {
	if err := v.checkVectors(dims); err != nil {
		return nil, err
	}
	s := newStore(v.pool, schemaOf(dir), -1)
	if err := s.create(withEmb(perAgentTable, dims), hnswIndex); err != nil {
		return nil, err
	}
	return s, nil
}

// VectorSearch implements engine.VectorVariant.
func (v *Variant) VectorSearch() engine.VectorSearch {
	return engine.VectorSearch{Method: fmt.Sprintf("pgvector %s HNSW index per agent's table, %s; knn: ORDER BY emb <=> q LIMIT k (%s); the planner picks the index or a sort of the agent's rows by distance (exact), by the table's statistics", v.version["pgvector"], fmt.Sprintf(hnswIndex, "notes"), v.scanText())}
}

// CreateSharedVectors implements engine.SharedVectorVariant.
func (v *Variant) CreateSharedVectors(dir string, dims int) (engine.SharedStore, error) {
	if err := v.checkVectors(dims); err != nil {
		return nil, err
	}
	s := v.sharedStore(dir)
	if err := s.table.create(v.sharedDefinition(withEmb(sharedTable, dims)), hnswIndex); err != nil {
		return nil, err
	}
	return s, nil
}

// SharedVectorSearch implements engine.SharedVectorVariant.
func (v *Variant) SharedVectorSearch() engine.VectorSearch {
	if v.partitioned() {
		return engine.VectorSearch{Method: fmt.Sprintf("pgvector %s HNSW index of each agent's partition (a partitioned index, %s); knn: WHERE agent = $1 ORDER BY emb <=> q LIMIT k, the planner keeping the agent's partition only and picking its index or a sort of its rows by distance (exact), by the partition's statistics (%s)", v.version["pgvector"], fmt.Sprintf(hnswIndex, "notes"), v.scanText())}
	}
	return engine.VectorSearch{Method: fmt.Sprintf("pgvector %s one HNSW index over every agent's notes, %s; knn: WHERE agent = $1 ORDER BY emb <=> q LIMIT k, the agent's filter applied to what the index returns (%s)", v.version["pgvector"], fmt.Sprintf(hnswIndex, "notes"), v.scanText())}
}

// scanText says how the variant's HNSW scan runs.
func (v *Variant) scanText() string {
	if v.iterative() {
		return "hnsw.ef_search 40, hnsw.iterative_scan = " + iterativeScan + ": the scan goes on until k rows pass the filter, up to hnsw.max_scan_tuples 20,000"
	}
	return "hnsw.ef_search 40, iterative scan off: pgvector's defaults"
}

// checkVectors checks that the variant can make stores with embeddings
// of dims values: a server and pgvector on it.
func (v *Variant) checkVectors(dims int) error {
	switch {
	case v.pool == nil:
		return errNoServer
	case v.noVector != "":
		return errors.New("the database has no pgvector: " + v.noVector)
	case !v.hasVector:
		return errors.New("the server has no pgvector (CREATE EXTENSION vector)")
	case dims < 1 || dims > 16000:
		return fmt.Errorf("pgvector's vector type holds 1 to 16,000 values, not %d", dims)
	}
	return nil
}

// withEmb adds the embedding column of dims values to a table's
// definition.
func withEmb(table string, dims int) string {
	return table[:len(table)-1] + fmt.Sprintf(embColumn, dims) + ")"
}

// KNN implements engine.VectorStore.
func (s *store) KNN(q []float32, k int, dst []int64) ([]int64, error) {
	query := fmt.Sprintf("SELECT id FROM %s%s ORDER BY emb <=> %s LIMIT %s", s.table, s.whereAll(), s.arg(1), s.arg(2))
	rows, err := s.pool.Query(ctx, query, s.with(vec(q), k)...)
	if err != nil {
		return dst, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return dst, err
		}
		dst = append(dst, id)
	}
	return dst, rows.Err()
}
