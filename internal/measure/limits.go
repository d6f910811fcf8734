package measure

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"manydb/internal/results"
)

// Mappings counts this process' memory mappings (the lines of
// /proc/self/maps), which vm.max_map_count bounds.
func Mappings() (int, error) {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0, fmt.Errorf("count memory mappings: %w", err)
	}
	return bytes.Count(b, []byte("\n")), nil
}

// ReadLimits reads this process' limits (results.Limits).
func ReadLimits() (results.Limits, error) {
	var l results.Limits
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return l, fmt.Errorf("read the open files limit: %w", err)
	}
	l.OpenFiles = clampLimit(r.Cur)
	var err error
	if l.Mappings, err = readSysctl("/proc/sys/vm/max_map_count"); err != nil {
		return l, err
	}
	if l.Threads, err = readSysctl("/proc/sys/kernel/threads-max"); err != nil {
		return l, err
	}
	const rlimitNproc = 6 // RLIMIT_NPROC on Linux
	if err := syscall.Getrlimit(rlimitNproc, &r); err != nil {
		return l, fmt.Errorf("read the threads limit: %w", err)
	}
	l.Threads = min(l.Threads, clampLimit(r.Cur))
	return l, nil
}

// clampLimit turns an rlimit (RLIM_INFINITY is all ones) into an int64.
func clampLimit(v uint64) int64 {
	if v > 1<<62 {
		return 1 << 62
	}
	return int64(v)
}

func readSysctl(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	return n, nil
}
