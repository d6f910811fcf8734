package postgres

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/enginetest"
	"manydb/internal/pgserver"
	"manydb/internal/vector"
	"manydb/internal/workload"
)

// server is the tests' PostgreSQL server, started by TestMain when the
// server is installed; skip says why not, and noVectors why pgvector
// cannot run on this machine (pgserver.NoVectors).
type testServer struct {
	s         *pgserver.Server
	skip      string
	noVectors string
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
	return testServer{s: s, noVectors: pgserver.NoVectors(bin)}, func() { s.Stop(); os.RemoveAll(root) }
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

// vectorVariant is variant for a test with embeddings: it skips t when
// scripts/fetch-postgres.sh's probe found that pgvector cannot run on
// this machine's CPU, where a backend that ran it would die and put the
// server the other tests use in recovery.
func vectorVariant(t *testing.T, db string) (*Variant, string) {
	t.Helper()
	skipNoVectors(t)
	return variant(t, db)
}

// skipNoVectors skips t when pgvector cannot run on this machine's CPU.
func skipNoVectors(t *testing.T) {
	t.Helper()
	if srv.noVectors != "" {
		t.Skip("embeddings are n/a on this machine: " + srv.noVectors)
	}
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
	v, _ := vectorVariant(t, "vectors")
	defer v.CloseVariant()
	enginetest.CheckVectors(t, v, 0.9)
}

func TestSharedVectors(t *testing.T) {
	v, _ := vectorVariant(t, "shared_vectors")
	defer v.CloseVariant()
	enginetest.CheckSharedVectors(t, v)
}

// TestPartitionPlans: postgres_part's connections plan each statement
// for its agent (plan_cache_mode = force_custom_plan: a generic plan would
// lock every partition, more than the server's lock table holds at 10,000
// agents), and postgres's keep the server's default.
func TestPartitionPlans(t *testing.T) {
	if srv.s == nil {
		t.Skip(srv.skip)
	}
	for _, c := range []struct{ id, want string }{{IDPartition, partitionPlans}, {ID, "auto"}} {
		v := &Variant{id: c.id}
		if err := v.UseServer(srv.s.DSN("plans")); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := v.pool.QueryRow(ctx, "SHOW plan_cache_mode").Scan(&got); err != nil || got != c.want {
			t.Errorf("%s: plan_cache_mode %q (%v), want %q", c.id, got, err, c.want)
		}
		v.CloseVariant()
	}
}

func TestPartitionShared(t *testing.T) {
	v, _ := variant(t, "partition_shared")
	v.id = IDPartition
	defer v.CloseVariant()
	enginetest.CheckShared(t, v)
}

func TestPartitionSharedVectors(t *testing.T) {
	v, _ := vectorVariant(t, "partition_vectors")
	v.id = IDPartition
	defer v.CloseVariant()
	enginetest.CheckSharedVectors(t, v)
}

// TestPartitionDelete checks postgres_part's shared store: each agent's
// rows are a partition of their own, deleting an agent removes its
// partition's files from the store's files, and dropping the store
// removes every partition.
func TestPartitionDelete(t *testing.T) {
	v, _ := variant(t, "partition_delete")
	v.id = IDPartition
	defer v.CloseVariant()
	spec := workload.Spec{Name: "custom", Objects: 20, TextLen: 20}
	dir := t.TempDir()
	s, err := sharedWithAgents(v, dir, true, spec, 3)
	if err != nil {
		t.Fatal(err)
	}
	_, before, err := v.StoreFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteAgent(1); err != nil {
		t.Fatal(err)
	}
	_, after, err := v.StoreFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Each partition has a table and its primary key's index (and a
	// TOAST table with its index): the files of one agent of three.
	if len(after) >= len(before) || len(before)-len(after) != len(before)/3 {
		t.Errorf("the store had %d files, %d after deleting one agent of 3; want a third fewer", len(before), len(after))
	}
	var parts int
	if err := v.pool.QueryRow(ctx, "SELECT count(*) FROM pg_partition_tree(to_regclass($1)) WHERE level > 0", s.(*sharedStore).table.table).Scan(&parts); err != nil || parts != 2 {
		t.Fatalf("partitions after deleting one agent of 3: %d (%v), want 2", parts, err)
	}
	if err := v.DropStore(dir); err != nil {
		t.Fatal(err)
	}
	var gone bool
	if err := v.pool.QueryRow(ctx, "SELECT to_regnamespace($1) IS NULL", schemaOf(dir)).Scan(&gone); err != nil || !gone {
		t.Errorf("the schema is there after DropStore (%v)", err)
	}
}

// TestIterativeScanFindsKRows checks that postgres_iter's setting takes
// effect: on one shared table of 60 agents of 300 notes that share 2 topics (each
// agent few enough that the planner uses the index),
// pgvector's filtered HNSW search with its defaults (postgres) returns
// fewer than 10 of an agent's notes for some agent, and with iterative
// scans (postgres_iter) 10 for every agent; so does a partition per agent
// (postgres_part), whose index holds the agent's notes only.
func TestIterativeScanFindsKRows(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three HNSW indexes of 18,000 notes (about 15 s)")
	}
	if srv.s == nil {
		t.Skip(srv.skip)
	}
	skipNoVectors(t)
	spec := workload.Spec{Name: "custom", Objects: 300, TextLen: 20, Dims: 16, TopicPool: 2}
	const agents = 60
	dir, partDir := t.TempDir(), t.TempDir()
	short := map[string]int{}
	for _, id := range []string{ID, IDIterative, IDPartition} {
		v := &Variant{id: id}
		if err := v.UseServer(srv.s.DSN("iterative")); err != nil {
			t.Fatal(err)
		}
		defer v.CloseVariant()
		in := dir
		if id == IDPartition {
			in = partDir
		}
		s, err := sharedWithAgents(v, in, id != IDIterative, spec, agents)
		if err != nil {
			t.Fatal(err)
		}
		for a := range agents {
			ids, err := agentKNN(s, a, spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) < vector.K {
				short[id]++
			}
		}
	}
	if short[ID] == 0 || short[IDIterative] != 0 || short[IDPartition] != 0 {
		t.Errorf("agents answered with fewer than %d notes: %v; want some for %s (pgvector's filtered HNSW) and none for %s or %s", vector.K, short, ID, IDIterative, IDPartition)
	}
}

