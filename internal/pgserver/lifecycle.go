package pgserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"manydb/internal/serverdir"

	"github.com/jackc/pgx/v5"
)

// DefaultUser is the user the server runs as when manydb is root and no
// other is given: "postgres" where that user exists (Debian's packages
// make it), else "nobody".
func DefaultUser() string {
	if _, err := user.Lookup("postgres"); err == nil {
		return "postgres"
	}
	return "nobody"
}

// serverUser returns the credential to run the server with and the name
// of the user it runs as: name (or DefaultUser) when manydb is root,
// manydb's own user otherwise (nil credential).
func serverUser(name string) (*syscall.Credential, string, error) {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		if err != nil {
			return nil, "", fmt.Errorf("who runs the server: %w", err)
		}
		return nil, u.Username, nil
	}
	if name == "" {
		name = DefaultUser()
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, "", fmt.Errorf("PostgreSQL refuses to run as root, and its user %q: %w", name, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, "", fmt.Errorf("user %s: %w", name, err)
	}
	if uid == 0 {
		return nil, "", fmt.Errorf("user %s is root, which PostgreSQL refuses: name an unprivileged user", name)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, name, nil
}

// RemoveStale stops a server a killed study left running in dir and
// removes dir. A dir manydb did not make (no marker) is an error that
// wraps ErrNotOurs, and is left alone.
func RemoveStale(dir string) error {
	if exists, err := serverdir.Check(dir, marker); !exists || err != nil {
		return err
	}
	if pid, ok := stalePostmaster(dir); ok {
		if err := stopGroup(pid); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the stale server's directory: %w", err)
	}
	return nil
}

// stalePostmaster returns the pid in dir's postmaster.pid when that
// process is alive and is the postmaster of dir's data directory.
func stalePostmaster(dir string) (int, bool) {
	pid, err := PostmasterPID(dataDir(dir))
	if err != nil {
		return 0, false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !bytes.Contains(cmdline, []byte(dataDir(dir))) {
		return 0, false
	}
	return pid, true
}

// PostmasterPID reads the postmaster's pid from the first line of the
// data directory's postmaster.pid.
func PostmasterPID(data string) (int, error) {
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return 0, fmt.Errorf("the postmaster's pid: %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 1 {
		return 0, fmt.Errorf("the postmaster's pid: postmaster.pid begins %q", first)
	}
	return pid, nil
}

// stopGroup ends the postmaster pid (PostgreSQL's immediate shutdown,
// SIGQUIT), then kills what is left of its process group.
func stopGroup(pid int) error {
	_ = syscall.Kill(pid, syscall.SIGQUIT)
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			break
		}
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stop the stale server (pid %d): %w", pid, err)
	}
	return nil
}

// ping connects to the server's postgres database and closes.
func (s *Server) ping() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.DSN("postgres"))
	if err != nil {
		return err
	}
	return c.Close(ctx)
}

// Versions returns the server's version and pgvector's, as the server
// reports them ({"postgres": "18.3", "pgvector": "0.8.2"}; pgvector is
// missing when the server does not have it).
func (s *Server) Versions() (map[string]string, error) {
	return Versions(s.DSN("postgres"))
}

// Versions asks the server at dsn for its version and pgvector's.
func Versions(dsn string) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer c.Close(ctx)
	return QueryVersions(ctx, c)
}

// QueryVersions asks the server of connection c for its version and
// pgvector's (Versions).
func QueryVersions(ctx context.Context, c *pgx.Conn) (map[string]string, error) {
	out := map[string]string{}
	var v string
	if err := c.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return nil, fmt.Errorf("the server's version: %w", err)
	}
	out["postgres"] = v
	err := c.QueryRow(ctx, "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'").Scan(&v)
	switch {
	case err == nil:
		out["pgvector"] = v
	case !errors.Is(err, pgx.ErrNoRows):
		return nil, fmt.Errorf("pgvector's version: %w", err)
	}
	return out, nil
}
