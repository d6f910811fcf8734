//go:build libsql

package libsql

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/enginetest"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// TestSuite runs the shared adapter suite with the real library.
func TestSuite(t *testing.T) {
	v, _ := New()
	recs := enginetest.Run(t, enginetest.Case{Variant: v, Objects: 200, Files: []string{sqlnotes.FileName},
		Versions: []string{"libsql", "libsql-ffi", "sqlite", "libsql_c", "rustc"}})
	if got := recs[0].Versions["libsql"]; !strings.HasPrefix(got, "0.10.") {
		t.Errorf("versions[libsql] = %q, want the crate 0.10.x", got)
	}
	if !slices.Equal(recs[4].Files, []string{sqlnotes.FileName}) {
		t.Errorf("space: files %v, want only %s (journal_mode DELETE)", recs[4].Files, sqlnotes.FileName)
	}
}

// TestCapiSuite runs the shared suite with libsql_capi: libSQL's C API of
// the same library called directly.
func TestCapiSuite(t *testing.T) {
	for _, f := range Factories() {
		if f.ID != IDCapi {
			continue
		}
		v, err := f.New()
		if err != nil {
			t.Fatal(err)
		}
		recs := enginetest.Run(t, enginetest.Case{Variant: v, Objects: 200, Files: []string{sqlnotes.FileName}, Versions: []string{"sqlite", "libsql"}})
		if got, want := recs[0].Versions["sqlite"], "3.47."; !strings.HasPrefix(got, want) {
			t.Errorf("versions[sqlite] = %q, want libSQL's %sx", got, want)
		}
		return
	}
	t.Fatal("no libsql_capi factory")
}

// Open of a folder without a store fails and creates nothing.
func TestOpenMissing(t *testing.T) {
	v, _ := New()
	dir := t.TempDir()
	if _, err := v.Open(dir); err == nil {
		t.Fatal("Open of an empty folder succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, sqlnotes.FileName)); !os.IsNotExist(err) {
		t.Errorf("Open made %s (%v)", sqlnotes.FileName, err)
	}
}

// TestStress makes 20,000 open/count/close cycles over 50 stores in one
// process, as for libsql_go: the crate closes each connection once, on the
// calling thread, so it must never crash.
func TestStress(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 open/count/close cycles; runs without -short")
	}
	v, _ := New()
	dirs := enginetest.MakeStores(t, v, 50, workload.Spec{Name: "custom", Objects: 100, TextLen: 300})
	for i := 0; i < 20000; i++ {
		s, err := v.Open(dirs[i%len(dirs)])
		if err != nil {
			t.Fatalf("cycle %d: open: %v", i, err)
		}
		if n, err := s.Count(); err != nil || n != 100 {
			t.Fatalf("cycle %d: count %d, %v; want 100", i, n, err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("cycle %d: close: %v", i, err)
		}
	}
}

// TestLean runs the suite under lean for both variants, and checks on a
// store of the SDK variant that lean's page cache is in effect (read
// through the pragma's table-valued function as a row of notes), and the
// default's again under New. mmap_size has no table-valued function; it
// is set by the same sqlitecapi.Configure as sqlite_capi's, whose test
// reads it.
func TestLean(t *testing.T) {
	for _, f := range Factories() {
		t.Run(f.ID, func(t *testing.T) {
			enginetest.Lean(t, f, enginetest.Case{Objects: 200, Files: []string{sqlnotes.FileName}, Versions: []string{"sqlite", "libsql"}})
		})
	}
	lean, err := NewLean()
	if err != nil {
		t.Fatal(err)
	}
	dir := enginetest.MakeStores(t, lean, 1, workload.Spec{Name: "small", Objects: 100, TextLen: 300})[0]
	check := func(v engine.Variant, cache int64) {
		t.Helper()
		s, err := v.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for pragma, want := range map[string]int64{"cache_size": cache} {
			st, err := s.(*store).prep("SELECT " + pragma + ", '', 0 FROM pragma_" + pragma + "()")
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			if _, err := st.Rows(false, 0, func(n workload.Note) { got = append(got, n.ID) }); err != nil || len(got) != 1 || got[0] != want {
				t.Errorf("%s = %v, %v; want %d", pragma, got, err, want)
			}
			st.Close()
		}
	}
	check(lean, -64)
	def, err := New()
	if err != nil {
		t.Fatal(err)
	}
	check(def, -2000)
}

// The floor of the libsql variant's mean recall@10 on
// enginetest.VectorSpec. libSQL's index is DiskANN, a graph searched
// approximately; on these stores of 300 clustered notes its search list
// (search_l 200 by default) covers most of a store, so a miss is rare, and
// the lean index's neighbours, compressed to one bit per dimension, lose a
// little more. 0.8 fails on a broken index (the wrong metric, an index
// not written by Append or Insert) and leaves room for the approximation.
const recallFloor = 0.8

// TestVectors checks the libsql variant's knn, default and lean, with
// libSQL's index: the search and options each reports, the recall, and
// that the ids come nearest first.
func TestVectors(t *testing.T) {
	for _, lean := range []bool{false, true} {
		mk, opts := New, sqlnotes.LibSQLIndexDefault
		if lean {
			mk, opts = NewLean, sqlnotes.LibSQLIndexLean
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
		checkNearestFirst(t, v)
	}
}

// checkNearestFirst checks on a store of enginetest.VectorSpec that every
// knn answer comes in ascending distance to the query (vector_top_k's
// order), within vector.Tolerance for float32 sums.
func checkNearestFirst(t *testing.T, v engine.Variant) {
	t.Helper()
	spec := enginetest.VectorSpec
	notes := make([]workload.Note, spec.Objects)
	spec.Fill(0, notes)
	s, err := v.(engine.VectorVariant).CreateVectors(t.TempDir(), spec.Dims)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Insert(notes); err != nil {
		t.Fatal(err)
	}
	e := spec.Embedder(0)
	q := make([]float32, spec.Dims)
	var ids []int64
	for seed := range uint64(10) {
		q, _ = e.Query(seed, spec.Objects, q)
		if ids, err = s.(engine.VectorStore).KNN(q, vector.K, ids[:0]); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(ids); i++ {
			if a, b := vector.Distance(notes[ids[i-1]-1].Emb, q), vector.Distance(notes[ids[i]-1].Emb, q); b < a-vector.Tolerance {
				t.Fatalf("query %d: knn %v: id %d (distance %.6f) after id %d (%.6f)", seed, ids, ids[i], b, ids[i-1], a)
			}
		}
	}
}

// TestCapiShared checks libsql_capi's shared layout (the statements of
// package sqlitecapi on libSQL's library).
func TestCapiShared(t *testing.T) {
	v, err := enginetest.Factory(t, Factories(), IDCapi).New()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckShared(t, v)
	enginetest.CheckSharedConns(t, v)
}

// TestCapiSharedVectors checks libsql_capi's shared store with
// embeddings (one DiskANN index over every agent's notes, filtered by
// agent), default and lean: each agent's answers are of its own notes.
func TestCapiSharedVectors(t *testing.T) {
	f := enginetest.Factory(t, Factories(), IDCapi)
	for _, mk := range []func() (engine.Variant, error){f.New, f.Lean} {
		v, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		if err := engine.CheckSharedVectors(engine.Catalog(), v); err != nil {
			t.Fatal(err)
		}
		enginetest.CheckSharedVectors(t, v)
	}
}

// TestCapiWAL checks libsql_capi under the wal setting.
func TestCapiWAL(t *testing.T) {
	v, err := enginetest.Factory(t, Factories(), IDCapi).New()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckWAL(t, v, sqlnotes.FileName)
}
