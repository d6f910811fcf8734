package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/results"
)

// golden compares got with testdata/name, rewritten under -update, and
// shows both on a mismatch.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test ./internal/report -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestFormatsGolden writes every testdata study in csv and gobench.
func TestFormatsGolden(t *testing.T) {
	for _, in := range []string{"study", "queries"} {
		recs, err := results.ReadFile(filepath.Join("testdata", in+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"csv", "gobench"} {
			t.Run(in+"."+format, func(t *testing.T) {
				var b bytes.Buffer
				if err := Write(&b, recs, format); err != nil {
					t.Fatal(err)
				}
				golden(t, in+"."+format+".golden", b.Bytes())
			})
		}
	}
	if err := Write(&bytes.Buffer{}, nil, "xml"); err == nil || !strings.Contains(err.Error(), "md, csv, json, gobench") {
		t.Errorf("unknown format: %v", err)
	}
}

// side makes a comparison side of one variant's figures.
func side(name string, figs ...Figure) Side {
	for i := range figs {
		figs[i].Study, figs[i].Setting, figs[i].Variant = "s", "default", "obx"
	}
	return Side{Name: name, Figures: figs}
}

// TestCompareGolden: a real change, none, and a figure with one sample.
func TestCompareGolden(t *testing.T) {
	steady := []float64{0.210, 0.205, 0.212, 0.208, 0.209, 0.207}
	faster := []float64{0.078, 0.076, 0.077, 0.079, 0.075, 0.077}
	noisy := []float64{0.209, 0.211, 0.206, 0.210, 0.208, 0.212}
	for name, c := range map[string]struct{ old, new Side }{
		"change": {side("old.jsonl", Figure{Name: "open", Unit: "ms", Values: steady}, Figure{Name: "anon_per_store", Unit: "KB", Values: []float64{2065}}),
			side("new.jsonl", Figure{Name: "open", Unit: "ms", Values: faster}, Figure{Name: "anon_per_store", Unit: "KB", Values: []float64{19}})},
		"none": {side("a.jsonl", Figure{Name: "open", Unit: "ms", Values: steady}),
			side("b.jsonl", Figure{Name: "open", Unit: "ms", Values: noisy})},
		"fewruns": {side("a.jsonl", Figure{Name: "open", Unit: "ms", Values: steady[:3]}),
			side("b.jsonl", Figure{Name: "open", Unit: "ms", Values: faster[:3]})},
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if _, err := Compare(&b, c.old, c.new); err != nil {
				t.Fatal(err)
			}
			golden(t, "compare-"+name+".golden", b.Bytes())
		})
	}
	if _, err := Compare(&bytes.Buffer{}, side("a"), side("b", Figure{Name: "open", Unit: "ms", Values: steady})); err == nil {
		t.Error("no figure in common: no error")
	}
}
