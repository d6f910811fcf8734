package pebble

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"manydb/internal/enginetest"
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

// TestPerStore measures what one open store holds: goroutines and files.
// It logs them (go test -v) and checks that a close gives them all back.
func TestPerStore(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer v.(*Variant).CloseVariant()
	const n = 4
	spec := workload.Spec{Objects: 100, TextLen: 60}
	notes := make([]workload.Note, spec.Objects)
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = t.TempDir()
		spec.Fill(i, notes)
		s, err := v.Create(dirs[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Insert(notes); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(50 * time.Millisecond) // let the creates' goroutines end
	g0, f0 := runtime.NumGoroutine(), openFiles(t)
	var open []interface{ Close() error }
	for _, d := range dirs {
		s, err := v.Open(d)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := s.Count(); err != nil || c != int64(spec.Objects) {
			t.Fatalf("count %d, %v", c, err)
		}
		open = append(open, s)
	}
	g1, f1 := runtime.NumGoroutine(), openFiles(t)
	if testing.Verbose() {
		es, _ := os.ReadDir("/proc/self/fd")
		for _, e := range es {
			if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.HasPrefix(l, dirs[0]) {
				t.Logf("store 0 holds %s", l)
			}
		}
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "pebble") {
				t.Logf("goroutine: %s", strings.SplitN(g, "\n", 3)[1])
			}
		}
	}
	t.Logf("per open store: %.1f goroutines, %.1f open files", float64(g1-g0)/n, float64(f1-f0)/n)
	if g1 <= g0 || f1 <= f0 {
		t.Errorf("%d open stores: goroutines %d → %d, files %d → %d; want both to grow", n, g0, g1, f0, f1)
	}
	for _, s := range open {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if g2, f2 := settle(g0), openFiles(t); g2 > g0 || f2 > f0 {
		t.Errorf("after closing: %d goroutines (%d before), %d files (%d before)", g2, g0, f2, f0)
	}
}

// settle waits up to a second for the goroutine count to fall to want
// and returns it.
func settle(want int) int {
	g := runtime.NumGoroutine()
	for i := 0; i < 100 && g > want; i++ {
		time.Sleep(10 * time.Millisecond)
		g = runtime.NumGoroutine()
	}
	return g
}

func openFiles(t *testing.T) int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(es)
}
