//go:build objectbox

package objectbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/enginetest"
	"manydb/internal/engines/objectbox/note"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/worker"
	"manydb/internal/workload"
)

var spec = workload.Spec{Name: "custom", Objects: 200, TextLen: 300}

var factories = []struct {
	id  string
	new func() (engine.Variant, error)
}{
	{IDSync, NewSync},
	{IDCached, NewCached},
	{IDNoSync, NewNoSync},
}

func newVariant(t *testing.T, id string) engine.Variant {
	t.Helper()
	for _, f := range factories {
		if f.id == id {
			v, err := f.new()
			if err != nil {
				t.Fatal(err)
			}
			if c, ok := v.(engine.Closer); ok {
				t.Cleanup(func() { c.CloseVariant() })
			}
			return v
		}
	}
	t.Fatalf("no variant %s", id)
	return nil
}

func runJob(t *testing.T, v engine.Variant, job job.Job) results.Record {
	t.Helper()
	job.Variant, job.Workload = v.ID(), spec
	var stderr bytes.Buffer
	rec, err := worker.RunJob(job, v, &stderr)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", v.ID(), job.Phase, err, stderr.String())
	}
	return rec
}

// TestSuite runs the shared adapter suite with every variant.
func TestSuite(t *testing.T) {
	for _, f := range factories {
		t.Run(f.id, func(t *testing.T) {
			v, err := f.new() // enginetest.Run releases it
			if err != nil {
				t.Fatal(err)
			}
			recs := enginetest.Run(t, enginetest.Case{Variant: v, Objects: 200, Files: []string{DataFile, LockFile}})
			if got := recs[0].Versions["objectbox"]; got != "5.3.2" {
				t.Errorf("versions[objectbox] = %q, want 5.3.2", got)
			}
			if want := []string{DataFile, LockFile}; !slices.Equal(recs[4].Files, want) {
				t.Errorf("space: files %v, want %v", recs[4].Files, want)
			}
		})
	}
}

// TestCrossOpen opens the stores each variant created with every variant
// and counts their notes: the model bytes obx_cached passes describe the
// same schema as objectbox-go's model (the sync would fail on another
// uid, see TestModelSyncChecksUids).
func TestCrossOpen(t *testing.T) {
	notes := make([]workload.Note, spec.Objects)
	for _, creator := range factories {
		dir := t.TempDir()
		spec.Fill(0, notes)
		createStore(t, newVariant(t, creator.id), dir, notes)
		for _, opener := range factories {
			if got := openCount(t, newVariant(t, opener.id), dir); got != int64(len(notes)) {
				t.Errorf("created by %s, opened by %s: count %d, want %d", creator.id, opener.id, got, len(notes))
			}
		}
	}
}

// TestModelSyncChecksUids shows what the model sync checks: model bytes
// with another uid for Note.Text fail to open an existing store.
func TestModelSyncChecksUids(t *testing.T) {
	dir := t.TempDir()
	createStore(t, newVariant(t, IDSync), dir, fill(10))
	other := otherModel(t)
	defer other.free()
	s, err := cOpen(dir, other, false, 0)
	if err == nil {
		s.close()
		t.Fatal("opening with a model whose Text property has another uid succeeded; want a schema error")
	}
	t.Logf("as expected: %v", err)
}

