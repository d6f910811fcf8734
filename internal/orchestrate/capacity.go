package orchestrate

import (
	"fmt"
	"syscall"

	"manydb/internal/measure"
	"manydb/internal/serve"
)

// tooManyOpen says why n open stores of a variant (a serve pool, or a
// hold count) would not fit here, estimated from the study's last hold
// phase: their anonymous memory in 70 % of the memory available now
// (memoryShort), or their open files (descriptors per open store, for up
// to n + extra open stores, split over procs processes) in a process'
// limit. "" when they fit or there is no estimate. The memory is checked
// only with checkMemory.
func (s *study) tooManyOpen(key storesKey, n, extra, procs int, checkMemory bool) string {
	if checkMemory {
		if why := s.memoryShort(key, n); why != "" {
			return why
		}
	}
	procs = max(procs, 1)
	return s.filesShort(key, (n+extra+procs-1)/procs)
}

// memoryShort says why n open stores would not fit in 70 % of the memory
// available now, from the study's last hold: its anonymous memory per
// open store (the pages of the files a store maps are page cache, which
// the kernel reclaims); "" when they fit or there is no estimate.
func (s *study) memoryShort(key storesKey, n int) string {
	h, ok := s.held[key]
	if !ok || n == 0 || h.Held == 0 {
		return ""
	}
	availKB, err := measure.MemAvailableKB()
	if err != nil {
		return ""
	}
	if need := h.AnonKB * float64(n); need > 0.7*float64(availKB) {
		return fmt.Sprintf("%d open stores need about %s (%s of anonymous memory per open store, from the hold phase), more than 70 %% of the %s available", n,
			bytesText(need*1024), bytesText(h.AnonKB*1024), bytesText(float64(availKB)*1024))
	}
	return ""
}

// filesShort says why open stores in one process would not fit in its
// open-file limit, from the study's last hold (or a smaller pool's serve
// phase, when its stores kept more files open); "" when they fit or
// there is no estimate.
func (s *study) filesShort(key storesKey, open int) string {
	h, ok := s.held[key]
	if !ok || open == 0 || h.Held == 0 {
		return ""
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return ""
	}
	// Go raises a process' soft limit to its hard limit at start, so the
	// worker may use up to the hard one. A split hold's counts are its
	// processes' sums: the files of one before its first store are
	// their share.
	procs := max(len(h.Procs), 1)
	perStore, from := float64(h.FDs-h.FDsBefore)/float64(h.Held), "the hold phase"
	// Stores that are written to can keep more files open than the
	// hold phase's, which only read (pebble, badger): a smaller pool's
	// serve phase tells.
	if f := s.servedFDs[key]; f > perStore {
		perStore, from = f, "a smaller pool's serve phase"
	}
	need := float64(h.FDsBefore)/float64(procs) + perStore*float64(open)
	if need > float64(lim.Max) {
		return fmt.Sprintf("%d open stores need about %.0f open files (%.1f per open store, from %s), more than the limit of %d here (ulimit -n; raising the hard limit moves this wall)",
			open, need, perStore, from, lim.Max)
	}
	return ""
}

// inUse is how many stores serve step p may keep open besides its pool,
// one per goroutine sending: the closed loop's --concurrency, or the
// senders an open loop may start (serve.MaxSenders, but no more than the
// stores outside the pool).
func (s *study) inUse(p phase) int {
	if p.rate <= 0 {
		return s.Serve.Concurrency
	}
	return max(s.Serve.Concurrency, min(serve.MaxSenders, s.Stores-p.pool))
}
