package datasource

import (
	"testing"

	"manydb/internal/workload"
)

// BenchmarkCorpusCheck is the check of one returned note of a corpus
// source, as serve's turns make it for each note recent returns, after a
// worker's Ready.
func BenchmarkCorpusCheck(b *testing.B) {
	c := testCorpus(&testing.T{}, 100, 400, 4)
	src, err := newCorpusSource(workload.Spec{Objects: 1000, TextLen: 300}, workload.Data{Name: "bench"}, c, false)
	if err != nil {
		b.Fatal(err)
	}
	Ready(src, 10)
	notes := make([]workload.Note, 1000)
	src.Fill(7, notes)
	n := notes[500]
	b.ResetTimer()
	for b.Loop() {
		if err := src.Check(7, n.ID, n); err != nil {
			b.Fatal(err)
		}
	}
}
