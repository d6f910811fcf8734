package worker

import (
	"bufio"
	"io"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
)

// TestHoldOfOneProcessOfSeveral: the second of two hold workers holds
// stores 5 to 9, says so and keeps them open until its stdin is closed;
// its record is of its 5 stores, with its memory before the first.
func TestHoldOfOneProcessOfSeveral(t *testing.T) {
	v := newFake(t, "fake")
	j := fakeJob(t, job.PhaseCreate)
	j.Stores = 12
	if _, err := RunJob(j, v, io.Discard); err != nil {
		t.Fatal(err)
	}
	j.Phase, j.Hold, j.Procs, j.Proc = job.PhaseHold, 10, 2, 1
	errR, errW := io.Pipe()
	inR, inW := io.Pipe()
	loop := newStoreLoop(j, errW)
	loop.stdin = inR
	var rec results.Record
	done := make(chan error, 1)
	go func() { done <- hold(j, v, sourceOf(t, j), &rec, loop) }()
	sc := bufio.NewScanner(errR)
	for sc.Scan() && sc.Text() != job.HeldLine {
	}
	go io.Copy(io.Discard, errR)
	select {
	case err := <-done:
		t.Fatalf("the hold ended (%v) before its stdin was closed", err)
	default:
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	h := rec.Hold
	if h.Held != 5 || len(h.OpenMs) != 5 || h.PssBeforeKB <= 0 {
		t.Errorf("held %d, %d opens, Pss before %d KB; want 5 stores and the process' memory", h.Held, len(h.OpenMs), h.PssBeforeKB)
	}
	if loop.store != 9 {
		t.Errorf("the last store worked on is %d, want 9", loop.store)
	}
}
