package measure

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// FlockHolder names the process that holds a flock on path, from
// /proc/locks: its pid and command line. ok is false when no holder is
// listed (the lock was released, or /proc/locks is not readable).
func FlockHolder(path string) (pid int, cmdline string, ok bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, "", false
	}
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0, "", false
	}
	pid, ok = flockHolder(b, unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	if !ok {
		return 0, "", false
	}
	cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return pid, strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))), true
}

// flockHolder finds in /proc/locks the pid holding a FLOCK on the file
// major:minor:inode. Lines of waiters ("N: -> FLOCK …") are skipped.
func flockHolder(locks []byte, major, minor uint32, ino uint64) (int, bool) {
	want := fmt.Sprintf("%02x:%02x:%d", major, minor, ino)
	for _, line := range strings.Split(string(locks), "\n") {
		f := strings.Fields(line)
		// "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
		if len(f) < 6 || f[1] != "FLOCK" || f[5] != want {
			continue
		}
		pid, err := strconv.Atoi(f[4])
		if err == nil {
			return pid, true
		}
	}
	return 0, false
}
