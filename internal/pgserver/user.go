package pgserver

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// UserServer is a PostgreSQL server the user runs (manydb's --postgres):
// manydb keeps its stores in databases of its own there, each named for
// the study's root and marked with a comment, and drops only databases
// that carry its mark for that root.
type UserServer struct {
	dsn       string // as the user gave it
	cfg       *pgx.ConnConfig
	root      string // the study's data root, absolute: the mark's
	superuser bool   // the role is a superuser (may create pgvector)
}

// Superuser tells whether the role is a superuser, who alone may create
// pgvector's extension (not a trusted extension) in a new database.
func (u *UserServer) Superuser() bool { return u.superuser }

// ErrUserServer is wrapped by every error of ConnectUser: the server
// given cannot hold a study, and nothing was made on it.
var ErrUserServer = errors.New("--postgres")

// connectTimeout bounds each connection to a user's server.
const connectTimeout = 10 * time.Second

// ConnectUser checks the user's server at dsn for a study whose data root
// is root: manydb can connect, may create databases, and can read the
// server's data directory (manydb measures the stores' files and the
// server's processes, so the server must run on this machine). It makes
// nothing.
func ConnectUser(ctx context.Context, dsn, root string) (*UserServer, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%w %q: not a PostgreSQL connection string: %v", ErrUserServer, dsn, err)
	}
	cfg.ConnectTimeout = connectTimeout
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("%w: the study's root: %v", ErrUserServer, err)
	}
	u := &UserServer{dsn: dsn, cfg: cfg, root: abs}
	c, err := u.connect(ctx, "")
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	if u.superuser, err = checkCreateDB(ctx, c); err != nil {
		return nil, err
	}
	return u, checkDataDirectory(ctx, c)
}

// connect connects to database db of the server ("": the one the DSN
// names).
func (u *UserServer) connect(ctx context.Context, db string) (*pgx.Conn, error) {
	cfg := u.cfg.Copy()
	if db != "" {
		cfg.Database = db
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot connect: %v", ErrUserServer, err)
	}
	return c, nil
}

// checkCreateDB checks that the role may create databases, and tells
// whether it is a superuser.
func checkCreateDB(ctx context.Context, c *pgx.Conn) (superuser bool, err error) {
	var ok bool
	if err := c.QueryRow(ctx, "SELECT rolcreatedb OR rolsuper, rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&ok, &superuser); err != nil {
		return false, fmt.Errorf("%w: the role's privileges: %v", ErrUserServer, err)
	}
	if !ok {
		return false, fmt.Errorf("%w: role %s may not create databases (CREATEDB), and manydb keeps its stores in databases of its own", ErrUserServer, c.Config().User)
	}
	return superuser, nil
}

// checkDataDirectory checks that the server's data directory, and in it
// the postmaster's pid file, can be read here.
func checkDataDirectory(ctx context.Context, c *pgx.Conn) error {
	var dir string
	if err := c.QueryRow(ctx, "SHOW data_directory").Scan(&dir); err != nil {
		return fmt.Errorf("%w: the server's data directory (manydb reads its stores' files there; the role needs pg_read_all_settings): %v", ErrUserServer, err)
	}
	if _, err := PostmasterPID(dir); err != nil {
		return fmt.Errorf("%w: manydb measures the stores' files and the server's processes, so it needs a server on this machine whose data directory it can read: %v", ErrUserServer, err)
	}
	return nil
}

// Versions are the server's and pgvector's versions (pgvector's "" when
// the server does not have it).
func (u *UserServer) Versions(ctx context.Context) (map[string]string, error) {
	c, err := u.connect(ctx, "")
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	return QueryVersions(ctx, c)
}

// Database names the database of a study's cells on the user's server:
// manydb_, a hash of the root, then name (a setting and layout), cut to
// PostgreSQL's 63 bytes.
func (u *UserServer) Database(name string) string {
	h := fnv.New32a()
	h.Write([]byte(u.root))
	db := fmt.Sprintf("manydb_%08x_%s", h.Sum32(), dbChars.ReplaceAllString(name, "_"))
	return db[:min(len(db), 63)]
}

var dbChars = regexp.MustCompile(`[^a-zA-Z0-9_]`)

// DSN is the address of database db on the user's server: the user's
// DSN with db as its database (a URL's path, or a dbname keyword after
// the others, which wins).
func (u *UserServer) DSN(db string) string {
	if strings.HasPrefix(u.dsn, "postgres://") || strings.HasPrefix(u.dsn, "postgresql://") {
		if addr, err := url.Parse(u.dsn); err == nil {
			addr.Path = "/" + db
			return addr.String()
		}
	}
	return u.dsn + " dbname=" + quoteValue(db)
}

// quoteValue quotes a value of a keyword/value connection string.
func quoteValue(s string) string {
	out := []byte{'\''}
	for i := range len(s) {
		if s[i] == '\'' || s[i] == '\\' {
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

// mark is the comment manydb gives each database it makes on a user's
// server.
func (u *UserServer) mark() string { return "manydb: the stores of the study in " + u.root }

// Make makes database db, marked as manydb's for this root. A database
// of that name that carries the mark (a killed study's) is dropped and
// made again; one without it is left alone and is an error.
func (u *UserServer) Make(ctx context.Context, db string) error {
	c, err := u.connect(ctx, "")
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	comment, found, err := dbComment(ctx, c, db)
	switch {
	case err != nil:
		return err
	case found && comment != u.mark():
		return fmt.Errorf("database %s exists on the server and is not one manydb made for %s: manydb leaves it alone (give another --root)", db, u.root)
	case found:
		if _, err := c.Exec(ctx, "DROP DATABASE "+pgx.Identifier{db}.Sanitize()+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop database %s that a killed study left: %w", db, err)
		}
	}
	if _, err := c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db}.Sanitize()); err != nil {
		return fmt.Errorf("create database %s: %w", db, err)
	}
	_, err = c.Exec(ctx, "COMMENT ON DATABASE "+pgx.Identifier{db}.Sanitize()+" IS "+quoteLiteral(u.mark()))
	if err != nil { // the database is the one just made: drop it though unmarked
		_, derr := c.Exec(ctx, "DROP DATABASE "+pgx.Identifier{db}.Sanitize())
		return errors.Join(fmt.Errorf("mark database %s as manydb's: %w", db, err), derr)
	}
	return nil
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string {
	out := []byte{'\''}
	for i := range len(s) {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

// Drop drops database db if it carries manydb's mark for this root; any
// other database is left alone.
func (u *UserServer) Drop(ctx context.Context, db string) error {
	c, err := u.connect(ctx, "")
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	comment, found, err := dbComment(ctx, c, db)
	if err != nil || !found || comment != u.mark() {
		return err
	}
	if _, err := c.Exec(ctx, "DROP DATABASE "+pgx.Identifier{db}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", db, err)
	}
	return nil
}

// dbComment returns database db's comment, and whether db exists.
func dbComment(ctx context.Context, c *pgx.Conn, db string) (string, bool, error) {
	var comment *string
	err := c.QueryRow(ctx, "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1", db).Scan(&comment)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("look for database %s: %w", db, err)
	case comment == nil:
		return "", true, nil
	}
	return *comment, true, nil
}
