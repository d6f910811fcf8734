package orchestrate

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
)

// TestVectorStudy runs a study with embeddings: the knn query's recall is
// recorded per store in the open runs and turns, an exact search that
// answers wrong fails its phase, and a variant whose family says it keeps
// no embeddings is n/a with that reason, not run.
func TestVectorStudy(t *testing.T) {
	c := fakeConfig(t, "fake", "fake_approxknn", "fake_wrongknn", "fake_slow")
	c.Catalog = []engine.Family{{Binary: "worker-fake", Variants: fakeVariants, Cgo: true,
		NoVectors: map[string]string{"fake_slow": "FAKE: this variant keeps no embeddings"}}}
	c.Workload.Objects, c.Workload.Dims = 20, 16
	c.Queries = []job.Query{job.QueryCount, job.QueryKNN}
	c.Turns = 1
	if _, err := Run(context.Background(), c); err == nil {
		t.Fatal("a study with a failed phase returned no error")
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range recs {
		if r.Variant == "" {
			continue
		}
		seen[r.Variant+"/"+string(r.Phase)+"/"+r.Status] = true
		if r.Status == results.StatusOK && r.VectorSearch == "" {
			t.Errorf("%s %s: no vector_search recorded", r.Variant, r.Phase)
		}
		switch {
		case r.Variant == "fake_slow":
			if r.Status != results.StatusNotApplicable || !strings.Contains(r.Error, "keeps no embeddings") {
				t.Errorf("fake_slow %s: status %s, %q; want n/a with the family's reason", r.Phase, r.Status, r.Error)
			}
		case r.Phase == job.PhaseOpen || r.Phase == job.PhaseTurn:
			if r.Status != results.StatusOK {
				if r.Variant != "fake_wrongknn" {
					t.Errorf("%s %s: %s: %s", r.Variant, r.Phase, r.Status, r.Error)
				}
				continue
			}
			want := 1.0
			if r.Variant == "fake_approxknn" {
				want = 0.9
			}
			if len(r.Recall) != c.Stores || r.Recall[0] != want {
				t.Errorf("%s %s: recall %v, want %d of %v", r.Variant, r.Phase, r.Recall, c.Stores, want)
			}
		}
	}
	for _, want := range []string{"fake/open/ok", "fake/turn/ok", "fake_approxknn/open/ok", "fake_wrongknn/open/failed", "fake_slow/create/n/a"} {
		if !seen[want] {
			t.Errorf("no record %s", want)
		}
	}
	if seen["fake_slow/open/ok"] {
		t.Error("fake_slow ran with embeddings")
	}
}

// TestNothingApplies: a study whose every variant is n/a (here: none
// keeps embeddings) is refused before anything is made: no root, no
// results file.
func TestNothingApplies(t *testing.T) {
	c := fakeConfig(t, "fake_slow")
	c.Catalog = []engine.Family{{Binary: "worker-fake", Variants: fakeVariants, Cgo: true,
		NoVectors: map[string]string{"fake_slow": "FAKE: this variant keeps no embeddings"}}}
	c.Workload.Dims = 16
	_, err := Run(context.Background(), c)
	var in *job.InputError
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "no variant applies to this study") || !strings.Contains(err.Error(), "keeps no embeddings") {
		t.Fatalf("err = %v, want an job.InputError saying nothing applies, and why", err)
	}
	for _, p := range []string{c.Root, c.Out} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after the refusal (%v)", p, err)
		}
	}
}
