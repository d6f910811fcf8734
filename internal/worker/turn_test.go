package worker

import (
	"io"
	"strings"
	"testing"

	"manydb/internal/job"
)

func TestTurnsAppendAndReadBack(t *testing.T) {
	j := created(t)
	j.Phase = job.PhaseTurn
	for r := 1; r <= 3; r++ {
		j.Run, j.Seed, j.Appended = r, uint64(r), r-1
		rec, err := RunJob(j, newFake(t, "fake"), io.Discard)
		if err != nil {
			t.Fatalf("turn run %d: %v", r, err)
		}
		if rec.Appended != r-1 || len(rec.QueriesMs[job.QueryAppend]) != j.Stores || len(rec.QueriesMs[job.QueryRecent]) != j.Stores {
			t.Fatalf("turn run %d: appended %d, samples %v", r, rec.Appended, rec.QueriesMs)
		}
	}
	// Every store now holds 3 more notes; an open run that knows it passes
	// with every query, and one that does not fails.
	j.Phase, j.Run, j.Seed, j.Appended = job.PhaseOpen, 1, 1, 3
	j.Queries = []job.Query{job.QueryCount, job.QueryRecent, job.QueryGet, job.QueryScan}
	if _, err := RunJob(j, newFake(t, "fake"), io.Discard); err != nil {
		t.Fatalf("open after 3 turns: %v", err)
	}
	j.Appended = 2
	if _, err := RunJob(j, newFake(t, "fake"), io.Discard); err == nil {
		t.Fatal("open expecting 2 appended notes passed on stores with 3")
	}

	// An append that is lost is caught: by the read-back of the run itself
	// and by the next turn.
	j = created(t)
	j.Phase, j.Run, j.Seed = job.PhaseTurn, 1, 1
	if _, err := RunJob(j, newFake(t, "fake_lostappend"), io.Discard); err == nil || !strings.Contains(err.Error(), "read the appended note back") {
		t.Errorf("lost append: err = %v, want the read-back to fail", err)
	}
	j.Run, j.Seed, j.Appended = 2, 2, 1
	if _, err := RunJob(j, newFake(t, "fake"), io.Discard); err == nil || !strings.Contains(err.Error(), "the notes before turn 2") {
		t.Errorf("turn after a lost append: err = %v, want its recent to fail", err)
	}
}
