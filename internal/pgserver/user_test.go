package pgserver

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// databases lists the server's databases other than its templates.
func databases(t *testing.T, ctx context.Context, dsn string) []string {
	t.Helper()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, "SELECT datname FROM pg_database WHERE NOT datistemplate ORDER BY datname")
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestUserServer: on a server of the user's, manydb makes databases
// marked as its own for the study's root, makes a killed study's again,
// drops only marked ones, and leaves a database it did not make alone,
// also one with the name it would give.
func TestUserServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	s, err := Start(Config{Bin: installed(t), Dir: serverDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	ctx := context.Background()
	admin := s.DSN("postgres")
	root := t.TempDir()
	u, err := ConnectUser(ctx, admin, root)
	if err != nil {
		t.Fatal(err)
	}
	other, err := ConnectUser(ctx, admin, filepath.Join(root, "other"))
	if err != nil {
		t.Fatal(err)
	}
	checkSuperuser(t, ctx, admin, u)
	mine, theirs := u.Database("default"), other.Database("default")
	if mine == theirs || !strings.HasPrefix(mine, "manydb_") || !strings.HasSuffix(mine, "_default") {
		t.Fatalf("databases of two roots: %q and %q; want manydb_HASH_default, one per root", mine, theirs)
	}
	// theirs: a database of that name that manydb did not make for root.
	c, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{theirs}.Sanitize())
	c.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second: a killed study's database, made again
		if err := u.Make(ctx, mine); err != nil {
			t.Fatal(err)
		}
	}
	if err := other.Make(ctx, theirs); err == nil || !strings.Contains(err.Error(), "leaves it alone") {
		t.Errorf("Make of a database manydb did not make: %v, want a refusal", err)
	}
	if err := other.Drop(ctx, theirs); err != nil {
		t.Fatal(err)
	}
	if err := u.Drop(ctx, theirs); err != nil {
		t.Fatal(err)
	}
	if got := databases(t, ctx, u.DSN(mine)); !slices.Contains(got, mine) {
		t.Fatalf("databases %v lack %s (reached through its DSN)", got, mine)
	}
	if err := u.Drop(ctx, mine); err != nil {
		t.Fatal(err)
	}
	if got, want := databases(t, ctx, admin), []string{theirs, "postgres"}; !slices.Equal(got, want) {
		t.Errorf("databases after dropping manydb's: %v, want %v", got, want)
	}
}

// TestConnectUserRefuses: a string that is no DSN, a server that is not
// there, each one ErrUserServer.
func TestConnectUserRefuses(t *testing.T) {
	ctx := context.Background()
	for _, dsn := range []string{"host=", "postgres://%zz", "host=" + t.TempDir() + " user=x dbname=postgres connect_timeout=2"} {
		if _, err := ConnectUser(ctx, dsn, t.TempDir()); !errors.Is(err, ErrUserServer) {
			t.Errorf("ConnectUser(%q) = %v, want ErrUserServer", dsn, err)
		}
	}
}

// checkSuperuser: the initdb superuser is one; a role with CREATEDB (and
// pg_read_all_settings, to read data_directory) is not: it may not create
// pgvector's extension.
func checkSuperuser(t *testing.T, ctx context.Context, admin string, u *UserServer) {
	t.Helper()
	c, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Exec(ctx, "CREATE ROLE plain LOGIN CREATEDB IN ROLE pg_read_all_settings")
	c.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ConnectUser(ctx, strings.Replace(admin, "user="+Role, "user=plain", 1), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !u.Superuser() || plain.Superuser() {
		t.Errorf("superusers: %s %v, plain %v; want true, false", Role, u.Superuser(), plain.Superuser())
	}
}