// sharedWithAgents makes (create) or opens the shared store in dir with
// n agents of spec.
func sharedWithAgents(v *Variant, dir string, create bool, spec workload.Spec, n int) (engine.SharedStore, error) {
	if !create {
		return v.OpenShared(dir)
	}
	makeShared := func() (engine.SharedStore, error) { return v.CreateSharedVectors(dir, spec.Dims) }
	if spec.Dims == 0 {
		makeShared = func() (engine.SharedStore, error) { return v.CreateShared(dir) }
	}
	s, err := makeShared()
	if err != nil {
		return nil, err
	}
	notes := make([]workload.Note, spec.Objects)
	for a := range n {
		spec.Fill(a, notes)
		st, err := s.Agent(a)
		if err == nil {
			err = st.Insert(notes)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := v.analyzeNew(); err != nil { // as the next phase's worker does
		return nil, err
	}
	return s, nil
}

// agentKNN asks agent a for the notes nearest its first note.
func agentKNN(s engine.SharedStore, a int, spec workload.Spec) ([]int64, error) {
	notes := make([]workload.Note, spec.Objects)
	spec.Fill(a, notes)
	st, err := s.Agent(a)
	if err != nil {
		return nil, err
	}
	return st.(engine.VectorStore).KNN(notes[0].Emb, vector.K, nil)
}

// TestStoresFiles checks that one request for many stores' files
// (StoresFiles) names what StoreFiles names for each, store by store, and
// none for a directory with no store on the server, which StoreFiles
// refuses.
func TestStoresFiles(t *testing.T) {
	v, _ := variant(t, "stores_files")
	defer v.CloseVariant()
	spec := workload.Spec{Name: "custom", Objects: 20, TextLen: 20}
	var dirs []string
	for i := range 3 {
		dir := filepath.Join(t.TempDir(), fmt.Sprint(i))
		s, err := v.Create(dir)
		if err == nil {
			notes := make([]workload.Note, spec.Objects)
			spec.Fill(i, notes)
			err = errors.Join(s.Insert(notes), s.Close())
		}
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	// VACUUM gives each table its forks (_fsm, _vm), which StoresFiles
	// finds in the directory it reads and StoreFiles by stat.
	if _, err := v.pool.Exec(ctx, "VACUUM"); err != nil {
		t.Fatal(err)
	}
	base, all, err := v.StoresFiles(dirs)
	if err != nil {
		t.Fatal(err)
	}
	for k, dir := range dirs {
		b, one, err := v.StoreFiles(dir)
		if err != nil {
			t.Fatal(err)
		}
		if b != base || len(one) < 2 || !slices.Equal(sorted(one), sorted(all[k])) {
			t.Errorf("store %d: StoresFiles named %v in %s, StoreFiles %v in %s", k, all[k], base, one, b)
		}
		if !slices.ContainsFunc(all[k], func(n string) bool { return strings.HasSuffix(n, "_vm") }) {
			t.Errorf("store %d: StoresFiles named %v after VACUUM, no visibility map (_vm)", k, all[k])
		}
		if k > 0 && slices.Equal(sorted(all[k]), sorted(all[k-1])) {
			t.Errorf("stores %d and %d have the same files %v", k-1, k, all[k])
		}
	}
	_, all, err = v.StoresFiles(append(dirs, t.TempDir()))
	if err != nil || len(all) != len(dirs)+1 || len(all[len(dirs)]) != 0 {
		t.Errorf("StoresFiles with a directory of no store last: %v, %v; want no file for it", all, err)
	}
	if _, _, err := v.StoreFiles(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no store on the server") {
		t.Errorf("StoreFiles of a directory of no store: error %v, want no store on the server", err)
	}
}

// sorted returns a sorted copy of xs.
func sorted(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}
