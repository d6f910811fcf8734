package orchestrate

import (
	"fmt"
	"regexp"
	"strings"

	units "github.com/docker/go-units"

	"manydb/internal/measure"
)

// signalLine matches the Go runtime's line naming the signal a worker
// died of: "[signal SIGBUS: bus error code=…]" in Go code, "SIGSEGV:
// segmentation violation" in C code called through cgo.
var signalLine = regexp.MustCompile(`^(?:\[signal )?(SIG[A-Z]+): ([a-z][a-z ]*[a-z])(?: code=.*)?$`)

// frameLine matches a function's line in a goroutine's trace (its file
// and line follow, indented).
var frameLine = regexp.MustCompile(`^([^\s].*)\(.*\)$`)

// crashCause says which signal a worker's Go runtime died of and the
// call it was in (the first function of the crashing goroutine's trace
// that is not the runtime's: the engine's, or the cgo call into it),
// from the worker's stderr tail; "" when the tail names no signal.
func crashCause(tail []string) string {
	for i, l := range tail {
		m := signalLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		cause := fmt.Sprintf("%s (%s)", m[1], m[2])
		if call := crashingCall(tail[i+1:]); call != "" {
			cause += " in " + call
		}
		return cause
	}
	return ""
}

// crashingCall is the first function that is not the runtime's in the
// first goroutine's trace in lines, or "".
func crashingCall(lines []string) string {
	in := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "goroutine "):
			if in {
				return ""
			}
			in = true
		case !in || l == "":
			if in {
				return ""
			}
		default:
			if m := frameLine.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[1], "runtime.") {
				return m[1]
			}
		}
	}
	return ""
}

// fullDisk is the free space under which a failed or stalled worker's
// file system counts as full, the likely cause.
const fullDisk = 1 << 20

// withFreeSpace adds to err, a worker's failure or stall, how much space
// the file system of root has left when it is full (under fullDisk).
func withFreeSpace(err error, root string) error { return withFreeSpaceUnder(err, root, fullDisk) }

// withFreeSpaceUnder is withFreeSpace with full as the bound.
func withFreeSpaceUnder(err error, root string, full uint64) error {
	free, ferr := measure.FreeBytes(root)
	if ferr != nil || free >= full {
		return err
	}
	return fmt.Errorf("%w; the file system of %s is full (%s free)", err, root, units.BytesSize(float64(free)))
}
