package orchestrate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"manydb/internal/job"
)

// The default stall rule (docs/method.md, "The watchdog"): a worker is
// stalled when no progress line came for stallFactor times the longest
// gap between progress lines so far, its own and those of the workers
// before it on the same stores (a store that took 7 s to write into a
// shared index may take a minute to delete from it), and at least
// minStall.
const (
	minStall    = time.Minute
	stallFactor = 100
)

// maxWatchEvery is how often the watchdog looks at a worker at most
// (less often with a small --stall-limit): whether it is silent for too
// long and whether it was stopped.
const maxWatchEvery = 250 * time.Millisecond

// minSuspend is the least growth of CLOCK_BOOTTIME − CLOCK_MONOTONIC taken
// as a suspend of the machine (the two clocks are read one after the
// other, microseconds apart).
const minSuspend = 100 * time.Millisecond

// watchdog watches one worker process: it takes its progress lines as a
// heartbeat and ends the worker when none comes for longer than the
// limit; it notes when the worker was stopped (SIGSTOP, SIGTSTP, a
// debugger), so that the run is not recorded as a measurement.
type watchdog struct {
	limit time.Duration // fixed limit (--stall-limit); 0: the default rule
	every time.Duration // how often run looks
	unit  string        // what progress counts: "store", "request"
	label string        // the phase, for the console
	log   io.Writer     // the console; nil: nothing said
	// page is the worker's status page (job.StatusEnv) and storeDir names
	// a store's directory (nil: not known), for a stall's message.
	page     *os.File
	storeDir func(i int) string
	// halted says why what the worker works against answers nothing
	// (workerCmd.halted); nil: nothing to ask.
	halted func() error

	mu       sync.Mutex
	lastLine time.Time     // the last progress line, or the start
	longest  time.Duration // the longest gap between progress lines (the first from the start), or between, below
	// between is the longest gap between two progress lines (not the
	// first, which may hold a prewarm or a server's start), or between
	// those of the workers before it on the same stores: what the next
	// worker on them starts from (patience).
	between time.Duration
	lines   int // progress lines so far
	done    int // the last line's DONE and TOTAL
	total   int
}

// newWatchdog returns the watchdog of a worker started at start; limit 0
// means the default rule.
func newWatchdog(limit time.Duration, unit, label string, log io.Writer, start time.Time) *watchdog {
	every := maxWatchEvery
	if limit > 0 {
		every = min(every, max(limit/10, time.Millisecond))
	}
	return &watchdog{limit: limit, every: every, unit: unit, label: label, log: log, lastLine: start}
}

// progress notes a progress line read at now.
func (w *watchdog) progress(now time.Time, done, total int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	gap := now.Sub(w.lastLine)
	w.longest = max(w.longest, gap)
	if w.lines > 0 {
		w.between = max(w.between, gap)
	}
	w.lastLine, w.lines, w.done, w.total = now, w.lines+1, done, total // a serve worker's total counts its warm-up
}

// longestGap is the longest gap between two progress lines so far, or
// the patience the watchdog was given if longer.
func (w *watchdog) longestGap() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.between
}

// startFrom gives the watchdog the patience of the workers before it on
// the same stores: the longest gap between their progress lines.
func (w *watchdog) startFrom(patience time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.longest, w.between = max(w.longest, patience), max(w.between, patience)
}

// currentLimit is how long the worker may be silent now.
func (w *watchdog) currentLimit() time.Duration {
	if w.limit > 0 {
		return w.limit
	}
	return max(minStall, stallFactor*w.longest)
}

// watchResult is what the watchdog saw of a worker.
type watchResult struct {
	stall   error // set when it killed the worker for making no progress
	halted  error // set when it killed the worker because its server answers nothing
	stopped bool  // the worker was stopped (and maybe continued) at some point
}

// run watches the worker pid (the leader of its own process group) until
// quit is closed: every w.every it asks whether the worker was stopped,
// whether its server answers (halted) and how long it has been silent,
// and kills the group when the server does not or the silence passes the
// limit. Silence is counted in its own looks, each counting
// at most twice w.every: a watchdog that was not running itself (manydb
// stopped with Ctrl-Z) does not blame the worker for that time.
func (w *watchdog) run(pid int, quit <-chan struct{}) watchResult {
	t := time.NewTicker(w.every)
	defer t.Stop()
	var res watchResult
	var silent time.Duration
	lines, prev := 0, time.Now()
	for {
		var now time.Time
		select {
		case <-quit:
			return res
		case now = <-t.C:
		}
		if wasStopped(pid) && !res.stopped {
			res.stopped = true
			w.say("the worker (pid %d) was stopped (SIGSTOP or the like): this run will be recorded as failed, not as a measurement", pid)
		}
		if err := w.askHalted(); err != nil {
			w.say("%v; killing the worker", err)
			unix.Kill(-pid, unix.SIGKILL)
			res.halted = fmt.Errorf("%w; worker killed", err)
			return res
		}
		w.mu.Lock()
		if w.lines != lines {
			lines, silent = w.lines, now.Sub(w.lastLine)
		} else {
			silent += min(now.Sub(prev), 2*w.every)
		}
		prev = now
		limit := w.currentLimit()
		if silent < limit {
			w.mu.Unlock()
			continue
		}
		res.stall = w.stallError(limit, res.stopped)
		w.mu.Unlock()
		w.say("%v; killing it", res.stall)
		unix.Kill(-pid, unix.SIGKILL)
		res.stall = fmt.Errorf("%w; worker killed", res.stall)
		return res
	}
}

