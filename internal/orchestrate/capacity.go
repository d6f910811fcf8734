package orchestrate

import (
	"fmt"
	"syscall"

	"manydb/internal/measure"
)

// tooManyOpen says why n open stores of a variant (a serve pool, or a
// hold count) would not fit here, estimated from the study's last hold
// phase: their memory (resident memory per open store) in 70 % of the
// memory available now, or their open files (descriptors per open store,
// for up to n + extra open stores) in the process' limit. "" when they fit
// or there is no estimate. The memory is checked only with checkMemory.
func (s *study) tooManyOpen(key storesKey, n, extra int, checkMemory bool) string {
	h, ok := s.held[key]
	if !ok || n == 0 || h.Held == 0 {
		return ""
	}
	if availKB, err := measure.MemAvailableKB(); err == nil && checkMemory {
		need := h.RssKB * float64(n)
		if need > 0.7*float64(availKB) {
			return fmt.Sprintf("%d open stores need about %s (%s per open store, from the hold phase), more than 70 %% of the %s available", n,
				bytesText(need*1024), bytesText(h.RssKB*1024), bytesText(float64(availKB)*1024))
		}
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil {
		// Go raises a process' soft limit to its hard limit at start, so
		// the worker may use up to the hard one.
		perStore, from := float64(h.FDs-h.FDsBefore)/float64(h.Held), "the hold phase"
		// Stores that are written to can keep more files open than the
		// hold phase's, which only read (pebble, badger): a smaller pool's
		// serve phase tells.
		if f := s.servedFDs[key]; f > perStore {
			perStore, from = f, "a smaller pool's serve phase"
		}
		open := n + extra
		need := float64(h.FDsBefore) + perStore*float64(open)
		if need > float64(lim.Max) {
			return fmt.Sprintf("%d open stores need about %.0f open files (%.1f per open store, from %s), more than the limit of %d here (ulimit -n; raising the hard limit moves this wall)",
				open, need, perStore, from, lim.Max)
		}
	}
	return ""
}
