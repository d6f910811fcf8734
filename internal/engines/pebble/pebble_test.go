package pebble

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
	recs := enginetest.Run(t, enginetest.Case{Variant: v, Files: []string{"LOCK"},
		Versions: []string{"pebble_format"}})
	// The data must be in an sstable after create, not only in the WAL.
	space := recs[len(recs)-1]
	sst := false
	for _, f := range space.Files {
		sst = sst || strings.HasSuffix(f, ".sst")
	}
	if !sst {
		t.Errorf("no .sst file among %v: the create did not flush", space.Files)
	}
}

// TestPerStore measures what one open store holds (go test -v shows it)
// and checks that a close gives it all back.
func TestPerStore(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer v.(*Variant).CloseVariant()
	g, _ := enginetest.PerStore(t, v, 4, workload.Spec{Objects: 100, TextLen: 60})
	if g <= 0 {
		t.Errorf("%.1f goroutines per open store, want Pebble's background goroutines", g)
	}
}
