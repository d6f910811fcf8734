package orchestrate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"manydb/internal/pgserver"
)

// ServerDirName is the directory of a run's PostgreSQL server in its
// data root (pgserver): its data, its socket and its log.
const ServerDirName = ".manydb-postgres"

// runServer is the run's database server, for the variants whose stores
// live in one (engine.Family.Server): started, or why it could not be.
type runServer struct {
	srv *pgserver.Server
	err error
}

// serverNoCgroup is why a hold of a server's variant has no container
// figure.
const serverNoCgroup = "the stores' memory is the server's processes', which a cgroup of the worker alone would not hold (the hold's memory figures count them by Pss)"

// needsServer tells whether a variant of the run keeps its stores in a
// server.
func (c *Config) needsServer() bool {
	for _, v := range c.Variants {
		if fam, _ := c.family(v); fam.Server != "" {
			return true
		}
	}
	return false
}

// startServer starts the run's PostgreSQL server in the root when a
// variant needs one; a server a killed run left there is stopped and
// removed first (pgserver.Start), and with it the data of that run's
// stores, so their directories (stores) are removed (remove) too and the
// cells make them again. A server that does not start is no error of the
// run: its variants' phases fail with the server's reason, the others
// run.
func startServer(c Config, stores []string, remove func(dir string) error) (*runServer, error) {
	if !c.needsServer() {
		return &runServer{}, nil
	}
	for _, dir := range stores {
		if exists(dir) {
			if err := remove(dir); err != nil {
				return nil, err
			}
		}
	}
	bin, ok := pgserver.Find(c.BinDir)
	if !ok {
		return &runServer{err: pgserver.ErrNotInstalled}, nil
	}
	srv, err := pgserver.Start(pgserver.Config{Bin: bin, Dir: filepath.Join(c.Root, ServerDirName)})
	if err != nil {
		fmt.Fprintf(c.Log, "postgres: the server did not start: %v\n", err)
		return &runServer{err: err}, nil
	}
	vs, _ := srv.Versions()
	fmt.Fprintf(c.Log, "postgres: PostgreSQL %s (pgvector %s) started as user %s in %s, on its Unix socket only (mode 0700, no TCP)\n",
		vs["postgres"], vs["pgvector"], srv.User(), filepath.Join(c.Root, ServerDirName))
	return &runServer{srv: srv}, nil
}

// stop stops the server and removes its directory.
func (r *runServer) stop() error {
	if r == nil || r.srv == nil {
		return nil
	}
	return r.srv.Stop()
}

// dsn is the address of the database of cell w on the server: one
// database per setting and layout, named for them.
func (r *runServer) dsn(w where) string {
	name := "manydb_" + strings.ReplaceAll(w.set.Name, "-", "_")
	if w.layout.Shared() {
		name += "_" + string(w.layout)
	}
	return r.srv.DSN(name)
}

// exists tells whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
