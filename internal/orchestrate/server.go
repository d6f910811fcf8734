package orchestrate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"manydb/internal/job"
	"manydb/internal/pgserver"
	"manydb/internal/sqldserver"
)

// ServerDirName is the directory of a run's PostgreSQL server in its
// data root (pgserver): its data, its socket and its log.
const ServerDirName = ".manydb-postgres"

// runServer is one of the run's database servers, for the variants
// whose stores live in one (engine.Family.Server): manydb's own
// PostgreSQL, started (srv), or the user's (--postgres, user), or
// manydb's own sqld (sqld), or why it could not be had.
type runServer struct {
	srv  *pgserver.Server
	user *pgserver.UserServer
	dbs  []string // the databases manydb made on the user's server
	sqld *sqldserver.Server
	err  error
}

// runServers are the run's servers, by the name a family's Server gives.
type runServers map[string]*runServer

// The servers a family may keep its stores in (engine.Family.Server).
const (
	serverPostgres = "postgres"
	serverSqld     = "sqld"
)

// serverNoCgroup is why a hold of a server's variant has no container
// figure.
const serverNoCgroup = "the stores' memory is the server's processes', which a cgroup of the worker alone would not hold (the hold's memory figures count them by Pss)"

// needsServer tells whether a variant of the run keeps its stores in the
// server named name.
func (c *Config) needsServer(name string) bool {
	for _, v := range c.Variants {
		if fam, _ := c.family(v); fam.Server == name {
			return true
		}
	}
	return false
}

// variantDir is the directory of variant v's stores.
type variantDir struct{ dir, v string }

// startServers starts each server a variant of the run needs, with the
// stores (their directories) of the variants that keep them in a server
// removed (remove) first: a server a killed run left is removed when the
// new one starts, and with it the data of that run's stores, so the cells
// make them again. A server that does not start is no error of the run:
// its variants' phases fail with the server's reason, the others run.
func startServers(c Config, stores []variantDir, remove func(dir, v string) error) (runServers, error) {
	for _, s := range stores {
		if exists(s.dir) {
			fmt.Fprintf(c.Log, "postgres: removing the stores in %s: their data was in the server of an earlier run, which this run makes anew; they are made again\n", s.dir)
			if err := remove(s.dir, s.v); err != nil {
				return nil, err
			}
		}
	}
	servers := runServers{}
	if c.needsServer(serverPostgres) {
		servers[serverPostgres] = startPostgres(c)
	}
	if c.needsServer(serverSqld) {
		servers[serverSqld] = startSqld(c)
	}
	return servers, nil
}

