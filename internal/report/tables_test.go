package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/results"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestTablesGolden prints the tables of testdata/*.jsonl and compares them
// with testdata/*.golden (go test ./internal/report -update rewrites them).
func TestTablesGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			recs, err := results.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := Tables(&got, recs); err != nil {
				t.Fatal(err)
			}
			golden := in[:len(in)-len(".jsonl")] + ".golden"
			if *update {
				os.WriteFile(golden, got.Bytes(), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("tables differ from %s:\n--- got\n%s\n--- want\n%s", golden, got.String(), want)
			}
		})
	}
}

func TestThousandsAndMillis(t *testing.T) {
	tests := []struct{ got, want string }{
		{thousands(2538.4), "2,538"},
		{thousands(491), "491"},
		{thousands(1234567), "1,234,567"},
		{thousands(-1500), "-1,500"},
		{thousands(0.2), "0"},
		{millis(0.3024, 3), "0.302 ms"},
		{millis(30.725, 2), "30.73 ms"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestNoRecords(t *testing.T) {
	if err := Tables(&bytes.Buffer{}, nil); err == nil {
		t.Error("no error for no records")
	}
}

// TestSpread checks which spread a cell carries for a figure with one
// value per run: none for one run, the range for a few, benchmath's 95 %
// interval of the median from 6 runs on.
func TestSpread(t *testing.T) {
	tests := []struct {
		vals []float64
		want string
	}{
		{[]float64{0.3}, ""},
		{[]float64{0.3, 0.1, 0.2}, " (0.100–0.300)"},
		{[]float64{0.5, 0.1, 0.2, 0.3, 0.4}, " (0.100–0.500)"},
		// 6 values: the interval of the median is the lowest to the highest
		{[]float64{0.6, 0.1, 0.2, 0.3, 0.4, 0.5}, " [0.100–0.600]"},
		// 10 values: benchmath's interval is narrower than the range
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, " [2.000–9.000]"},
	}
	for _, tt := range tests {
		if got := spread(tt.vals, 3); got != tt.want {
			t.Errorf("spread(%v) = %q, want %q", tt.vals, got, tt.want)
		}
	}
}

// TestSpreadInTable checks that a study of 6 runs carries intervals and
// says so below the table, and one of 3 runs ranges.
func TestSpreadInTable(t *testing.T) {
	for _, tt := range []struct {
		runs       int
		mark, note string
	}{{6, " [", "[a–b]: the 95 % interval"}, {3, " (", "(a–b) after a timing figure: the range"}} {
		var b bytes.Buffer
		if err := Tables(&b, synthStudy("s", tt.runs, 1, 1)); err != nil {
			t.Fatal(err)
		}
		var open string
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(l, "| Open (median) |") {
				open = l
			}
		}
		if !strings.Contains(open, tt.mark) || !strings.Contains(b.String(), tt.note) {
			t.Errorf("%d runs: open row %q or the notes lack %q, %q:\n%s", tt.runs, open, tt.mark, tt.note, b.String())
		}
	}
}
