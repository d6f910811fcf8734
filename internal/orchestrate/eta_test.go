package orchestrate

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func TestSessionETALine(t *testing.T) {
	e := &sessionETA{total: 10, done: 4}
	want := "ETA 1m0s: 4 of 10 phases done in 40s this session"
	if got := e.line(40 * time.Second); !strings.HasPrefix(got, want) {
		t.Errorf("line = %q, want it to start with %q", got, want)
	}
}

// TestStudyPrintsETA: a study prints an estimate after each variant,
// counting the phases it has left; a rerun with every cell recorded has
// none to estimate.
func TestStudyPrintsETA(t *testing.T) {
	c := fakeConfig(t, "fake", "fake_slow")
	var log bytes.Buffer
	c.Log = &log
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	// create, 2 open runs, hold, space per variant.
	for _, want := range []string{"5 of 10 phases done", "10 of 10 phases done"} {
		if !strings.Contains(log.String(), "ETA ") || !strings.Contains(log.String(), want) {
			t.Errorf("log lacks an ETA line with %q:\n%s", want, log.String())
		}
	}
	log.Reset()
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "ETA ") {
		t.Errorf("a rerun with nothing left printed an ETA:\n%s", log.String())
	}
}
