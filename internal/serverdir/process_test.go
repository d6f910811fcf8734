package serverdir

import (
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestProcessStopAndExited(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p, err := StartProcess(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if done, _ := p.Exited(); done {
		t.Fatal("a sleeping process has exited")
	}
	p.Stop(syscall.SIGTERM, time.Minute)
	if done, err := p.Exited(); !done || err == nil {
		t.Fatalf("after Stop: exited %v (%v), want exited by a signal", done, err)
	}
}

func TestWaitReadyFailsWhenProcessExits(t *testing.T) {
	cmd := exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p, err := StartProcess(cmd)
	if err != nil {
		t.Fatal(err)
	}
	never := func() error { return errors.New("no answer") }
	err = p.WaitReady("srv", time.Hour, never, func() string { return "last line" })
	if err == nil || !strings.Contains(err.Error(), "srv exited") || !strings.Contains(err.Error(), "last line") {
		t.Fatalf("WaitReady = %v, want the exit and the log's last line", err)
	}
}
