package worker

import (
	"bytes"
	"io"
	"strings"
	"sync/atomic"
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

// TestReportRequests: while serve runs, the requests done are reported as
// progress lines (the watchdog's heartbeat), and stop prints a last one.
func TestReportRequests(t *testing.T) {
	var out bytes.Buffer
	p := progress{w: &out}
	var done atomic.Int64
	stop := reportRequests(&p, &done, 105)
	done.Store(7)
	stop()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if got, want := lines[len(lines)-1], job.ProgressPrefix+"7 105"; got != want {
		t.Errorf("last progress line %q, want %q (all: %q)", got, want, out.String())
	}
}

// TestServeKNN: with embeddings each request also asks for the notes
// nearest to its newest note's embedding; an exact search that does not
// return that note first fails the phase, an index's miss does not.
func TestServeKNN(t *testing.T) {
	j := vectorJob(t)
	j.Phase, j.Seed = job.PhaseServe, 1
	j.Serve = job.Serve{Pool: 4, Requests: 200, Concurrency: 4, Zipf: 1.2}
	rec, err := RunJob(j, newFake(t, "fake"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Serve == nil || rec.Serve.Hits+rec.Serve.Opens != 200 {
		t.Fatalf("serve record: %+v", rec.Serve)
	}
	if _, err := RunJob(j, newFake(t, "fake_wrongknn"), io.Discard); err == nil || !strings.Contains(err.Error(), "knn: ") {
		t.Errorf("an exact search without the note itself: err = %v", err)
	}
	if _, err := RunJob(j, newFake(t, "fake_shortknn"), io.Discard); err != nil {
		t.Errorf("an index that returns 7 of 10 notes is measured, not failed: %v", err)
	}
}
