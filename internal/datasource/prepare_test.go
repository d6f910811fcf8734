package datasource

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/workload"
)

// writeFvecs writes n vectors of dims values to path.
func writeFvecs(t *testing.T, path string, n, dims int, seed float64) {
	t.Helper()
	var b []byte
	for i := range n {
		b = binary.LittleEndian.AppendUint32(b, uint32(dims))
		for d := range dims {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(math.Sin(seed+float64(i*dims+d)))))
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPrepareUserFile: a user's vectors are prepared once into the cache,
// opened by a worker from the Data Prepare returns, made again when the
// file changes, and refused when the study's stores cannot be filled or
// the dims differ.
func TestPrepareUserFile(t *testing.T) {
	t.Setenv("MANYDB_CACHE", t.TempDir())
	path := filepath.Join(t.TempDir(), "mine.fvecs")
	writeFvecs(t, path, 3000, 8, 0)
	d, err := Choose(path)
	if err != nil || d.Name != fileSource || d.Version != path {
		t.Fatalf("Choose(%s) = %+v, %v", path, d, err)
	}
	spec := workload.Spec{Objects: 100, TextLen: 300, Dims: 8, Data: d}
	p := Prep{Spec: spec, Stores: 20, ThirdParty: t.TempDir()}
	first, err := Prepare(p)
	if err != nil || len(first.SHA256) != 64 || first.Name != fileSource {
		t.Fatalf("Prepare = %+v, %v", first, err)
	}
	spec.Data = first
	src, err := Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	notes := make([]workload.Note, spec.Objects)
	src.Fill(0, notes)
	if !strings.HasSuffix(notes[0].Text, "of mine.fvecs") || len(notes[0].Emb) != 8 {
		t.Errorf("a note of a user's vectors: %+v", notes[0])
	}
	writeFvecs(t, path, 3000, 8, 1)
	second, err := Prepare(p)
	if err != nil || second.SHA256 == first.SHA256 {
		t.Errorf("the file changed: Prepare = %+v, %v; want another SHA-256 than %s", second, err, first.SHA256)
	}
	p.Stores, p.Spec.Objects = 20, 5000
	if _, err := Prepare(p); err == nil || !strings.Contains(err.Error(), "--objects asks for 5000") {
		t.Errorf("5,000 notes a store from 3,000 vectors: %v", err)
	}
	p.Spec.Objects, p.Spec.Dims = 100, 16
	if _, err := Prepare(p); err == nil || !strings.Contains(err.Error(), "8 dims, --dims asks for 16") {
		t.Errorf("--dims 16 on vectors of 8: %v", err)
	}
}

// TestPrepareMissing: a named data set whose files are not fetched is
// refused saying what fetches them; a missing user file is refused by
// Choose.
func TestPrepareMissing(t *testing.T) {
	t.Setenv("MANYDB_CACHE", t.TempDir())
	for _, name := range []string{GloVe50, MiniLMWordNet} {
		d, _ := Choose(name)
		_, err := Prepare(Prep{Spec: workload.Spec{Objects: 10, TextLen: 300, Data: d}, Stores: 1, ThirdParty: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "make build") {
			t.Errorf("%s without its files: %v, want an error naming make build", name, err)
		}
	}
	if _, err := Choose(filepath.Join(t.TempDir(), "none.jsonl")); err == nil {
		t.Error("a missing file: no error")
	}
	if _, err := Open(workload.Spec{Objects: 1, TextLen: 1, Data: workload.Data{Name: GloVe50, SHA256: strings.Repeat("0", 64)}}); err == nil || !strings.Contains(err.Error(), "manydb run prepares it") {
		t.Errorf("a worker without the prepared corpus: %v", err)
	}
}
