//go:build libsql

package libsqlvec

import (
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/enginetest"
	"manydb/internal/engines/libsql"
	"manydb/internal/engines/sqlnotes"
)

// The floor of libsql_capi's mean recall@10 on enginetest.VectorSpec.
// libSQL's index is DiskANN, a graph searched approximately; on these
// stores of 300 clustered notes (8 to 32 topics) its search list
// (search_l 200 by default) covers most of a store, so a miss is rare, and
// the lean index's neighbours compressed to one bit per dimension lose a
// little more. 0.8 fails on a broken index (the wrong metric, an index
// not written by Append) and leaves room for its approximation.
const recallFloor = 0.8

// TestVectors checks libsql_capi's knn, default and lean, with libSQL's
// index: the options each reports, and the recall.
func TestVectors(t *testing.T) {
	for _, f := range libsql.Factories() {
		if f.ID != libsql.IDCapi {
			continue
		}
		for _, lean := range []bool{false, true} {
			mk, opts := f.New, sqlnotes.LibSQLIndexDefault
			if lean {
				mk, opts = f.Lean, sqlnotes.LibSQLIndexLean
			}
			v, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			search := v.(engine.VectorVariant).VectorSearch()
			if search.Exact || !strings.Contains(search.Method, "libsql_vector_idx(emb, '"+strings.Join(opts, "', '")+"')") {
				t.Errorf("lean %t: VectorSearch() = %+v; want libSQL's index with %v, not exact", lean, search, opts)
			}
			got := v.(engine.Optioner).Options()[sqlnotes.LibSQLIndexOption]
			if want := sqlnotes.LibSQLOptionValue(sqlnotes.LibSQLIndexLean); lean && got != want || !lean && got != "" {
				t.Errorf("lean %t: Options()[%s] = %q", lean, sqlnotes.LibSQLIndexOption, got)
			}
			enginetest.CheckVectors(t, v, recallFloor)
		}
	}
}
