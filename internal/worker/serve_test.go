package worker

import (
	"io"
	"strings"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"manydb/internal/job"
)

func TestServe(t *testing.T) {
	j := created(t)
	j.Phase, j.Seed = job.PhaseServe, 1
	j.Serve = job.Serve{Pool: 4, Requests: 400, Concurrency: 4, Zipf: 1.2}
	rec, err := RunJob(j, newFake(t, "fake"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s := rec.Serve
	if s == nil || s.Warmup != 20 || s.Hits+s.Opens != 400 || s.MaxOpen > 8 || s.P99Ms < s.P50Ms || len(s.RssKB) == 0 {
		t.Fatalf("serve record: %+v", s)
	}
	h, err := hdrhistogram.Decode(s.Histogram)
	if err != nil || h.TotalCount() != 400 {
		t.Fatalf("histogram: %v, %d values", err, h.TotalCount())
	}
	// A second run on the same stores, in a new process, finds the notes
	// the first one appended and goes on from them.
	j.Serve.Pool = 0
	if _, err := RunJob(j, newFake(t, "fake"), io.Discard); err != nil {
		t.Fatalf("second serve run: %v", err)
	}
	// An append that is lost is noticed by the next request on its store.
	if _, err := RunJob(j, newFake(t, "fake_lostappend"), io.Discard); err == nil || !strings.Contains(err.Error(), "the last request appended") {
		t.Fatalf("lost append: err = %v", err)
	}
}
