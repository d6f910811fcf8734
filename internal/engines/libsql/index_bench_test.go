//go:build libsql

package libsql

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlitecapi"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// indexOptions are the vector index options the benchmark compares: the
// lean setting's, then each change that might remove its tail of answers
// that find none of the 10 nearest, then libSQL's default.
var indexOptions = []struct {
	name    string
	options []string
}{
	{"lean", sqlnotes.LibSQLIndexLean},
	{"lean+search_l=500", append(sqlnotes.LibSQLIndexLean[:len(sqlnotes.LibSQLIndexLean):len(sqlnotes.LibSQLIndexLean)], "search_l=500")},
	{"max_neighbors=64", []string{"metric=cosine", "compress_neighbors=float1bit", "max_neighbors=64"}},
	{"float8", []string{"metric=cosine", "compress_neighbors=float8", "max_neighbors=32"}},
	{"default", sqlnotes.LibSQLIndexDefault},
}

// BenchmarkLibSQLIndexOptions makes b.N stores of the large workload with
// 384-value embeddings under each set of index options and asks each
// store 20 knn queries, the stores in a random order in one process, as
// an open run does. ns/op is one store's create (with its index); it
// reports the store's size on disk, the mean recall@10, the share of
// answers below a recall of 50 % and the share of answers with fewer than
// 10 ids. libSQL starts every search at a random node of the index
// (diskAnnSelectRandomShadowRow), so the tail varies from run to run.
// Run with: go test -tags libsql -run '^$' -bench LibSQLIndexOptions -benchtime 20x ./internal/engines/libsql/
func BenchmarkLibSQLIndexOptions(b *testing.B) {
	if err := sqlitecapi.Configure(false, false); err != nil {
		b.Fatal(err)
	}
	spec := workload.Spec{Name: "large", Objects: 1000, TextLen: 300, Dims: 384}
	for _, o := range indexOptions {
		b.Run(o.name, func(b *testing.B) {
			v := &Variant{vectors: vectorsWith(o.options)}
			dir := b.TempDir()
			notes := make([]workload.Note, spec.Objects)
			b.ResetTimer()
			for i := range b.N {
				spec.Fill(i, notes)
				if err := createStore(v, storeDir(dir, i), spec.Dims, notes); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			t := askStores(b, v, dir, spec, b.N)
			b.ReportMetric(float64(dirBytes(b, dir))/float64(b.N), "bytes/store")
			b.ReportMetric(100*t.recall/float64(t.answers), "recall-mean-%")
			b.ReportMetric(100*float64(t.belowHalf)/float64(t.answers), "answers-below-50-%")
			b.ReportMetric(100*float64(t.short)/float64(t.answers), "answers-short-%")
		})
	}
}

func storeDir(dir string, i int) string { return filepath.Join(dir, fmt.Sprintf("%06d", i)) }

// createStore makes one store with its embeddings in dir.
func createStore(v engine.VectorVariant, dir string, dims int, notes []workload.Note) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	s, err := v.CreateVectors(dir, dims)
	if err != nil {
		return err
	}
	if err := s.Insert(notes); err != nil {
		s.Close()
		return err
	}
	return s.Close()
}

// tally counts the knn answers of the benchmark.
type tally struct {
	answers, belowHalf, short int
	recall                    float64
}

// askStores opens each of the n stores in dir in a random order and asks
// it 20 knn queries, each checked against the exact nearest notes.
func askStores(b *testing.B, v engine.Variant, dir string, spec workload.Spec, n int) tally {
	var t tally
	q, vec := make([]float32, spec.Dims), make([]float32, spec.Dims)
	dists := make([]float64, spec.Objects)
	for _, i := range rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0)).Perm(n) {
		s, err := v.Open(storeDir(dir, i))
		if err != nil {
			b.Fatal(err)
		}
		e := spec.Embedder(i)
		for seed := range uint64(20) {
			q, _ = e.Query(seed+1, spec.Objects, q)
			ids, err := s.(engine.VectorStore).KNN(q, vector.K, make([]int64, 0, vector.K))
			if err != nil {
				b.Fatal(err)
			}
			for id := range spec.Objects {
				vec = e.Note(int64(id+1), vec)
				dists[id] = vector.Distance(vec, q)
			}
			r := vector.Recall(vector.K, dists, ids)
			t.answers++
			t.recall += r
			if r < 0.5 {
				t.belowHalf++
			}
			if len(ids) < vector.K {
				t.short++
			}
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	return t
}

// dirBytes sums the sizes of the files under dir.
func dirBytes(b *testing.B, dir string) int64 {
	var sum int64
	err := filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			sum += info.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return sum
}
