package pgserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"manydb/internal/serverdir"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// installed returns the server's programs, or skips the test saying why
// (a bare clone: make build installs them).
func installed(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "..", InstallDir))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bin, "postgres")); err != nil {
		t.Skipf("PostgreSQL is not installed here (make build runs scripts/fetch-postgres.sh): %v", err)
	}
	return bin
}

// serverDir returns a directory for a server that its user can reach
// (t.TempDir is 0700, and the server runs as another user under root).
func serverDir(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{root, filepath.Dir(root)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, "pg")
}

// alive tells whether process pid exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestStartServesOnItsSocketOnlyAndStopRemovesIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	cfg := Config{Bin: installed(t), Dir: serverDir(t)}
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.DSN("postgres"))
	if err != nil {
		s.Stop()
		t.Fatal(err)
	}
	var listen string
	err = c.QueryRow(ctx, "SHOW listen_addresses").Scan(&listen)
	c.Close(ctx)
	st, serr := os.Stat(filepath.Join(cfg.Dir, ".s.PGSQL.5432"))
	vs, verr := s.Versions()
	pid := s.PID()
	if stopErr := s.Stop(); stopErr != nil {
		t.Fatal(stopErr)
	}
	if err != nil || listen != "" {
		t.Errorf("listen_addresses = %q (%v), want empty: no TCP", listen, err)
	}
	if serr != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("socket: %v, mode %v; want 0700 (only the server's user)", serr, st.Mode().Perm())
	}
	if verr != nil || vs["postgres"] == "" || vs["pgvector"] == "" {
		t.Errorf("versions %v, %v: want the server's and pgvector's", vs, verr)
	}
	if alive(pid) {
		t.Errorf("postmaster %d still runs after Stop", pid)
	}
	if _, err := os.Stat(cfg.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the server's directory is still there after Stop: %v", err)
	}
}

func TestStartStopsAndRemovesAServerLeftBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two PostgreSQL servers")
	}
	cfg := Config{Bin: installed(t), Dir: serverDir(t)}
	left, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	old := left.PID()
	// As a killed study would: the server is not stopped.
	s, err := Start(cfg)
	if err != nil {
		syscall.Kill(-old, syscall.SIGKILL)
		t.Fatal(err)
	}
	defer s.Stop()
	for end := time.Now().Add(10 * time.Second); alive(old) && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	if done, _ := left.Exited(); !done {
		t.Errorf("the server left behind (pid %d) still runs after a second Start", old)
	}
	if s.PID() == old {
		t.Errorf("second Start reused pid %d", old)
	}
}

func TestStartLeavesADirectoryItDidNotMakeAlone(t *testing.T) {
	dir := serverDir(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "mine.txt")
	if err := os.WriteFile(mine, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := RemoveStale(dir)
	if !errors.Is(err, ErrNotOurs) {
		t.Fatalf("RemoveStale of a foreign directory: %v, want ErrNotOurs", err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file manydb did not make is gone: %v", err)
	}
}

func TestStartRefusesASocketPathTooLong(t *testing.T) {
	dir := "/" + strings.Repeat("d", 100)
	_, err := Start(Config{Bin: ".", Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "more than a Unix socket's 107") {
		t.Fatalf("Start with a socket path of 114 bytes: %v, want the socket path refused", err)
	}
}

// TestMain lets the test binary be a study that starts a server and is
// then killed (PGSERVER_TEST_HOLD=DIR: start a server in DIR, print its
// pid, wait).
func TestMain(m *testing.M) {
	if dir := os.Getenv("PGSERVER_TEST_HOLD"); dir != "" {
		s, err := Start(Config{Bin: os.Getenv("PGSERVER_TEST_BIN"), Dir: dir})
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println(s.PID())
		select {}
	}
	os.Exit(m.Run())
}

func TestAKilledStudysServerQuits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	bin, dir := installed(t), serverDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PGSERVER_TEST_HOLD="+dir, "PGSERVER_TEST_BIN="+bin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		cmd.Process.Kill()
		t.Fatalf("the study printed %q (%v, %v), want the postmaster's pid", line, err, perr)
	}
	cmd.Process.Kill() // SIGKILL: no deferred Stop runs
	cmd.Wait()
	for end := time.Now().Add(10 * time.Second); alive(pid) && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(-pid, syscall.SIGKILL)
		t.Fatalf("postmaster %d still runs 10 s after its study was killed", pid)
	}
	if err := RemoveStale(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed study's server directory is still there after RemoveStale: %v", err)
	}
}

func TestStartWithARelativeDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	bin, dir := installed(t), serverDir(t)
	t.Chdir(filepath.Dir(dir))
	s, err := Start(Config{Bin: bin, Dir: filepath.Base(dir)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the server's directory is still there after Stop: %v", err)
	}
}

// TestNoVectorsReadsTheProbe: NoVectors gives the reason
// scripts/fetch-postgres.sh's probe wrote next to the install, and ""
// when the probe found pgvector working or did not run.
func TestNoVectorsReadsTheProbe(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, InstallDir)
	probe := filepath.Join(root, VectorsFile)
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := NoVectors(bin); got != "" {
		t.Errorf("no probe: NoVectors %q, want \"\"", got)
	}
	for content, want := range map[string]string{"ok\n": "", "the CPU lacks AVX-512\n": "the CPU lacks AVX-512"} {
		if err := os.WriteFile(probe, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := NoVectors(bin); got != want {
			t.Errorf("probe %q: NoVectors %q, want %q", content, got, want)
		}
	}
	if got := NoVectors(root); got != "" {
		t.Errorf("a directory that is not an install: NoVectors %q, want \"\"", got)
	}
}

// TestAwaitNamesAStoppedServer: a postmaster stopped by SIGSTOP is named
// as stopped, with its pid and the fix, instead of waited for.
func TestAwaitNamesAStoppedServer(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	proc, err := serverdir.StartProcess(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Stop(syscall.SIGKILL, time.Second)
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for !stopped(cmd.Process.Pid) {
		runtime.Gosched()
	}
	s := &Server{proc: proc}
	pid := strconv.Itoa(cmd.Process.Pid)
	err = s.Await(time.Hour, func(error) { t.Error("it waited for a stopped server") })
	if err == nil || !strings.Contains(err.Error(), "postmaster (pid "+pid+") is stopped (SIGSTOP or the like) and answers nothing: continue it (kill -CONT "+pid+")") {
		t.Errorf("Await = %v, want the stopped postmaster named", err)
	}
}

// TestStopContinuesAStoppedServer: a server whose postmaster was stopped
// (SIGSTOP) is continued and shut down as any other (its postmaster exits
// cleanly), not killed when the shutdown's minute has passed.
func TestStopContinuesAStoppedServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	s, err := Start(Config{Bin: installed(t), Dir: serverDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(s.PID(), syscall.SIGSTOP); err != nil {
		s.Stop()
		t.Fatal(err)
	}
	for !stopped(s.PID()) {
		runtime.Gosched()
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if done, exit := s.Exited(); !done || exit != nil {
		t.Errorf("the stopped postmaster ended with %v, want a clean shutdown", exit)
	}
}
