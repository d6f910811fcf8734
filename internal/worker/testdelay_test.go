package worker

import (
	"testing"
	"time"

	"manydb/internal/engine"
	"manydb/internal/job"
)

// TestWithDelay: the test-only delay waits at least its duration before
// the open it wraps, and no delay leaves the open as it is.
func TestWithDelay(t *testing.T) {
	opened := 0
	open := func(int, string) (engine.Store, error) { opened++; return nil, nil }
	const d = 2 * time.Millisecond
	start := time.Now()
	if _, err := withDelay(open, d)(1, "dir"); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < d || opened != 1 {
		t.Errorf("waited %s and opened %d times, want at least %s and once", waited, opened, d)
	}
	withDelay(open, 0)(1, "dir")
	if opened != 2 {
		t.Errorf("no delay: opened %d times, want 2", opened)
	}
}

func TestParseTestOpenDelay(t *testing.T) {
	if d, err := job.ParseTestOpenDelay("20us"); err != nil || d != 20*time.Microsecond {
		t.Errorf("20us: %v, %v", d, err)
	}
	if d, err := job.ParseTestOpenDelay(""); err != nil || d != 0 {
		t.Errorf("unset: %v, %v", d, err)
	}
	for _, bad := range []string{"20", "-1ms", "soon"} {
		if _, err := job.ParseTestOpenDelay(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
