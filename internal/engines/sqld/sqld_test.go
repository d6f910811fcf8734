package sqld

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/engines/enginetest"
	"manydb/internal/engines/sqlnotes"
	"manydb/internal/sqldserver"
	"manydb/internal/workload"
)

// srv is the tests' server, started by TestMain when sqld is installed;
// skip says why not.
var srv struct {
	s    *sqldserver.Server
	skip string
}

func TestMain(m *testing.M) {
	bin, ok := sqldserver.Find(".")
	if !ok {
		srv.skip = "sqld is not installed here (make build runs scripts/fetch-sqld.sh)"
		os.Exit(m.Run())
	}
	root, err := os.MkdirTemp("", "manydb-sqld-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if srv.s, err = sqldserver.Start(sqldserver.Config{Bin: bin, Dir: filepath.Join(root, "sqld")}); err != nil {
		os.RemoveAll(root)
		fmt.Fprintln(os.Stderr, "start sqld:", err)
		os.Exit(1)
	}
	code := m.Run()
	srv.s.Stop()
	os.RemoveAll(root)
	os.Exit(code)
}

// variant returns a variant on the tests' server, or skips t.
func variant(t *testing.T) *Variant {
	t.Helper()
	if srv.s == nil {
		t.Skip(srv.skip)
	}
	return variantOn(t, srv.s)
}

// variantOn returns a variant on server s, its requests retried as New's.
func variantOn(t *testing.T, s *sqldserver.Server) *Variant {
	t.Helper()
	v := &Variant{retry: useRetries(http.DefaultClient)}
	if err := v.UseServer(s.Dir()); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEngine(t *testing.T) {
	v := variant(t)
	enginetest.Run(t, enginetest.Case{Variant: v, Server: srv.s.Dir(), Files: []string{"dbs/s-N-N/data", "dbs/s-N-N/data-wal", "dbs/s-N-N/wallog"}, Versions: []string{"sqld"}})
}

func TestOpenOfMissingNamespaceFails(t *testing.T) {
	v := variant(t)
	dir := filepath.Join(t.TempDir(), "never-made")
	if _, err := v.Open(dir); err == nil || !strings.Contains(err.Error(), Namespace(dir)) {
		t.Fatalf("Open of a store never made: %v, want an error naming its namespace", err)
	}
}

func TestCreateOfExistingNamespaceFails(t *testing.T) {
	v := variant(t)
	dir := filepath.Join(t.TempDir(), "twice")
	s, err := v.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := v.Create(dir); err == nil {
		t.Fatal("a second Create of one store succeeded")
	}
}

func TestNamespaceOf(t *testing.T) {
	a, b := Namespace("/r/x/Store_0001"), Namespace("/r/y/Store_0001")
	if a == b {
		t.Fatalf("two directories share namespace %s", a)
	}
	if !strings.HasPrefix(a, "s-store-0001-") || len(a) > 63 || labelChars.MatchString(a) {
		t.Fatalf("Namespace = %q: want s-store-0001-HASH, a host name's label", a)
	}
}

func TestNoServer(t *testing.T) {
	v := &Variant{}
	if _, err := v.Create(t.TempDir()); err != errNoServer {
		t.Fatalf("Create without a server: %v, want errNoServer", err)
	}
}

func TestShared(t *testing.T) {
	enginetest.CheckShared(t, variant(t))
}

func TestErrorsOnOneLine(t *testing.T) {
	v := variant(t)
	dir := filepath.Join(t.TempDir(), "gone")
	s, err := v.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := v.DropStore(dir); err != nil {
		t.Fatal(err)
	}
	_, err = s.Count()
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "404") {
		t.Fatalf("Count of a deleted namespace: %q, want one line naming the 404", err)
	}
}

// TestInsertSQL: a batch of n notes is one statement of n rows.
func TestInsertSQL(t *testing.T) {
	if got, want := insertSQL(3), "INSERT INTO notes(id, text, ts) VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?)"; got != want {
		t.Errorf("insertSQL(3) = %q, want %q", got, want)
	}
	if got := insertSQL(1); got != sqlnotes.InsertSQL {
		t.Errorf("insertSQL(1) = %q, want %q", got, sqlnotes.InsertSQL)
	}
}

// TestPoolSmallerThanNamespaces: with a server that keeps 5 namespaces
// loaded, 30 stores are made, written and opened again, and every answer
// is right: the requests sqld answers "doesn't exist" while its pool
// evicts are sent again (retry.go; without it, 1 to 5 % of them failed).
func TestPoolSmallerThanNamespaces(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second sqld and makes 30 namespaces")
	}
	if srv.s == nil {
		t.Skip(srv.skip)
	}
	bin, _ := sqldserver.Find(".")
	s, err := sqldserver.Start(sqldserver.Config{Bin: bin, Dir: filepath.Join(t.TempDir(), "sqld"), MaxActiveNamespaces: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	v := variantOn(t, s)
	before := v.Retries()
	root := t.TempDir()
	spec := workload.Spec{Name: "small", Objects: 20, TextLen: 40}
	for i := range 30 {
		st, err := v.Create(filepath.Join(root, fmt.Sprint(i)))
		if err == nil {
			notes := make([]workload.Note, spec.Objects)
			spec.Fill(i, notes)
			err = errors.Join(st.Insert(notes), st.Close())
		}
		if err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
	}
	for i := range 30 {
		st, err := v.Open(filepath.Join(root, fmt.Sprint(i)))
		if err != nil {
			t.Fatalf("open store %d: %v", i, err)
		}
		n, err := st.Count()
		if err = errors.Join(err, st.Close()); err != nil || n != int64(spec.Objects) {
			t.Fatalf("store %d: count %d, %v; want %d", i, n, err, spec.Objects)
		}
	}
	t.Logf("%d requests sent again", v.Retries()-before)
}
