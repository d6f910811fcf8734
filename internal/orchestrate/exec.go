package orchestrate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/workload"
)

// tailLines is how many of a worker's last stderr lines a failed record keeps.
const tailLines = 30

// workerResult is what one worker process produced.
type workerResult struct {
	rec     results.Record
	err     error    // nil when the worker exited 0 and printed a record
	stderr  []string // its last stderr lines, progress lines left out
	seconds float64  // wall time of the worker process
	// longestGap is the longest gap between two of its progress lines, or
	// the patience it was given if longer.
	longestGap time.Duration
	// args, when set, are the command line of the worker that failed,
	// when it is not the phase's own (one process of a split hold).
	args []string
}

// workerCmd is one worker process to run and how to watch it.
type workerCmd struct {
	bin  string
	args []string
	env  []string
	// onProgress gets its progress lines; nil ignores them.
	onProgress func(done, total int)
	// halted, when not nil, says why what the worker works against (the
	// study's own server) answers nothing, nil while it answers: asked at
	// each of the watchdog's looks, an error ends the worker and fails the
	// phase with it at once, not at the stall limit.
	halted func() error
	// stall is the watchdog's limit (--stall-limit); 0: the default rule,
	// which starts from patience: the longest gap between progress lines
	// of the workers before this one on the same stores.
	stall, patience time.Duration
	// unit is what its progress lines count: "store" or "request".
	unit string
	// total is how many units the phase does, and storeDir names store
	// i's directory (nil: not known), for a stall's message.
	total    int
	storeDir func(i int) string
	// label names the phase in the watchdog's lines on log (nil: none).
	label string
	log   io.Writer
	// release, when not nil, feeds the worker's stdin: closing it lets a
	// hold worker of several go on (job.HeldLine), and onHeld gets that
	// line.
	release <-chan struct{}
	onHeld  func()
}

// runWorker starts the worker binary with its args and environment (a
// phase's: job.Job.Environ, the orchestrator's and the setting's), feeds its progress lines to
// onProgress and returns its record. A watchdog kills a worker that makes
// no progress for too long; a worker that was stopped while it ran, or
// ran while the machine was suspended, fails: its samples are not
// measurements (docs/method.md, "The watchdog").
func runWorker(ctx context.Context, w workerCmd) workerResult {
	cmd := exec.CommandContext(ctx, w.bin, w.args...)
	// glibc writes its fatal messages ("double free or corruption") to the
	// terminal unless told to use stderr, where the failed record finds them.
	cmd.Env = append(slices.Clone(w.env), "LIBC_FATAL_STDERR_=1")
	// The worker dies with the orchestrator, even on SIGKILL, so a killed
	// study leaves no worker writing into its stores. In its own process
	// group it does not get the terminal's Ctrl-C: the orchestrator ends it
	// (through ctx) and records nothing for the interrupted cell.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return workerResult{err: err}
	}
	page, err := newStatusPage()
	if err != nil {
		return workerResult{err: err}
	}
	defer page.Close()
	// The worker's fd 3 (the first of ExtraFiles).
	cmd.ExtraFiles = []*os.File{page}
	cmd.Env = append(cmd.Env, job.StatusEnv+"=3")
	exited := make(chan struct{})
	defer close(exited)
	if err := feedRelease(cmd, w.release, exited); err != nil {
		return workerResult{err: err}
	}
	suspended := suspendedSoFar()
	start := time.Now()
	cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", job.SpawnedEnv, start.UnixNano()))
	if err := cmd.Start(); err != nil {
		return workerResult{err: fmt.Errorf("start worker: %w", err)}
	}
	dog := newWatchdog(w.stall, w.unit, w.label, w.log, start)
	dog.total, dog.storeDir, dog.page, dog.halted = w.total, w.storeDir, page, w.halted
	dog.startFrom(w.patience)
	quit, watched := make(chan struct{}), make(chan watchResult, 1)
	go func() { watched <- dog.run(cmd.Process.Pid, quit) }()
	tail := readStderr(pipe, func(done, total int) { // to its end, before Wait closes it
		dog.progress(time.Now(), done, total)
		if w.onProgress != nil {
			w.onProgress(done, total)
		}
	}, w.onHeld)
	close(quit) // before Wait reaps the worker: the watchdog uses its pid
	seen := <-watched
	waitErr := cmd.Wait()
	res := workerResult{stderr: tail, seconds: time.Since(start).Seconds(), longestGap: dog.longestGap()}
	res.err = exitError(ctx, waitErr, tail)
	switch d := suspendedSoFar() - suspended; {
	case seen.halted != nil && ctx.Err() == nil:
		res.err = seen.halted
	case seen.stall != nil && ctx.Err() == nil:
		res.err = seen.stall
	case res.err != nil:
	case seen.stopped:
		res.err = errors.New("the worker was stopped (SIGSTOP or the like) while it ran: its samples are not measurements; run the same command again to measure the phase")
	case d >= minSuspend:
		res.err = fmt.Errorf("the machine was suspended for %s while the worker ran: its samples are not measurements; run the same command again to measure the phase", d.Round(time.Millisecond))
	}
	if res.err != nil {
		return res
	}
	dec := json.NewDecoder(&stdout)
	if err := dec.Decode(&res.rec); err != nil {
		res.err = fmt.Errorf("worker printed no record: %w", err)
	}
	return res
}

