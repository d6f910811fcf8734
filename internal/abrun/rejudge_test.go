package abrun

import (
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"manydb/internal/abtest"
)

// TestRejudge: a comparison's record judged again gives the verdicts it
// was given, from ab.json or ab.json.gz, whatever verdicts the record
// holds (an edited one is judged from its rounds); a directory without a
// record is refused.
func TestRejudge(t *testing.T) {
	c := config()
	c.Dir = t.TempDir()
	cmp, err := runRounds(context.Background(), c, newSynthetic(2, map[string]float64{"open": 1.10}).measure, newSynthetic(2, nil).now)
	if err != nil {
		t.Fatal(err)
	}
	want := verdicts(cmp)
	for i := range cmp.Results {
		cmp.Results[i].Verdict = abtest.Unknown // a record whose verdicts are not the rule's
	}
	if err := writeRecord(c, cmp); err != nil {
		t.Fatal(err)
	}
	check := func(how string) {
		got, err := Rejudge(c.Dir, Config{Floor: abtest.DefaultFloor})
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		for fig, v := range verdicts(got) {
			if v != want[fig] {
				t.Errorf("%s: %s judged again %s, judged first %s", how, fig, v, want[fig])
			}
		}
		if len(got.Results) != len(want) {
			t.Errorf("%s: %d figures judged again, %d first", how, len(got.Results), len(want))
		}
	}
	check("ab.json")
	gzipFile(t, filepath.Join(c.Dir, "ab.json"))
	check("ab.json.gz")
	if _, err := Rejudge(t.TempDir(), Config{Floor: abtest.DefaultFloor}); !errors.Is(err, ErrConfig) {
		t.Errorf("a directory without a record: %v, want ErrConfig", err)
	}
}

// gzipFile replaces path with path.gz.
func gzipFile(t *testing.T, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path + ".gz")
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}
