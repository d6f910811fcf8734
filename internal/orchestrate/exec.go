package orchestrate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"manydb/internal/results"
	"manydb/internal/worker"
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
	cmd.Env = env
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
		res.err = fmt.Errorf("worker failed: %v%s", waitErr, lastError(tail))
		return res
	}
	dec := json.NewDecoder(&stdout)
	if err := dec.Decode(&res.rec); err != nil {
		res.err = fmt.Errorf("worker printed no record: %w", err)
	}
	return res
}

// readStderr reads a worker's stderr to its end, passing progress lines to
// onProgress and keeping the last tailLines other lines.
func readStderr(r io.Reader, onProgress func(done, total int)) []string {
	var tail []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, worker.ProgressPrefix); ok {
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
		tail = append(tail, line)
		if len(tail) > tailLines {
			tail = tail[1:]
		}
	}
	io.Copy(io.Discard, r)
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
func failedRecord(res workerResult, bin string, args []string, variant, phase string, run int, wl workload.Spec, stores int) results.Record {
	return results.Record{
		Variant:    variant,
		Phase:      phase,
		Run:        run,
		Status:     results.StatusFailed,
		Workload:   wl,
		Stores:     stores,
		Error:      res.err.Error(),
		Command:    append([]string{bin}, args...),
		StderrTail: strings.Join(res.stderr, "\n"),
	}
}
