package postgres

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"manydb/internal/engines/enginetest"
	"manydb/internal/pgserver"
)

// server is the tests' PostgreSQL server, started by TestMain when the
// server is installed; skip says why not.
type testServer struct {
	s    *pgserver.Server
	skip string
}

// startServer starts a server in a new directory its user can reach.
func startServer() (testServer, func()) {
	bin, ok := pgserver.Find(".")
	if !ok {
		return testServer{skip: "PostgreSQL is not installed here (make build runs scripts/fetch-postgres.sh)"}, func() {}
	}
	root, err := os.MkdirTemp("", "manydb-pg-")
	if err == nil {
		err = os.Chmod(root, 0o755)
	}
	if err != nil {
		return testServer{skip: err.Error()}, func() {}
	}
	s, err := pgserver.Start(pgserver.Config{Bin: bin, Dir: filepath.Join(root, "pg")})
	if err != nil {
		os.RemoveAll(root)
		fmt.Fprintln(os.Stderr, "start PostgreSQL:", err)
		os.Exit(1)
	}
	return testServer{s: s}, func() { s.Stop(); os.RemoveAll(root) }
}

var srv testServer

func TestMain(m *testing.M) {
	var stop func()
	srv, stop = startServer()
	code := m.Run()
	stop()
	os.Exit(code)
}

// variant returns a new variant on its own database of the tests'
// server, or skips t.
func variant(t *testing.T, db string) (*Variant, string) {
	t.Helper()
	if srv.s == nil {
		t.Skip(srv.skip)
	}
	v := &Variant{}
	dsn := srv.s.DSN(db)
	if err := v.UseServer(dsn); err != nil {
		t.Fatal(err)
	}
	return v, dsn
}

func TestEndToEnd(t *testing.T) {
	v, dsn := variant(t, "end_to_end")
	enginetest.Run(t, enginetest.Case{Variant: v, Server: dsn, Files: []string{"base/N/N"}, Versions: []string{"postgres", "pgvector"}})
}

func TestShared(t *testing.T) {
	v, _ := variant(t, "shared")
	defer v.CloseVariant()
	enginetest.CheckShared(t, v)
}

func TestVectors(t *testing.T) {
	v, _ := variant(t, "vectors")
	defer v.CloseVariant()
	enginetest.CheckVectors(t, v, 0.9)
}

func TestSharedVectors(t *testing.T) {
	v, _ := variant(t, "shared_vectors")
	defer v.CloseVariant()
	enginetest.CheckSharedVectors(t, v)
}
