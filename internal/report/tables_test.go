package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
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
