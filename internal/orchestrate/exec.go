package orchestrate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
}

// runWorker starts the worker binary with args, passes the orchestrator's
// environment unchanged (so settings such as MALLOC_TRIM_THRESHOLD_ reach
// it), feeds its progress lines to onProgress and returns its record.
func runWorker(ctx context.Context, binary string, args []string, env []string, onProgress func(done, total int)) workerResult {
	cmd := exec.CommandContext(ctx, binary, args...)
	// glibc writes its fatal messages ("double free or corruption") to the
	// terminal unless told to use stderr, where the failed record finds them.
	cmd.Env = append(slices.Clone(env), "LIBC_FATAL_STDERR_=1")
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
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return workerResult{err: fmt.Errorf("start worker: %w", err)}
	}
	tail := readStderr(pipe, onProgress) // to its end, before Wait closes it
	waitErr := cmd.Wait()
	res := workerResult{stderr: tail, seconds: time.Since(start).Seconds()}
	if ctx.Err() != nil {
		res.err = fmt.Errorf("interrupted: %w", ctx.Err())
		return res
	}
	if waitErr != nil {
		var exit *exec.ExitError
		if errors.As(waitErr, &exit) {
			if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				res.err = fmt.Errorf("worker killed by signal %s (%v)%s", unix.SignalName(ws.Signal()), ws.Signal(), lastError(tail))
				return res
			}
		}
		res.err = fmt.Errorf("worker failed: %v%s", waitErr, lastError(tail))
		return res
	}
	dec := json.NewDecoder(&stdout)
	if err := dec.Decode(&res.rec); err != nil {
		res.err = fmt.Errorf("worker printed no record: %w", err)
	}
	return res
}

// causeLine matches the first line of a crash report: a Go panic or fatal
// error, a signal, glibc's or Rust's fatal messages.
var causeLine = regexp.MustCompile(`^(panic: |fatal error: |SIG[A-Z]+: |thread '.*' panicked|.*double free|.*corrupted|free\(\): |malloc\(\): |munmap_chunk\(\))`)

// causeLines is how many lines from the first crash line are kept.
const causeLines = 6

// readStderr reads a worker's stderr to its end, passing progress lines to
// onProgress and keeping the last tailLines other lines. The first lines of
// a crash report (a Go panic's cause, say) are kept too, before the tail,
// when the tail no longer holds them.
func readStderr(r io.Reader, onProgress func(done, total int)) []string {
	var tail, cause []string
	n, causeAt := 0, -1
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
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
