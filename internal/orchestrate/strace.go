package orchestrate

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"manydb/internal/results"
)

// SyncCalls are the system calls a profile's counting run counts: every
// call that asks the kernel to put data on the disk. Writes to a file
// opened with O_DSYNC or O_SYNC are counted too (DsyncWrite).
func SyncCalls() []string {
	return []string{"fsync", "fdatasync", "msync", "sync_file_range", "sync", "syncfs"}
}

// DsyncWrite is the name Syncs.Calls gives to a write to a file opened
// with O_DSYNC or O_SYNC: each is a sync of its own (LMDB, and so
// ObjectBox, writes its meta page that way after the fdatasync of a commit).
const DsyncWrite = "o_dsync_write"

// fdCalls are the calls traced besides SyncCalls, to find the writes
// through O_DSYNC/O_SYNC descriptors.
func fdCalls() []string {
	return []string{"open", "openat", "creat", "close", "write", "pwrite64", "writev", "pwritev", "pwritev2"}
}

// straceTrace is the -e trace= list of the counting run.
func straceTrace() string {
	return strings.Join(append(SyncCalls(), fdCalls()...), ",")
}

var (
	// stracePID splits "123 rest" (strace -f prefixes each line with the thread id).
	stracePID = regexp.MustCompile(`^(\d+)\s+(.*)$`)
	// straceCall matches a completed call: name, arguments, result, duration.
	straceCall = regexp.MustCompile(`^(\w+)\((.*)\)\s+=\s+(-?\d+|0x[0-9a-f]+|\?)\b.*<(\d+\.\d+)>\s*$`)
	// straceResumed matches the second half of a call another thread interrupted.
	straceResumed = regexp.MustCompile(`^<\.\.\. (\w+) resumed>(.*)$`)
)

// ParseStrace reads strace -f -T output (as traced with straceTrace) and
// counts the completed calls of SyncCalls and the writes through
// descriptors opened with O_DSYNC or O_SYNC (DsyncWrite), with the
// duration of each. Calls split by another thread ("<unfinished ...>",
// "<... resumed>") are joined first. A call that failed (returned -1) made
// nothing durable and is not counted.
func ParseStrace(r io.Reader) (*results.Syncs, error) {
	s := &results.Syncs{Calls: map[string]int{}}
	pending := map[string]string{} // thread → first half of an unfinished call
	dsync := map[int]bool{}        // descriptor → opened with O_DSYNC or O_SYNC
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line, pid := sc.Text(), ""
		if m := stracePID.FindStringSubmatch(line); m != nil {
			pid, line = m[1], m[2]
		}
		if head, ok := strings.CutSuffix(line, " <unfinished ...>"); ok {
			pending[pid] = head
			continue
		}
		if m := straceResumed.FindStringSubmatch(line); m != nil {
			line = pending[pid] + m[2]
			delete(pending, pid)
		}
		m := straceCall.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, args, ret := m[1], m[2], m[3]
		sec, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			return nil, fmt.Errorf("strace output: bad duration in %q", sc.Text())
		}
		firstFD := func() (int, bool) {
			a, _, _ := strings.Cut(args, ",")
			fd, err := strconv.Atoi(strings.TrimSpace(a))
			return fd, err == nil
		}
		failed := strings.HasPrefix(ret, "-")
		switch {
		case failed && name != "close":
		case slices.Contains(SyncCalls(), name):
			s.Calls[name]++
			s.CallMs = append(s.CallMs, sec*1000)
		case name == "open" || name == "openat" || name == "creat":
			if fd, err := strconv.Atoi(ret); err == nil && fd >= 0 {
				dsync[fd] = strings.Contains(args, "O_DSYNC") || strings.Contains(args, "O_SYNC")
			}
		case name == "close":
			if fd, ok := firstFD(); ok {
				delete(dsync, fd)
			}
		default: // the writes
			if fd, ok := firstFD(); ok && dsync[fd] {
				s.Calls[DsyncWrite]++
				s.CallMs = append(s.CallMs, sec*1000)
			}
		}
	}
	return s, sc.Err()
}

func readStraceFile(path string) (*results.Syncs, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("strace wrote no output: %w", err)
	}
	defer f.Close()
	return ParseStrace(f)
}

// FindStrace returns the path of strace, or "" when it is not installed.
func FindStrace() string {
	p, err := exec.LookPath("strace")
	if err != nil {
		return ""
	}
	return p
}

// straceVersion returns "strace 6.1", or "none" for no strace.
func straceVersion(bin string) string {
	if bin == "" {
		return "none"
	}
	out, err := exec.Command(bin, "-V").Output()
	if err != nil {
		return "strace (version unknown)"
	}
	first, _, _ := strings.Cut(string(out), "\n")
	if f := strings.Fields(first); len(f) > 0 {
		return "strace " + f[len(f)-1]
	}
	return "strace"
}
