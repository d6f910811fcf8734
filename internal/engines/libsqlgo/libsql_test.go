package libsqlgo

import (
	"database/sql/driver"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/enginetest"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/workload"
)

// TestSuite runs the shared adapter suite with the real library, and
// checks what libSQL's stores hold.
func TestSuite(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	recs := enginetest.Run(t, enginetest.Case{Variant: v, Objects: 50, Versions: []string{"libsql"}})
	space := recs[4]
	if len(space.Files) != 1 || space.Files[0] != FileName {
		t.Errorf("space: files %v, want [%s] (journal_mode=DELETE leaves no other file)", space.Files, FileName)
	}
	if !strings.HasPrefix(space.Versions["sqlite"], "3.") {
		t.Errorf("versions %v: want sqlite 3.x", space.Versions)
	}
}

// TestNotes checks that the notes are written with their values: go-libsql
// binds an argument's Ordinal as the parameter index.
func TestNotes(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := v.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	notes := []workload.Note{{ID: 7, Text: "seven", Ts: 70}, {ID: 9, Text: "nine", Ts: 90}}
	if err := s.Insert(notes); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := v.(*Variant).open(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.q.QueryContext(t.Context(), "SELECT id, text, ts FROM notes ORDER BY id", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	dest := make([]driver.Value, 3)
	for _, want := range notes {
		if err := rows.Next(dest); err != nil {
			t.Fatal(err)
		}
		if dest[0] != want.ID || dest[1] != want.Text || dest[2] != want.Ts {
			t.Errorf("row %v, want %v", dest, want)
		}
	}
}

func TestOpenMissing(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Open(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Fatal("opening a store in a missing directory succeeded")
	}
}

// recallFloor is the floor of the mean recall@10 of libSQL's index on
// enginetest.VectorSpec. The index is DiskANN, a graph searched
// approximately; on these stores of 300 clustered notes (8 to 32 topics)
// its search list (search_l, 200 by default) covers most of a store, so a
// miss is rare, and the lean index's neighbours, compressed to one bit
// per dimension, lose a little more. 0.8 fails on a broken index (the
// wrong metric, notes left out of it) and leaves room for the
// approximation.
const recallFloor = 0.8

// TestVectors checks that the library's vector functions work although
// its SQLite base is 3.45.1, and the knn with libSQL's index, default and
// lean, with the index options each reports. It comes before TestLean:
// once lean, SQLite is not configured back to its defaults here.
func TestVectors(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	s, err := v.(*Variant).open("")
	if err != nil {
		t.Fatal(err)
	}
	row, err := sqlnotes.QueryRow(s.c, "SELECT vector_extract(vector32('[1,2]')), vector_distance_cos(vector32('[1,0]'), vector32('[0,1]'))", 2)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil || row[0] != "[1,2]" || row[1] != 1.0 {
		t.Fatalf("libSQL's vector functions: %v, %v; want [1,2] and 1", row, err)
	}
	for _, lean := range []bool{false, true} {
		opts := sqlnotes.LibSQLIndexDefault
		if lean {
			opts = sqlnotes.LibSQLIndexLean
			if v, err = NewLean(); err != nil {
				t.Fatal(err)
			}
		}
		search := v.(engine.VectorVariant).VectorSearch()
		if search.Exact || !strings.Contains(search.Method, "libsql_vector_idx(emb, '"+strings.Join(opts, "', '")+"')") {
			t.Errorf("lean %t: VectorSearch() = %+v; want libSQL's index with %v, not exact", lean, search, opts)
		}
		got := v.(*Variant).Options()[sqlnotes.LibSQLIndexOption]
		if want := sqlnotes.LibSQLOptionValue(opts); lean && got != want || !lean && got != "" {
			t.Errorf("lean %t: Options()[%s] = %q", lean, sqlnotes.LibSQLIndexOption, got)
		}
		enginetest.CheckVectors(t, v, recallFloor)
	}
}

// TestLean runs the suite under lean and checks that lean's page cache
// and mmap size are in effect on a store. It comes last, so SQLite is
// not configured back to its defaults in this process: each configuration
// shuts SQLite down and starts it again, and after about 16 of them in
// one process go-libsql's next open fails with SQLITE_NOMEM (7).
func TestLean(t *testing.T) {
	enginetest.Lean(t, Factories()[0], enginetest.Case{Objects: 50, Versions: []string{"libsql"}})
	lean, err := NewLean()
	if err != nil {
		t.Fatal(err)
	}
	dir := enginetest.MakeStores(t, lean, 1, workload.Spec{Name: "small", Objects: 50, TextLen: 300})[0]
	s, err := lean.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := map[string]string{"cache_size": sqlnotes.LeanCacheSize, "mmap_size": fmt.Sprint(sqlnotes.LeanMmapSize)}
	if got, err := sqlnotes.Pragmas(s.(*store).c, "cache_size", "mmap_size"); err != nil || !maps.Equal(got, want) {
		t.Errorf("pragmas %v, %v; want %v", got, err, want)
	}
}
