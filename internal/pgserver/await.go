package pgserver

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// Await waits, at most limit, until the server accepts connections
// again: after one of its processes crashed, the postmaster ends the
// others and recovers, refusing connections meanwhile (57P03, "the
// database system is in recovery mode"). A server that has exited, or
// whose postmaster is stopped, is said at once; one still refusing at
// the limit is said with its last refusal and log lines. onWait, when
// not nil, is told of the first refusal, before the wait.
func (s *Server) Await(limit time.Duration, onWait func(refusal error)) error {
	end := time.Now().Add(limit)
	for {
		if done, err := s.Exited(); done {
			return fmt.Errorf("the server exited (%v): %s", err, s.LogTail(3))
		}
		if err := s.Stopped(); err != nil {
			return err
		}
		err := s.ping()
		if err == nil {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("the server accepted no connection within %v (%v): %s", limit, err, s.LogTail(3))
		}
		if onWait != nil {
			onWait(err)
			onWait = nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stopped returns why the server answers nothing when its postmaster is
// stopped (SIGSTOP or the like), nil otherwise.
func (s *Server) Stopped() error {
	if !stopped(s.PID()) {
		return nil
	}
	return fmt.Errorf("the server's postmaster (pid %d) is stopped (SIGSTOP or the like) and answers nothing: continue it (kill -CONT %d)", s.PID(), s.PID())
}

// stopped tells whether process pid is stopped (state T in
// /proc/PID/stat), as by SIGSTOP.
func stopped(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command's name, in parentheses that the name
	// itself may hold.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'T'
}
