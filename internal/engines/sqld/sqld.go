// Package sqld is manydb's adapter for libSQL's server, sqld: a database
// per agent served over the network, each agent's store a namespace of
// its own on one server process (internal/sqldserver starts it, one per
// study), spoken to over Hrana over HTTP with libsql-client-go, the Go
// client Turso keeps for its servers (a database/sql driver whose
// connection is a Hrana stream: each request is one HTTP POST to
// /v2/pipeline; no cgo).
//
// A store per agent is a namespace (named for the store's directory,
// which holds no file: the data is the server's) whose database has the
// reference's notes table (sqlnotes.Schema), written, counted and queried
// with the statements every SQL variant runs (sqlnotes). Create makes
// the namespace through the server's admin API, then commits the schema;
// Open is the store's first request, a check that its notes table
// exists: the server loads the namespace then if it is not loaded (it
// keeps at most --max-active-namespaces loaded). The delete of an agent
// deletes its namespace through the admin API.
package sqld

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tursodatabase/libsql-client-go/libsql"

	"manydb/internal/engine"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/sqldserver"
)

// ID is the variant id.
const ID = "sqld"

// Factories lists the variant of this package for its worker.
func Factories() []engine.Factory { return []engine.Factory{{ID: ID, New: New}} }

var (
	_ engine.Variant       = (*Variant)(nil)
	_ engine.ServerVariant = (*Variant)(nil)
)

// New makes the variant when sqld is installed in the repository of the
// worker's binary (the server the study starts); otherwise it says how to
// install it (engine.ErrDisabled).
func New() (engine.Variant, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if _, ok := sqldserver.Find(filepath.Dir(exe)); !ok {
		return nil, fmt.Errorf("%w: %w", engine.ErrDisabled, sqldserver.ErrNotInstalled)
	}
	return &Variant{retry: useRetries(http.DefaultClient)}, nil
}

// Variant is sqld through libsql-client-go; UseServer gives it its
// server. Its requests go through retry (retry.go).
type Variant struct {
	server *sqldserver.Client
	retry  *retryTransport
}

var _ engine.Retrier = (*Variant)(nil)

// Retries implements engine.Retrier: the requests sent again because
// sqld answered that their namespace does not exist (retry.go).
func (v *Variant) Retries() int64 {
	if v.retry == nil {
		return 0
	}
	return v.retry.retries.Load()
}

// errNoServer is returned by a store operation before UseServer.
var errNoServer = errors.New("no sqld server given (engine.ServerVariant.UseServer)")

var ctx = context.Background()

// ID implements engine.Variant.
func (v *Variant) ID() string { return ID }

// Versions implements engine.Variant: the server's version.
func (v *Variant) Versions() map[string]string {
	if v.server == nil {
		return nil
	}
	return map[string]string{"sqld": v.server.Version}
}

// UseServer implements engine.ServerVariant: dsn is the server's
// directory, where its client file says how to reach it
// (sqldserver.Connect).
func (v *Variant) UseServer(dsn string) error {
	c, err := sqldserver.Connect(dsn)
	if err != nil {
		return err
	}
	v.server = &c
	return nil
}

// Create implements engine.Variant: the namespace of dir, made through
// the admin API, with its notes table committed.
func (v *Variant) Create(dir string) (engine.Store, error) {
	c, err := v.newNamespace(dir)
	if err != nil {
		return nil, err
	}
	s, err := sqlnotes.Create(c)
	if err != nil {
		return nil, err
	}
	return batchedStore{s.(*sqlnotes.Store)}, nil
}

// newNamespace makes dir's namespace through the admin API and returns a
// connection to it.
func (v *Variant) newNamespace(dir string) (driver.Conn, error) {
	if v.server == nil {
		return nil, errNoServer
	}
	ns := Namespace(dir)
	if err := v.server.CreateNamespace(ctx, ns); err != nil {
		return nil, err
	}
	return v.connect(ns)
}

// Open implements engine.Variant: a connection to dir's namespace and
// its first request, a check that the notes table exists.
func (v *Variant) Open(dir string) (engine.Store, error) {
	if v.server == nil {
		return nil, errNoServer
	}
	ns := Namespace(dir)
	c, err := v.connect(ns)
	if err != nil {
		return nil, err
	}
	row, err := sqlnotes.QueryRow(c, "SELECT count(*) FROM sqlite_schema WHERE name = 'notes'", 1)
	if err == nil && row[0] != int64(1) {
		err = fmt.Errorf("namespace %s has no notes table", ns)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open namespace %s: %w", ns, err), c.Close())
	}
	s := sqlnotes.NewStore(c)
	return batchedStore{&s}, nil
}

// connect makes a connection to namespace ns: a Hrana stream that sends
// nothing until its first statement. sqld reads the namespace from the
// request's Host (NS.db); the request goes to the server's loopback
// address (the client's proxy), with the study's token. Its errors are
// on one line (oneLineConn).
func (v *Variant) connect(ns string) (driver.Conn, error) {
	conn, err := libsql.NewConnector("http://"+ns+".db",
		libsql.WithProxy("http://"+v.server.HTTP), libsql.WithAuthToken(v.server.Token))
	if err != nil {
		return nil, fmt.Errorf("connect to namespace %s: %w", ns, err)
	}
	c, err := conn.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to namespace %s: %w", ns, oneLine(err))
	}
	return oneLineConn{c}, nil
}

// DropStore implements engine.ServerVariant: it deletes dir's namespace
// through the admin API.
func (v *Variant) DropStore(dir string) error {
	if v.server == nil {
		return errNoServer
	}
	return v.server.DeleteNamespace(ctx, Namespace(dir))
}

// StoreFiles implements engine.ServerVariant: every file of dir's
// namespace directory, relative to the server's data directory.
func (v *Variant) StoreFiles(dir string) (base string, names []string, err error) {
	if v.server == nil {
		return "", nil, errNoServer
	}
	base = v.server.DataDir
	nsDir := sqldserver.NamespaceDir(Namespace(dir))
	err = filepath.WalkDir(filepath.Join(base, nsDir), func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(base, path)
		names = append(names, rel)
		return err
	})
	if err != nil {
		return "", nil, fmt.Errorf("the files of namespace %s: %w", Namespace(dir), err)
	}
	return base, names, nil
}

// ServerProcesses implements engine.ServerVariant: the server's one
// process.
func (v *Variant) ServerProcesses() ([]int, error) {
	if v.server == nil {
		return nil, errNoServer
	}
	return []int{v.server.PID}, nil
}

// Namespace names the namespace of the store in dir: the directory's
// name and a hash of its path (two stores never share one), in the
// characters a host name's label may hold (sqld reads the namespace from
// the request's Host), at most 63 of them.
func Namespace(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	h := fnv.New64a()
	h.Write([]byte(abs))
	base := labelChars.ReplaceAllString(strings.ToLower(filepath.Base(abs)), "-")
	if len(base) > 40 {
		base = base[:40]
	}
	return fmt.Sprintf("s-%s-%d", base, h.Sum64())
}

var labelChars = regexp.MustCompile(`[^a-z0-9-]`)
