package sqldserver

import (
	"fmt"
	"syscall"
)

// FilesPerNamespace is how many files sqld 0.24.32 keeps open for each
// namespace it has loaded: the database twice, its WAL, its shared-memory
// file and its WAL log (counted in /proc/PID/fd with 200 and 600
// namespaces loaded). A server whose namespaces need more files than its
// limit fails to open the next one and then exits ("Too many open
// files").
const FilesPerNamespace = 5

// FilesPerConnection is how many files sqld keeps open for each client
// connection (Hrana stream) open at once: its socket and a handle on its
// database (10 streams took a server from 27 to 46). With 3,900
// namespaces loaded, a hold of 1,000 open stores failed at its 259th:
// "unable to open database file".
const FilesPerConnection = 2

// Files beyond the namespaces' and connections': the server's own (about
// 20 at start), and the namespaces it keeps past its pool until it
// evicts them, which it does in batches (up to about 30 over a pool of 5
// were seen loaded).
const (
	baseFiles     = 64
	poolOvershoot = 32
)

// FilesNeeded is about how many open files a server needs that keeps
// maxActive namespaces loaded (0: every one) of the namespaces a study
// makes, with open client connections at once.
func FilesNeeded(namespaces, maxActive, open int) int {
	loaded := namespaces
	if maxActive > 0 && maxActive < namespaces {
		loaded = maxActive + poolOvershoot
	}
	return baseFiles + FilesPerNamespace*loaded + FilesPerConnection*open
}

// CheckFiles refuses a study whose namespaces, as many as maxActive
// (--sqld-max-active; 0: every one) keeps loaded, and open connections
// need more open files than limit, naming the largest --sqld-max-active
// that fits (MaxPool).
func CheckFiles(namespaces, maxActive, open int, limit uint64) error {
	need := FilesNeeded(namespaces, maxActive, open)
	if uint64(need) <= limit {
		return nil
	}
	loaded := "every namespace loaded"
	if maxActive > 0 {
		loaded = fmt.Sprintf("--sqld-max-active %d", maxActive)
	}
	return fmt.Errorf("sqld with %s keeps %d open files per namespace and %d per open connection: %d namespaces and %d open stores need about %d open files, more than the limit of %d here (ulimit -n): give --sqld-max-active %d or fewer",
		loaded, FilesPerNamespace, FilesPerConnection, namespaces, open, need, limit, MaxPool(limit, open))
}

// MaxPool is the largest pool (--max-active-namespaces) whose namespaces'
// files fit in limit beside open connections (FilesNeeded), at least 1.
func MaxPool(limit uint64, open int) int {
	return max((int(limit)-baseFiles-FilesPerConnection*open)/FilesPerNamespace-poolOvershoot, 1)
}

// FileLimit is the open-file limit a server started by this process has:
// the hard limit, to which Go raises its own soft limit at start
// (KeepFileLimit gives it to the server).
func FileLimit() (uint64, error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, fmt.Errorf("the open-file limit: %w", err)
	}
	return l.Max, nil
}

// keepFileLimit makes the processes this one starts inherit its open-file
// limit: Go raises its soft limit to the hard one at start, and gives a
// child the soft limit it started with (often 1,024: a server of 200
// namespaces) unless the program sets the limit itself, which this does,
// to the limit it has.
func keepFileLimit() error {
	limit, err := FileLimit()
	if err != nil {
		return err
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		return fmt.Errorf("keep the open-file limit %d for sqld: %w", limit, err)
	}
	return nil
}
