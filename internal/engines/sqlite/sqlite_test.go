package sqlite

import (
	sqlite3 "github.com/mattn/go-sqlite3"

	"database/sql/driver"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/enginetest"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/workload"
)

// TestStore checks the adapter on a real store: the schema, the notes as
// written, the count, and that the DSN's synchronous=FULL took effect.
func TestStore(t *testing.T) {
	v, _ := New()
	dir := t.TempDir()
	s, err := v.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	spec := workload.Spec{Name: "small", Objects: 25, TextLen: 60}
	notes := make([]workload.Note, spec.Objects)
	spec.Fill(4, notes)
	if err := s.Insert(notes); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName+"-journal")); !os.IsNotExist(err) {
		t.Errorf("a journal is left after close: %v", err)
	}
	s, err = v.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := s.Count(); err != nil || n != 25 {
		t.Fatalf("Count = %d, %v; want 25", n, err)
	}
	c := s.(*sqlnotes.VectorStore).Conn.(*sqlite3.SQLiteConn)
	rows, err := c.Query("SELECT text FROM notes WHERE id = 3", nil)
	if err != nil {
		t.Fatal(err)
	}
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil || string(asBytes(dest[0])) != notes[2].Text {
		t.Errorf("note 3 = %v, %v; want %q", dest[0], err, notes[2].Text)
	}
	rows.Close()
	rows, err = c.Query("PRAGMA synchronous", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rows.Next(dest); err != nil || dest[0] != int64(2) {
		t.Errorf("synchronous = %v, %v; want 2 (FULL)", dest[0], err)
	}
	rows.Close()
}

// TestSuite runs the shared adapter suite (every phase, counts checked).
func TestSuite(t *testing.T) {
	v, _ := New()
	enginetest.Run(t, enginetest.Case{Variant: v, Objects: 1000, Files: []string{FileName}, Versions: []string{"sqlite"}})
}

// TestLean runs the suite under lean, for both variants of the worker,
// and checks that the driver's store has lean's page cache and mmap size,
// and the default's again under New.
func TestLean(t *testing.T) {
	for _, f := range Factories() {
		t.Run(f.ID, func(t *testing.T) {
			enginetest.Lean(t, f, enginetest.Case{Objects: 1000, Files: []string{FileName}, Versions: []string{"sqlite"}})
		})
	}
	lean, err := NewLean()
	if err != nil {
		t.Fatal(err)
	}
	dir := enginetest.MakeStores(t, lean, 1, workload.Spec{Name: "small", Objects: 100, TextLen: 300})[0]
	check := func(v engine.Variant, want map[string]string) {
		t.Helper()
		s, err := v.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if got, err := sqlnotes.Pragmas(s.(*sqlnotes.VectorStore).Conn, "cache_size", "mmap_size"); err != nil || !maps.Equal(got, want) {
			t.Errorf("pragmas %v, %v; want %v", got, err, want)
		}
	}
	check(lean, map[string]string{"cache_size": sqlnotes.LeanCacheSize, "mmap_size": fmt.Sprint(sqlnotes.LeanMmapSize)})
	def, err := New()
	if err != nil {
		t.Fatal(err)
	}
	check(def, map[string]string{"cache_size": "-2000", "mmap_size": "0"})
}

// TestVectors checks the knn of both variants, default and lean, with
// sqlite-vec's vec0 table: a full scan, so every answer must be exact.
func TestVectors(t *testing.T) {
	eachVariant(t, func(t *testing.T, id string, v engine.Variant) {
		if got := v.Versions()[VecVersionKey]; !strings.HasPrefix(got, "v0.1.") {
			t.Errorf("versions %v: want %s v0.1.x", v.Versions(), VecVersionKey)
		}
		if s := v.(engine.VectorVariant).VectorSearch(); !s.Exact || !strings.Contains(s.Method, "vec0") {
			t.Errorf("VectorSearch() = %+v, want sqlite-vec's vec0, exact", s)
		}
		enginetest.CheckVectors(t, v, 1)
	})
}

