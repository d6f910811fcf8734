package measure

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// ActiveTasks reads how many of the machine's tasks are running or
// runnable and how many wait for I/O, now (/proc/stat's procs_running
// and procs_blocked): about what the load average averages.
func ActiveTasks() (int, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, fmt.Errorf("read the active tasks: %w", err)
	}
	return parseActiveTasks(b)
}

// parseActiveTasks sums the procs_running and procs_blocked lines of
// /proc/stat.
func parseActiveTasks(b []byte) (int, error) {
	sum, found := 0, 0
	for _, line := range bytes.Split(b, []byte("\n")) {
		name, value, ok := bytes.Cut(line, []byte(" "))
		if !ok || !bytes.Equal(name, []byte("procs_running")) && !bytes.Equal(name, []byte("procs_blocked")) {
			continue
		}
		n, err := strconv.Atoi(string(bytes.TrimSpace(value)))
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: %s %q is not a count", name, value)
		}
		sum, found = sum+n, found+1
	}
	if found != 2 {
		return 0, fmt.Errorf("/proc/stat has no procs_running and procs_blocked lines")
	}
	return sum, nil
}

// TreeActiveTasks counts the threads of process pid and of its
// descendants that are running or runnable (R), now; a process that ends
// meanwhile counts nothing. Its threads waiting uninterruptibly (D) are
// not counted: procs_blocked counts only those waiting for I/O, so
// taking every D thread away from ActiveTasks could take away some that
// were never in it.
func TreeActiveTasks(pid int) int {
	stats, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	n := 0
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if i := bytes.LastIndexByte(b, ')'); err == nil && i >= 0 && i+2 < len(b) {
			if b[i+2] == 'R' {
				n++
			}
		}
	}
	for _, kid := range childrenOf(pid) {
		n += TreeActiveTasks(kid)
	}
	return n
}