// feedRelease gives cmd a stdin that is closed once release is closed
// (or the worker has exited); none when release is nil.
func feedRelease(cmd *exec.Cmd, release <-chan struct{}, exited <-chan struct{}) error {
	if release == nil {
		return nil
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("the worker's stdin: %w", err)
	}
	go func() {
		select {
		case <-release:
		case <-exited:
		}
		stdin.Close()
	}()
	return nil
}

// exitError is the error of a worker that ended with waitErr (nil when
// it exited 0), tail being its stderr's last lines.
func exitError(ctx context.Context, waitErr error, tail []string) error {
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
	if waitErr == nil {
		return nil
	}
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Errorf("worker killed by signal %s (%v)%s", unix.SignalName(ws.Signal()), ws.Signal(), lastError(tail))
		}
	}
	if cause := crashCause(tail); cause != "" {
		return fmt.Errorf("worker died of %s (%v)%s", cause, waitErr, lastError(tail))
	}
	return fmt.Errorf("worker failed: %v%s", waitErr, lastError(tail))
}

// causeLine matches the first line of a crash report: a Go panic or fatal
// error, a signal, glibc's or Rust's fatal messages.
var causeLine = regexp.MustCompile(`^(panic: |fatal error: |SIG[A-Z]+: |thread '.*' panicked|.*double free|.*corrupted|free\(\): |malloc\(\): |munmap_chunk\(\))`)

// causeLines is how many lines from the first crash line are kept: a Go
// crash's signal and the top of its goroutine's trace (crashCause).
const causeLines = 12

// readStderr reads a worker's stderr to its end, passing progress lines to
// onProgress, telling onHeld (when not nil) of a job.HeldLine and keeping
// the last tailLines other lines. The first lines of
// a crash report (a Go panic's cause, say) are kept too, before the tail,
// when the tail no longer holds them.
func readStderr(r io.Reader, onProgress func(done, total int), onHeld func()) []string {
	var tail, cause []string
	n, causeAt := 0, -1
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == job.HeldLine && onHeld != nil {
			onHeld()
			continue
		}
		if rest, ok := strings.CutPrefix(line, job.ProgressPrefix); ok {
			f := strings.Fields(rest)
			if len(f) == 2 {
				done, err1 := strconv.Atoi(f[0])
				total, err2 := strconv.Atoi(f[1])
				if err1 == nil && err2 == nil {
					if onProgress != nil {
						onProgress(done, total)
					}
					continue
				}
			}
		}
		n++
		if causeAt < 0 && causeLine.MatchString(line) {
			causeAt = n
		}
		if causeAt > 0 && n < causeAt+causeLines {
			cause = append(cause, line)
		}
		tail = append(tail, line)
		if len(tail) > tailLines {
			tail = tail[1:]
		}
	}
	io.Copy(io.Discard, r)
	if causeAt > 0 && causeAt <= n-len(tail) { // the cause scrolled out of the tail
		return append(append(cause, "…"), tail...)
	}
	return tail
}

// lastError returns ": " and the worker's last "error: " line, if any.
func lastError(tail []string) string {
	for i := len(tail) - 1; i >= 0; i-- {
		if msg, ok := strings.CutPrefix(tail[i], "error: "); ok {
			return ": " + msg
		}
	}
	return ""
}

// failedRecord is the record of a worker that failed: its error, exact
// command line and the tail of its stderr.
func failedRecord(res workerResult, bin string, args []string, variant string, phase job.Phase, run int, wl workload.Spec, stores int) results.Record {
	rec := results.Record{
		Variant:    variant,
		Phase:      phase,
		Status:     results.StatusFailed,
		Workload:   wl,
		Stores:     stores,
		Error:      res.err.Error(),
		Command:    append([]string{bin}, args...),
		StderrTail: strings.Join(res.stderr, "\n"),
	}
	rec.SetRepeat(run)
	return rec
}

// sumRetries is the requests every process of a split phase sent again
// (results.Record.Retries).
func sumRetries(parts []workerResult) int {
	n := 0
	for _, p := range parts {
		n += p.rec.Retries
	}
	return n
}