// stop stops every server of the run.
func (rs runServers) stop() error {
	var errs []error
	for name, r := range rs {
		if err := r.stop(); err != nil {
			errs = append(errs, fmt.Errorf("stop the %s server: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// startPostgres starts the run's PostgreSQL server in the root, or makes
// the run's databases on the user's (Config.Postgres); a server a killed
// run left in the root is stopped and removed first (pgserver.Start), and
// a database it left on the user's server dropped
// (pgserver.UserServer.Make).
func startPostgres(c Config) *runServer {
	if c.Postgres != "" {
		return useUserServer(c)
	}
	bin, ok := pgserver.Find(c.BinDir)
	if !ok {
		return &runServer{err: pgserver.ErrNotInstalled}
	}
	srv, err := pgserver.Start(pgserver.Config{Bin: bin, Dir: filepath.Join(c.Root, ServerDirName)})
	if err != nil {
		fmt.Fprintf(c.Log, "postgres: the server did not start: %v\n", err)
		return &runServer{err: err}
	}
	vs, _ := srv.Versions()
	fmt.Fprintf(c.Log, "postgres: PostgreSQL %s (pgvector %s) started as user %s in %s, on its Unix socket only (mode 0700, no TCP)\n",
		vs["postgres"], vs["pgvector"], srv.User(), filepath.Join(c.Root, ServerDirName))
	return &runServer{srv: srv}
}

// SqldDirName is the directory of a run's sqld server in its data root
// (sqldserver): its namespaces' databases, its key file and its log.
const SqldDirName = ".manydb-sqld"

// startSqld starts the run's sqld server in the root; a server a killed
// run left there is killed and removed first (sqldserver.Start).
func startSqld(c Config) *runServer {
	bin, ok := sqldserver.Find(c.BinDir)
	if !ok {
		return &runServer{err: sqldserver.ErrNotInstalled}
	}
	dir := filepath.Join(c.Root, SqldDirName)
	conns := sqldserver.ConnectionsFor(c.openStores())
	srv, err := sqldserver.Start(sqldserver.Config{Bin: bin, Dir: dir, MaxActiveNamespaces: c.SqldMaxActive, MaxConnections: conns})
	if err != nil {
		fmt.Fprintf(c.Log, "sqld: the server did not start: %v\n", err)
		return &runServer{err: err}
	}
	fmt.Fprintf(c.Log, "sqld: sqld %s started in %s, on 127.0.0.1:%s (its admin API on 127.0.0.1:%s), every request with the study's key, at most %d namespaces loaded, %d connections at once\n",
		sqldserver.Version, dir, port(srv.Client().HTTP), port(srv.Client().Admin), cmp.Or(c.SqldMaxActive, sqldserver.DefaultMaxActiveNamespaces), conns)
	return &runServer{sqld: srv}
}

// checkSqldFiles gives sqld a pool when its namespaces' files would not
// fit in the open-file limit (sqldserver.FilesNeeded) and no
// --sqld-max-active was given: the largest that fits (sqldserver.MaxPool),
// said in the log and recorded as the study's sqld_max_active; a given
// --sqld-max-active that does not fit is refused (sqldserver.CheckFiles).
// The namespaces are a store per agent of the largest count in each
// setting, when a layout keeps a store per agent.
func (c *Config) checkSqldFiles() error {
	if !c.needsServer(serverSqld) || !slices.ContainsFunc(c.Layouts, func(l job.Layout) bool { return l.Stores() == job.OwnStores }) {
		return nil
	}
	limit, err := sqldserver.FileLimit()
	if err != nil {
		return err
	}
	namespaces := c.Stores
	for _, n := range c.Sweep {
		namespaces = max(namespaces, n)
	}
	// Each setting keeps its own stores, and sqld keeps them all.
	namespaces *= max(len(c.Settings), 1)
	open := c.openStores()
	if c.SqldMaxActive == 0 && uint64(sqldserver.FilesNeeded(namespaces, 0, open)) > limit {
		c.SqldMaxActive = sqldserver.MaxPool(limit, open)
		c.logf("sqld: %d namespaces loaded and %d open stores would need about %d open files, more than the limit of %d here: the server keeps at most %d loaded (--sqld-max-active)\n",
			namespaces, open, sqldserver.FilesNeeded(namespaces, 0, open), limit, c.SqldMaxActive)
	}
	if err := sqldserver.CheckFiles(namespaces, c.SqldMaxActive, open, limit); err != nil {
		return &job.InputError{Msg: err.Error()}
	}
	return nil
}

// logf writes a line to the study's log, if it has one.
func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format, args...)
	}
}

// openStores is the most stores a phase of the study keeps open at
// once: its largest hold, or in a serve study the larger of its hold and
// its largest pool with its requests in flight.
func (c *Config) openStores() int {
	if c.Serve != nil {
		return max(c.Hold, slices.Max(c.Serve.Pools)+c.Serve.Concurrency)
	}
	return slices.Max(append(slices.Clone(c.Holds), c.Hold))
}

// port is the port of a host:port address.
func port(addr string) string {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return p
}

// useUserServer makes the run's databases on the user's server
// (--postgres), one per setting and layout; a database a killed run left
// is dropped and made again.
func useUserServer(c Config) *runServer {
	u, err := pgserver.ConnectUser(context.Background(), c.Postgres, c.Root)
	if err != nil {
		return &runServer{err: err}
	}
	r := &runServer{user: u}
	for _, set := range c.Settings {
		for _, layout := range c.Layouts {
			db := u.Database(dbName(set.Name, layout))
			if err := u.Make(context.Background(), db); err != nil {
				r.err = err
				fmt.Fprintf(c.Log, "postgres: %v\n", err)
				return r
			}
			r.dbs = append(r.dbs, db)
		}
	}
	vs, _ := u.Versions(context.Background())
	fmt.Fprintf(c.Log, "postgres: the server at --postgres, PostgreSQL %s (pgvector %s): manydb's databases there are %s, dropped at the end\n",
		vs["postgres"], vs["pgvector"], strings.Join(r.dbs, ", "))
	return r
}

// stop stops manydb's own server and removes its directory, or drops the
// databases manydb made on the user's.
func (r *runServer) stop() error {
	switch {
	case r == nil:
		return nil
	case r.srv != nil:
		return r.srv.Stop()
	case r.sqld != nil:
		return r.sqld.Stop()
	}
	var errs []error
	for _, db := range r.dbs {
		errs = append(errs, r.user.Drop(context.Background(), db))
	}
	return errors.Join(errs...)
}

// pids are the processes of the servers manydb started and that run.
func (rs runServers) pids() []int {
	var pids []int
	for _, r := range rs {
		if pid := r.pid(); pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}

// pid is the process of manydb's own server (0 for none, or once it
// exited: its number may be another's by then).
func (r *runServer) pid() int {
	switch {
	case r == nil:
	case r.srv != nil:
		if done, _ := r.srv.Exited(); !done {
			return r.srv.PID()
		}
	case r.sqld != nil:
		if done, _ := r.sqld.Exited(); !done {
			return r.sqld.PID()
		}
	}
	return 0
}

// logSize is the size of manydb's own server's log (0 without one).
func (r *runServer) logSize() int64 {
	if r == nil || r.srv == nil {
		return 0
	}
	return r.srv.LogSize()
}

// recoveryWait is how long a phase of the variants of manydb's own server
// waits for it to accept connections: after one of its processes crashed,
// PostgreSQL ends the others and recovers (replaying its WAL: seconds),
// refusing connections meanwhile.
const recoveryWait = time.Minute

// await waits, before a phase (label) of the server's variants, until
// manydb's own server accepts connections, at most recoveryWait, saying
// on log that it waits, and returns why it does not: it exited, is
// stopped, or still refuses (pgserver.Server.Await).
func (r *runServer) await(log io.Writer, label string) error {
	if r == nil || r.srv == nil {
		return nil
	}
	return r.srv.Await(recoveryWait, func(refusal error) {
		fmt.Fprintf(log, "%s: the server refuses connections (%v); waiting up to %s for it to recover\n", label, refusal, recoveryWait)
	})
}

// stopped returns why manydb's own PostgreSQL answers nothing when its
// postmaster is stopped, nil otherwise (and for any other server).
func (r *runServer) stopped() error {
	if r == nil || r.srv == nil {
		return nil
	}
	return r.srv.Stopped()
}

// withComplaint adds to a failed phase's error the server's own last
// complaint in its log since from (a full disk, a crash), when manydb
// runs the server and the log has one; for sqld, how the server exited
// when it did.
func (r *runServer) withComplaint(err error, from int64) error {
	if r != nil && r.sqld != nil {
		if gone := r.exited(); gone != nil {
			return fmt.Errorf("%w; %w", err, gone)
		}
		return err
	}
	if r == nil || r.srv == nil {
		return err
	}
	if line := r.srv.Complaint(from); line != "" {
		return fmt.Errorf("%w; the server's log: %s", err, line)
	}
	return err
}

// running tells whether the run has a server to give its cells.
func (r *runServer) running() bool {
	return r != nil && (r.srv != nil || r.sqld != nil || (r.user != nil && r.err == nil))
}

// exited says why manydb's own server is no more: why it did not start,
// or how it exited and its log's last lines; nil while it runs.
func (r *runServer) exited() error {
	if r == nil {
		return errors.New("no server was started")
	}
	var done bool
	var exit error
	var tail string
	switch {
	case r.err != nil:
		return r.err
	case r.srv != nil:
		done, exit = r.srv.Exited()
		tail = r.srv.LogTail(3)
	case r.sqld != nil:
		done, exit = r.sqld.Exited()
		tail = r.sqld.LogTail(3)
	}
	if !done {
		return nil
	}
	return fmt.Errorf("the server exited (%v): %s", exit, tail)
}

// dsn is the address of the database of cell w on the server: for
// PostgreSQL one database per setting and layout, named for them; for
// sqld the server's directory (every store is a namespace of its own).
func (r *runServer) dsn(w where) string {
	if r.sqld != nil {
		return r.sqld.Dir()
	}
	name := dbName(w.set.Name, w.layout)
	if r.user != nil {
		return r.user.DSN(r.user.Database(name))
	}
	return r.srv.DSN("manydb_" + name)
}

// dbName names the database of a setting and layout.
func dbName(setting string, layout job.Layout) string {
	return layout.Mark(strings.ReplaceAll(setting, "-", "_"), "_")
}

// exists tells whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// checkServer checks the run's servers before anything is made: that
// sqld's namespaces fit in the open-file limit (checkSqldFiles); and for
// PostgreSQL the socket path of manydb's own and that its user can reach the root
// (pgserver.CheckReach), or that the user's (--postgres) can hold
// the study; a user's server without pgvector, or manydb's own whose
// pgvector cannot run on this CPU, makes the server's variants n/a when
// the notes have embeddings (serverNoVectors).
func (c *Config) checkServer() error {
	if err := c.checkSqldFiles(); err != nil {
		return err
	}
	switch {
	case c.Postgres != "" && !c.needsServer(serverPostgres):
		return &job.InputError{Msg: "--postgres: no variant of the study keeps its stores in PostgreSQL (" + strings.Join(c.Variants, ", ") + ")"}
	case !c.needsServer(serverPostgres):
		return nil
	case c.Postgres == "":
		if err := pgserver.CheckSocketPath(filepath.Join(c.Root, ServerDirName)); err != nil {
			return &job.InputError{Msg: err.Error()}
		}
		bin, ok := pgserver.Find(c.BinDir)
		if !ok {
			return nil // its variants' phases fail with ErrNotInstalled
		}
		if err := pgserver.CheckReach(filepath.Join(c.Root, ServerDirName), ""); err != nil {
			return &job.InputError{Msg: err.Error()}
		}
		if c.Workload.Dims > 0 {
			c.serverNoVectors = pgserver.NoVectors(bin)
		}
		return nil
	}
	u, err := pgserver.ConnectUser(context.Background(), c.Postgres, c.Root)
	if err != nil {
		return &job.InputError{Msg: err.Error() + "; nothing was made"}
	}
	vs, err := u.Versions(context.Background())
	if err != nil {
		return &job.InputError{Msg: "--postgres: " + err.Error()}
	}
	switch {
	case c.Workload.Dims == 0:
	case vs["pgvector"] == "":
		c.serverNoVectors = "the server at --postgres has no pgvector (no vector in pg_available_extensions), which embeddings need"
	case !u.Superuser():
		c.serverNoVectors = "the role at --postgres is not a superuser, and only a superuser may create pgvector's extension (it is not a trusted extension) in manydb's databases"
	}
	return nil
}
