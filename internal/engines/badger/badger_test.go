package badger

import (
	"strings"
	"testing"

	"manydb/internal/engines/enginetest"
	"manydb/internal/workload"
)

func TestEndToEnd(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	recs := enginetest.Run(t, enginetest.Case{Variant: v, Files: []string{"MANIFEST"}})
	space := recs[len(recs)-1]
	sst := false
	for _, f := range space.Files {
		sst = sst || strings.HasSuffix(f, ".sst")
	}
	if !sst {
		t.Errorf("no .sst file among %v: the data is only in the memtable WAL", space.Files)
	}
}

// TestPerStore measures what one open store holds (go test -v shows it)
// and checks that a close gives it all back.
func TestPerStore(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.PerStore(t, v, 4, workload.Spec{Objects: 100, TextLen: 60})
}

// TestLargeWorkload checks that one store of the large workload (1,000
// notes of 300 characters) fits in one transaction with these options.
func TestLargeWorkload(t *testing.T) {
	v, _ := New()
	spec := workload.Spec{Name: "large", Objects: 1000, TextLen: 300}
	notes := make([]workload.Note, spec.Objects)
	spec.Fill(0, notes)
	s, err := v.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(notes); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Count(); err != nil || n != int64(len(notes)) {
		t.Errorf("count %d, %v; want %d", n, err, len(notes))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