// askHalted asks halted, when there is one, why the worker's server
// answers nothing.
func (w *watchdog) askHalted() error {
	if w.halted == nil {
		return nil
	}
	return w.halted()
}

// errStall is the error of a worker that made no progress.
var errStall = errors.New("no progress")

// stallError says how long the worker made no progress, where it was,
// and which limit it passed; w.mu is held.
func (w *watchdog) stallError(limit time.Duration, stopped bool) error {
	where := w.where()
	rule := fmt.Sprintf("--stall-limit %s", limit)
	if w.limit == 0 {
		rule = fmt.Sprintf("the limit: %d × the longest gap between progress lines of this worker and those before it on these stores (%s), at least %s; --stall-limit sets another",
			stallFactor, w.longest.Round(time.Millisecond), minStall)
	}
	err := fmt.Errorf("%w for %s %s (%s)", errStall, limit, where, rule)
	if stopped {
		err = fmt.Errorf("%w; the worker was stopped (SIGSTOP or the like)", err)
	}
	return err
}

// where says where the worker is: at which store, from its status page,
// else after which progress line; w.mu is held.
func (w *watchdog) where() string {
	store, done, ok := readStatus(w.page)
	switch {
	case ok && store >= 0 && done >= w.total:
		return fmt.Sprintf("after its last store (%d of %d done)", done, w.total)
	case ok && store >= 0:
		dir := ""
		if w.storeDir != nil {
			dir = " (" + w.storeDir(store) + ")"
		}
		return fmt.Sprintf("at store %d%s, %d of %d stores done", store, dir, done, w.total)
	case w.lines > 0:
		return fmt.Sprintf("after %s %d of %d", w.unit, w.done, w.total)
	}
	return "before its first progress line"
}

// newStatusPage makes a worker's status page: a memfd of job.StatusSize
// zero bytes.
func newStatusPage() (*os.File, error) {
	fd, err := unix.MemfdCreate("manydb-worker-status", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("worker status page: %w", err)
	}
	f := os.NewFile(uintptr(fd), "manydb-worker-status")
	if err := f.Truncate(job.StatusSize); err != nil {
		f.Close()
		return nil, fmt.Errorf("worker status page: %w", err)
	}
	return f, nil
}

// readStatus reads the status page: the store being worked on (-1: none
// yet) and the stores done; ok is false when it cannot be read.
func readStatus(page *os.File) (store, done int, ok bool) {
	if page == nil {
		return -1, 0, false
	}
	b := make([]byte, job.StatusSize)
	if _, err := page.ReadAt(b, 0); err != nil {
		return -1, 0, false
	}
	return int(binary.LittleEndian.Uint64(b[job.StatusStore:])) - 1, int(binary.LittleEndian.Uint64(b[job.StatusDone:])), true
}

// say writes one line about the worker on the console.
func (w *watchdog) say(format string, args ...any) {
	if w.log != nil {
		fmt.Fprintf(w.log, "%s: %s\n", w.label, fmt.Sprintf(format, args...))
	}
}

// CLD_STOPPED and CLD_CONTINUED are waitid's si_code for a child that was
// stopped, or continued after a stop.
const (
	cldStopped   = 5
	cldContinued = 6
)

// wasStopped reports whether the child pid was stopped, or continued
// after a stop, since the last call: waitid with WSTOPPED|WCONTINUED|
// WNOHANG neither waits nor reaps, and reports each stop or continue once.
// The child must not be reaped yet (its pid is still its own).
func wasStopped(pid int) bool {
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WCONTINUED|unix.WNOHANG, nil); err != nil {
		return false
	}
	return info.Signo == int32(unix.SIGCHLD) && (info.Code == cldStopped || info.Code == cldContinued)
}

// suspendedSoFar returns how long the machine has been suspended since it
// booted: CLOCK_BOOTTIME counts the time suspended, CLOCK_MONOTONIC (and
// Go's timers) do not.
func suspendedSoFar() time.Duration {
	var boot, mono unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &boot) != nil || unix.ClockGettime(unix.CLOCK_MONOTONIC, &mono) != nil {
		return 0
	}
	return time.Duration(boot.Nano() - mono.Nano())
}
