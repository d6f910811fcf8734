package serve

import (
	"testing"
	"time"
)

// TestWaitUntilNotEarly: waitUntil never returns before the time asked,
// whether the gap lets it spin (100 ms) or only sleep (1 ms), nor for a
// time already past.
func TestWaitUntilNotEarly(t *testing.T) {
	for _, gap := range []time.Duration{100 * time.Millisecond, time.Millisecond} {
		for _, ahead := range []time.Duration{-time.Millisecond, 0, 300 * time.Microsecond, 3 * time.Millisecond} {
			due := time.Now().Add(ahead)
			waitUntil(due, gap)
			if now := time.Now(); now.Before(due) {
				t.Errorf("gap %s, due in %s: returned %s early", gap, ahead, due.Sub(now))
			}
		}
	}
}
