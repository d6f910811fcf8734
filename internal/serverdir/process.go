package serverdir

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Process is a server's running process, in its own process group, and
// its end once it exits.
type Process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error // the process' exit, once done is closed
}

// StartProcess starts cmd (its SysProcAttr set by the caller, with
// Setpgid) and a goroutine that notes when it exits.
func StartProcess(cmd *exec.Cmd) (*Process, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// PID is the process' id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Exited reports whether the process has exited, and how.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Stop sends the process sig, and SIGKILL to its process group when it
// has not exited after grace; it returns once the process has exited.
func (p *Process) Stop(sig syscall.Signal, grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
		<-p.done
	}
}

// WaitReady calls ping until it succeeds, at most limit; a process that
// exits first fails. Each error names the server (name) and ends with
// its log's last lines (logTail).
func (p *Process) WaitReady(name string, limit time.Duration, ping func() error, logTail func() string) error {
	end := time.Now().Add(limit)
	for {
		if done, err := p.Exited(); done {
			return fmt.Errorf("%s exited before it answered (%v): %s", name, err, logTail())
		}
		err := ping()
		if err == nil {
			return nil
		}
		if time.Now().After(end) {
			return fmt.Errorf("%s did not answer within %v (%v): %s", name, limit, err, logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// LogTail returns the last n lines of the log file at path ("" when it
// cannot be read).
func LogTail(path string, n int) string {
	b, _ := os.ReadFile(path)
	return LastLines(string(b), n)
}
