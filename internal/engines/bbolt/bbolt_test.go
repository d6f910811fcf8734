package bbolt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	enginetest.Run(t, enginetest.Case{Variant: v, Files: []string{FileName}})
}

// TestOpenTimeout checks that an open gives up on a store whose file lock
// another handle holds, instead of waiting for ever.
func TestOpenTimeout(t *testing.T) {
	v := newVariant(FillPercent)
	v.opts.Timeout = 50 * 1e6 // 50 ms
	dir := t.TempDir()
	s, err := v.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s2, err := v.Open(dir); err == nil {
		s2.Close()
		t.Fatal("second open of a locked store succeeded, want a timeout")
	}
}

// BenchmarkFillPercent compares bbolt's default fill percent with 1.0 for
// a store of the large workload: file size and the time of open, count,
// close.
//
//	go test -run '^$' -bench FillPercent ./internal/engines/bbolt/
func BenchmarkFillPercent(b *testing.B) {
	spec := workload.Spec{Name: "large", Objects: 1000, TextLen: 300}
	notes := make([]workload.Note, spec.Objects)
	spec.Fill(0, notes)
	for _, fill := range []float64{0.5, 1.0} {
		b.Run(fmt.Sprintf("fill=%.1f", fill), func(b *testing.B) {
			v := newVariant(fill)
			dir := b.TempDir()
			s, err := v.Create(dir)
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Insert(notes); err != nil {
				b.Fatal(err)
			}
			st, err := os.Stat(filepath.Join(dir, FileName))
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
			// As in the open phase: each count runs on a fresh mapping,
			// so it faults in every page it walks.
			for b.Loop() {
				s, err := v.Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				if n, err := s.Count(); err != nil || n != int64(len(notes)) {
					b.Fatalf("count %d, %v", n, err)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(st.Size()), "file-bytes")
		})
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

// Opening a store whose file is missing fails without making an empty
// store, and says nothing of another process.
func TestOpenMissingFile(t *testing.T) {
	v, _ := New()
	dir := t.TempDir()
	_, err := v.Open(dir)
	if err == nil || strings.Contains(err.Error(), "another process") || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open of a missing store: err = %v, want a missing-file error", err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !os.IsNotExist(err) {
		t.Errorf("Open made %s (%v)", FileName, err)
	}
}

// TestVectors checks the knn of a store made by CreateVectors: an exact
// scan, so recall 1 on every query (floor 1).
func TestVectors(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckVectors(t, v, 1)
}

func TestShared(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckShared(t, v)
}

// TestSharedVectors checks the shared store with embeddings: a bucket of
// embeddings per agent.
func TestSharedVectors(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckSharedVectors(t, v)
}
