package serve

import "time"

// spinMargin is how long before a request is due the open loop's
// schedule stops sleeping and spins: Go's timers on Linux wake up to
// about a millisecond late (the runtime's poller waits in whole
// milliseconds), which an open loop, counting latency from the due time,
// would charge to the engine.
const spinMargin = 1500 * time.Microsecond

// maxSpinShare is the most of the schedule's time it spins. When the gap
// between two due requests is shorter than spinMargin/maxSpinShare (rates
// above about 166 requests/s) it only sleeps, and may hand a request out
// up to about a millisecond late, rather than take a core the engine
// needs.
const maxSpinShare = 0.25

// waitUntil returns at t or after it: it sleeps until spinMargin before
// t and spins the rest, when gap (the time from one due request to the
// next) leaves room for it; otherwise it sleeps until t.
func waitUntil(t time.Time, gap time.Duration) {
	if float64(spinMargin) > maxSpinShare*float64(gap) {
		time.Sleep(time.Until(t))
		return
	}
	if d := time.Until(t) - spinMargin; d > 0 {
		time.Sleep(d)
	}
	for time.Now().Before(t) {
	}
}