// eachVariant runs fn on both variants, default and lean, each a subtest.
func eachVariant(t *testing.T, fn func(t *testing.T, id string, v engine.Variant)) {
	for _, f := range Factories() {
		for _, lean := range []bool{false, true} {
			mk := f.New
			if lean {
				mk = f.Lean
			}
			v, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			t.Run(fmt.Sprintf("%s/lean=%t", f.ID, lean), func(t *testing.T) { fn(t, f.ID, v) })
		}
	}
}

// TestVecLinked checks that sqlite-vec runs in mattn's SQLite, the only
// SQLite of the binary: its functions answer on a connection of mattn's
// driver, whose sqlite_version() is mattn's.
// TestVecOnlyWhenPrepared: a variant made without embeddings leaves
// sqlite-vec out of every connection (the reference workload's opens stay
// as they were); after PrepareVectors every new connection has it.
func TestVecOnlyWhenPrepared(t *testing.T) {
	for _, f := range Factories() {
		v, err := f.New()
		if err != nil {
			t.Fatal(err)
		}
		var drv sqlite3.SQLiteDriver
		c, err := drv.Open(":memory:")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sqlnotes.QueryRow(c, "SELECT vec_version()", 1); err == nil {
			t.Errorf("%s: a connection of a variant not prepared for embeddings has sqlite-vec", f.ID)
		}
		c.Close()
		if err := v.(engine.VectorPreparer).PrepareVectors(); err != nil {
			t.Fatal(err)
		}
		c, err = drv.Open(":memory:")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sqlnotes.QueryRow(c, "SELECT vec_version()", 1); err != nil {
			t.Errorf("%s: after PrepareVectors a new connection lacks sqlite-vec: %v", f.ID, err)
		}
		c.Close()
	}
}

func TestVecLinked(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.(engine.VectorPreparer).PrepareVectors(); err != nil {
		t.Fatal(err)
	}
	var drv sqlite3.SQLiteDriver
	c, err := drv.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	row, err := sqlnotes.QueryRow(c, "SELECT vec_version(), sqlite_version(), vec_distance_cosine(vec_f32('[1, 0]'), vec_f32('[0, 1]'))", 3)
	if err != nil {
		t.Fatal(err)
	}
	lib, _, _ := sqlite3.Version()
	if row[1] != lib || row[2] != 1.0 {
		t.Errorf("vec_version(), sqlite_version(), a distance = %v; want SQLite %s (mattn's) and 1", row, lib)
	}
	t.Logf("sqlite-vec %v in SQLite %v", row[0], row[1])
}

// BenchmarkOpenCountClose times one open, count and close of a store of
// 1,000 notes: go test -bench . -cpuprofile cpu.out ./internal/engines/sqlite
func BenchmarkOpenCountClose(b *testing.B) {
	v, _ := New()
	dir := b.TempDir()
	s, err := v.Create(dir)
	if err != nil {
		b.Fatal(err)
	}
	spec := workload.Spec{Name: "large", Objects: 1000, TextLen: 300}
	notes := make([]workload.Note, spec.Objects)
	spec.Fill(0, notes)
	s.Insert(notes)
	s.Close()
	b.ResetTimer()
	for range b.N {
		s, err := v.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Count(); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

func asBytes(v any) []byte {
	switch x := v.(type) {
	case []byte:
		return x
	case string:
		return []byte(x)
	}
	return nil
}

func TestShared(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckShared(t, v)
	enginetest.CheckSharedConns(t, v)
	enginetest.CheckAgentViewAllocs(t, v, 16) // its store and its agent (sqlnotes)
}

func TestWAL(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckWAL(t, v, FileName)
}

// TestSharedVectors checks sqlite_capi's shared store with embeddings
// (one vec0 table partitioned by agent), default and lean; the sqlite
// variant keeps none, as the catalog says.
func TestSharedVectors(t *testing.T) {
	eachVariant(t, func(t *testing.T, id string, v engine.Variant) {
		if err := engine.CheckSharedVectors(engine.Catalog(), v); err != nil {
			t.Fatal(err)
		}
		if id == IDCapi {
			enginetest.CheckSharedVectors(t, v)
		}
	})
}
