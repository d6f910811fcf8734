package report

import (
	"bytes"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
)

// TestServeStoppedEarly: a pool step that stopped early at its time limit
// is marked in its block (a "Requests served" row) and in the summary, its
// requests per second are of the requests done, and a step stopped in its
// warm-up shows no figure. Blocks where no step stopped early have no such
// row.
func TestServeStoppedEarly(t *testing.T) {
	recs, err := results.ReadFile("testdata/serve.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var early, none *results.Serve
	for i := range recs {
		r := &recs[i]
		if r.Phase != job.PhaseServe || r.Status != results.StatusOK {
			continue
		}
		r.Serve.PoolTimeS = 1200
		switch {
		case r.Variant == "sqlite" && r.Serve.Pool == 0:
			early = r.Serve
		case r.Variant == "bbolt" && r.Serve.Pool == 0:
			none = r.Serve
		}
	}
	if early == nil || none == nil {
		t.Fatal("testdata/serve.jsonl has no pool 0 of sqlite and bbolt")
	}
	early.StoppedEarly, early.Done, early.WallS = true, 1234, 2
	none.StoppedEarly, none.Done = true, 0
	var b bytes.Buffer
	if err := Tables(&b, recs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	block, rest, _ := strings.Cut(out, "### Pool of 10 open stores")
	for _, want := range []string{
		"at most 20m0s per pool size (--pool-time",
		"| Requests served | 1,234 of 3,000, stopped early at the 20m0s limit | stopped early: none of 3,000 requests served in 20m0s |",
		"| Requests per second | 617 | stopped early: none of 3,000 requests served in 20m0s |",
	} {
		if !strings.Contains(block, want) {
			t.Errorf("pool 0's block lacks %q:\n%s", want, block)
		}
	}
	if !strings.Contains(rest, "(stopped early: 1,234 of 3,000 requests)") {
		t.Errorf("the summary does not mark the step that stopped early:\n%s", rest)
	}
	if strings.Contains(rest, "Requests served") {
		t.Errorf("a block without a step that stopped early has a Requests served row:\n%s", rest)
	}
}