// TestNoSyncSkipsModel shows that obx_nosync opens an existing store
// without a model: a store whose schema differs from Note's model (another
// uid for Text, written by opening it with that model) cannot be opened by
// obx or obx_cached, whose model sync rejects it, but obx_nosync opens it
// with its stored schema and counts its notes.
func TestNoSyncSkipsModel(t *testing.T) {
	dir := t.TempDir()
	other := otherModel(t)
	defer other.free()
	s, err := cOpen(dir, other, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	notes := fill(25)
	v := newVariant(t, IDNoSync).(*cVariant)
	var m marshaled
	if err := v.marshal(notes, &m, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.putMany(entityID(), m.data, m.offs, make([]uint64, len(notes)), 1); err != nil {
		t.Fatal(err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{IDSync, IDCached} {
		if st, err := newVariant(t, id).Open(dir); err == nil {
			st.Close()
			t.Errorf("%s opened a store whose schema differs from its model; want a model sync error", id)
		}
	}
	if got := openCount(t, v, dir); got != int64(len(notes)) {
		t.Errorf("obx_nosync: count %d, want %d", got, len(notes))
	}
}

// TestNoSyncCreatesWithModel: obx_nosync opens a directory without
// data.mdb with the model, creating the store, as objectbox-python does.
func TestNoSyncCreatesWithModel(t *testing.T) {
	dir := t.TempDir()
	v := newVariant(t, IDNoSync)
	st, err := v.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := st.Count(); err != nil || n != 0 {
		t.Errorf("count of a new store: %d, %v; want 0", n, err)
	}
	st.Close()
	if got := openCount(t, newVariant(t, IDSync), dir); got != 0 {
		t.Errorf("obx: count %d, want 0", got)
	}
}

// TestInsertNeedsNewStore: the notes' ids 1…N are the ids ObjectBox
// reserves in a new store only; a second insert fails and writes nothing.
func TestInsertNeedsNewStore(t *testing.T) {
	for _, f := range factories {
		t.Run(f.id, func(t *testing.T) {
			dir := t.TempDir()
			v := newVariant(t, f.id)
			st, err := v.Create(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			notes := fill(5)
			if err := st.Insert(notes); err != nil {
				t.Fatal(err)
			}
			err = st.Insert(notes)
			if err == nil || !strings.Contains(err.Error(), "new") {
				t.Errorf("second insert: %v, want an error saying the store must be new", err)
			}
			if f.id != IDSync { // objectbox-go has put the objects by the time it returns their ids
				if n, _ := st.Count(); n != 5 {
					t.Errorf("count after the failed insert: %d, want 5", n)
				}
			}
		})
	}
}

// TestMarshaler: Marshal then InsertMarshaled writes what Insert writes.
func TestMarshaler(t *testing.T) {
	dir := t.TempDir()
	v := newVariant(t, IDCached)
	st, err := v.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := st.(engine.Marshaler)
	if !ok {
		t.Fatal("obx_cached's store is no engine.Marshaler")
	}
	mm, err := m.Marshal(fill(7))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.InsertMarshaled(mm); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if got := openCount(t, newVariant(t, IDSync), dir); got != 7 {
		t.Errorf("count %d, want 7", got)
	}
}

func TestModelBytesRejectsBadJSON(t *testing.T) {
	for _, in := range []string{`{`, `{"lastEntityId": "x"}`, `{"lastIndexId": "1:2"}`} {
		if _, err := ModelBytes([]byte(in)); err == nil {
			t.Errorf("ModelBytes(%s) succeeded, want an error", in)
		}
	}
}

func fill(n int) []workload.Note {
	notes := make([]workload.Note, n)
	workload.Spec{Objects: n, TextLen: 40}.Fill(0, notes)
	return notes
}

func createStore(t *testing.T, v engine.Variant, dir string, notes []workload.Note) {
	t.Helper()
	st, err := v.Create(dir)
	if err != nil {
		t.Fatalf("%s create: %v", v.ID(), err)
	}
	if err := st.Insert(notes); err != nil {
		t.Fatalf("%s insert: %v", v.ID(), err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, DataFile)); err != nil {
		t.Fatal(err)
	}
}

func openCount(t *testing.T, v engine.Variant, dir string) int64 {
	t.Helper()
	st, err := v.Open(dir)
	if err != nil {
		t.Fatalf("%s open: %v", v.ID(), err)
	}
	defer st.Close()
	n, err := st.Count()
	if err != nil {
		t.Fatalf("%s count: %v", v.ID(), err)
	}
	return n
}

// otherModel is Note's model with another uid for the Text property.
func otherModel(t *testing.T) *cModel {
	t.Helper()
	const textUID = "2:8569112133253437668"
	if !bytes.Contains(note.ModelJSON, []byte(textUID)) {
		t.Fatalf("objectbox-model.json has no %s: update the test", textUID)
	}
	b, err := ModelBytes(bytes.Replace(note.ModelJSON, []byte(textUID), []byte("2:1234567890123456789"), 1))
	if err != nil {
		t.Fatal(err)
	}
	return newCModel(b)
}

// TestLean runs the suite under lean with every variant.
func TestLean(t *testing.T) {
	for _, f := range Factories() {
		t.Run(f.ID, func(t *testing.T) {
			enginetest.Lean(t, f, enginetest.Case{Objects: 200, Files: []string{DataFile, LockFile}})
		})
	}
}

// TestLeanOpensManyStores shows that lean's options are in effect: with
// default options each open store holds a pthread key and the process has
// 1,024, so holding 1,100 stores open fails; under lean (no thread-local
// readers) obx_nosync holds them all, counts each and closes them.
func TestLeanOpensManyStores(t *testing.T) {
	if testing.Short() {
		t.Skip("creates and opens 1,100 stores")
	}
	const n = 1100
	lean, err := newCVariant(IDNoSync, true, true)
	if err != nil {
		t.Fatal(err)
	}
	defer lean.CloseVariant()
	def := newVariant(t, IDNoSync)
	dirs := enginetest.MakeStores(t, lean, n, workload.Spec{Name: "custom", Objects: 2, TextLen: 20})
	hold := func(v engine.Variant) (opened int, err error) {
		var open []engine.Store
		defer func() {
			for _, s := range open {
				if cerr := s.Close(); cerr != nil && err == nil {
					err = cerr
				}
			}
		}()
		for _, d := range dirs {
			s, err := v.Open(d)
			if err != nil {
				return len(open), err
			}
			open = append(open, s)
			if c, err := s.Count(); err != nil || c != 2 {
				return len(open), fmt.Errorf("count %d, %v", c, err)
			}
		}
		return len(open), nil
	}
	if opened, err := hold(def); err == nil {
		t.Errorf("default options: %d stores open at once, want a failure before 1,025", opened)
	} else {
		t.Logf("default options, as expected: store %d fails: %v", opened+1, err)
	}
	if opened, err := hold(lean); err != nil || opened != n {
		t.Errorf("lean: %d of %d stores open, %v", opened, n, err)
	}
}
