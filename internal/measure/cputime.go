package measure

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CPUTicks are the machine's CPU time since boot, in clock ticks (USER_HZ)
// summed over its CPUs, from the first line of /proc/stat.
type CPUTicks struct {
	Busy  uint64 // user, nice, system, irq, softirq and steal
	Total uint64 // Busy plus idle and iowait
}

// ReadCPUTicks reads the machine's CPU time from /proc/stat.
func ReadCPUTicks() (CPUTicks, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return CPUTicks{}, fmt.Errorf("read CPU time: %w", err)
	}
	return parseCPUTicks(b)
}

// parseCPUTicks parses the "cpu" line of /proc/stat: user nice system
// idle iowait irq softirq steal (guest time is inside user and nice).
func parseCPUTicks(b []byte) (CPUTicks, error) {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 9 || f[0] != "cpu" {
		return CPUTicks{}, fmt.Errorf("/proc/stat: first line %q is not the CPUs' total", line)
	}
	var t CPUTicks
	for k, s := range f[1:9] {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return CPUTicks{}, fmt.Errorf("/proc/stat: field %d %q is not a count of ticks", k+1, s)
		}
		t.Total += n
		if k != 3 && k != 4 { // idle, iowait
			t.Busy += n
		}
	}
	return t, nil
}

// SelfCPUTicks reads this process' CPU time (all its threads, user and
// system) from /proc/self/stat, in clock ticks.
func SelfCPUTicks() (uint64, error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, fmt.Errorf("read the process' CPU time: %w", err)
	}
	return parseSelfTicks(b)
}

// TreeCPUTicks reads the CPU time of process pid and of its children,
// and theirs, in clock ticks: each process' own (all its threads) and
// that of its children that ended and it waited for (cutime, cstime), so
// that the sum does not fall when a child ends. A process that ends
// while it is read counts nothing.
func TreeCPUTicks(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read the CPU time of process %d: %w", pid, err)
	}
	sum, err := parseStatTicks(b, 4)
	if err != nil {
		return 0, err
	}
	for _, kid := range childrenOf(pid) {
		if n, err := TreeCPUTicks(kid); err == nil {
			sum += n
		}
	}
	return sum, nil
}

// childrenOf lists the children of process pid (none when it has ended).
func childrenOf(pid int) []int {
	kids, _ := Children(pid)
	return kids
}

// Children lists the children of process pid, from the children file of
// each of its threads; an error when there is no such process.
func Children(pid int) ([]int, error) {
	files, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if err != nil || len(files) == 0 {
		return nil, errors.Join(err, fmt.Errorf("no process %d", pid))
	}
	var kids []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return kids, err
		}
		for _, s := range strings.Fields(string(b)) {
			n, err := strconv.Atoi(s)
			if err != nil {
				return kids, fmt.Errorf("%s: %q is not a process id", f, s)
			}
			kids = append(kids, n)
		}
	}
	return kids, nil
}

// parseSelfTicks returns utime plus stime of a /proc/PID/stat line.
func parseSelfTicks(b []byte) (uint64, error) { return parseStatTicks(b, 2) }

// parseStatTicks returns the sum of the first n of utime, stime, cutime
// and cstime of a /proc/PID/stat line: fields 14 to 17, counted after the
// command name, which may hold spaces and parentheses and ends at the
// last ')'.
func parseStatTicks(b []byte, n int) (uint64, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/PID/stat %q: no command name", b)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state): utime is field 14, f[11].
	if len(f) < 11+n {
		return 0, fmt.Errorf("/proc/PID/stat: %d fields after the name, want %d or more", len(f), 11+n)
	}
	var sum uint64
	for _, s := range f[11 : 11+n] {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/PID/stat: %q is not a count of ticks", s)
		}
		sum += n
	}
	return sum, nil
}
