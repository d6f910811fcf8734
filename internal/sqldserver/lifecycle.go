package sqldserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"manydb/internal/serverdir"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// RemoveStale kills a server a killed study left running in dir (the
// process of dir's pid file, when its command line names dir) and removes
// dir. A dir manydb did not make (no marker) is an error that wraps
// serverdir.ErrNotOurs, and is left alone.
func RemoveStale(dir string) error {
	if exists, err := serverdir.Check(dir, marker); !exists || err != nil {
		return err
	}
	if pid, ok := staleServer(dir); ok {
		if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("stop the stale server (pid %d): %w", pid, err)
		}
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if syscall.Kill(pid, 0) != nil {
				break
			}
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the stale server's directory: %w", err)
	}
	return nil
}

// staleServer returns the pid in dir's pid file when that process is
// alive and is the sqld of dir's data directory.
func staleServer(dir string) (int, bool) {
	b, err := os.ReadFile(pidPath(dir))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return 0, false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !bytes.Contains(cmdline, []byte(dataDir(dir))) {
		return 0, false
	}
	return pid, true
}

// health asks the HTTP API's /health.
func (s *Server) health() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.client.HTTP+"/health", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/health: %s", resp.Status)
	}
	return nil
}
