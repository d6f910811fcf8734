package worker

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/results"
)

// agents is the variant a phase of the shared layout works with: the
// variant and its one shared store, which RunJob opens (create: makes)
// before the phase's first span and closes after its last, as an
// application opens its database once when it starts. A visit of store i
// is then a visit of agent i's view (opener).
type agents struct {
	engine.Variant
	store engine.SharedStore
	dir   string // the shared store's directory
}

// base returns the variant itself: v, or the variant of the shared
// layout's *agents.
func base(v engine.Variant) engine.Variant {
	if a, ok := v.(*agents); ok {
		return a.Variant
	}
	return v
}

// opener returns how a visit opens store i, whose directory is dir: the
// agent's view of the shared store (v is *agents), or the store in dir.
func opener(v engine.Variant) func(i int, dir string) (engine.Store, error) {
	if a, ok := v.(*agents); ok {
		return func(i int, _ string) (engine.Store, error) { return a.store.Agent(i) }
	}
	return func(_ int, dir string) (engine.Store, error) { return v.Open(dir) }
}

// withLayout returns the variant the job's phase works with: v itself
// for a store per agent (job.OwnStores); for a layout of one store for
// every agent (job.OneStore) v with its shared store,
// made by the create phase in a new directory and opened by the others
// (rec.SharedOpenMs times either), with a connection per goroutine for
// serve when the variant has one connection otherwise
// (engine.SharedConnsVariant), and a function that closes it.
func withLayout(j job.Job, v engine.Variant, rec *results.Record) (_ engine.Variant, _ func() error, err error) {
	if j.Layout.Stores() == job.OwnStores || j.Phase == job.PhaseVersions {
		return v, func() error { return nil }, nil
	}
	sv, ok := v.(engine.SharedVariant)
	if !ok {
		return nil, nil, fmt.Errorf("variant %s has no shared layout (engine.SharedVariant); the catalog's NoShared should say why", v.ID())
	}
	dir := job.SharedDir(j.Dir)
	rec.Layout, rec.SharedLayout = j.Layout, sv.SharedLayout()
	open := sv.OpenShared
	if cv, ok := sv.(engine.SharedConnsVariant); ok && j.Phase == job.PhaseServe {
		open = func(dir string) (engine.SharedStore, error) { return cv.OpenSharedConns(dir, j.Serve.Concurrency) }
	}
	if j.Phase == job.PhaseCreate {
		if err := mkStoreDir(v.ID(), dir); err != nil {
			return nil, nil, fmt.Errorf("mkdir the shared store: %w", err)
		}
		if open, err = sharedMaker(sv, j.Workload.Dims); err != nil {
			return nil, nil, err
		}
	}
	t0 := time.Now()
	s, err := open(dir)
	rec.SharedOpenMs = ms(time.Since(t0))
	if err != nil {
		return nil, nil, fmt.Errorf("open the shared store %s: %w", dir, err)
	}
	return &agents{Variant: v, store: s, dir: dir}, s.Close, nil
}

// sharedMaker returns how the create phase makes the shared store: with
// embeddings of dims values when dims > 0 (engine.SharedVectorVariant).
func sharedMaker(sv engine.SharedVariant, dims int) (func(dir string) (engine.SharedStore, error), error) {
	if dims == 0 {
		return sv.CreateShared, nil
	}
	vv, ok := sv.(engine.SharedVectorVariant)
	if !ok { // prepareVectors (searchOf) refused it already, saying why
		return nil, errors.New("not an engine.SharedVectorVariant")
	}
	return func(dir string) (engine.SharedStore, error) { return vv.CreateSharedVectors(dir, dims) }, nil
}

// storeDir returns store i's files: its own directory, or the shared
// store's (job.Layout.StoreDir).
func storeDir(j job.Job, i int) string { return j.Layout.StoreDir(j.Dir, i, j.Fanout) }

// distinct returns dirs without repeats, in order: the shared layout's
// stores are all in one directory, read or measured once.
func distinct(dirs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// filer returns the files of the store in dir (or of the shared store,
// for its directory). It is safe for concurrent use (spread).
type filer func(dir string) (measure.Files, error)

// filesOf returns how the worker finds a store's files: the files under
// its directory, or, for a store on a server (engine.ServerVariant), the
// server's files the variant names.
func filesOf(v engine.Variant) filer {
	sv, ok := base(v).(engine.ServerVariant)
	if !ok {
		return func(dir string) (measure.Files, error) { return measure.DirFiles(dir), nil }
	}
	return func(dir string) (measure.Files, error) {
		base, names, err := sv.StoreFiles(dir)
		if err != nil {
			return measure.Files{}, fmt.Errorf("the server's files of %s: %w", dir, err)
		}
		return measure.ListedFiles(base, names), nil
	}
}

// listedFiles returns the filer of a phase that adds or drops no
// relation of a store (a warm or turn run, the space phase): for a
// variant whose server names many stores' files in one request
// (engine.ServerFilesLister), the files of every store in dirs, listed
// once now, so that reading them in, sampling their residency or adding
// up their space asks the server nothing more; filesOf(v) otherwise. A
// fork the server adds to a relation during the phase (autovacuum's
// visibility map) is not in the list.
func listedFiles(v engine.Variant, dirs []string) (filer, error) {
	lister, ok := base(v).(engine.ServerFilesLister)
	if !ok {
		return filesOf(v), nil
	}
	dirs = distinct(dirs)
	root, names, err := lister.StoresFiles(dirs)
	if err != nil {
		return nil, fmt.Errorf("the server's files of %d stores: %w", len(dirs), err)
	}
	listed := make(map[string]measure.Files, len(dirs))
	for k, dir := range dirs {
		if len(names[k]) > 0 { // else each(dir) says why it has none
			listed[dir] = measure.ListedFiles(root, names[k])
		}
	}
	each := filesOf(v)
	return func(dir string) (measure.Files, error) {
		if fs, ok := listed[dir]; ok {
			return fs, nil
		}
		return each(dir)
	}, nil
}

// mkStoreDir makes the folder dir of a store of variant id. One that
// exists is taken only when it holds none of the engine's files (the
// catalog's FolderFiles): a removal leaves files of one's own there, and
// the store is made beside them. A variant whose files the catalog does
// not name gets a new folder or fails.
func mkStoreDir(id, dir string) error {
	err := os.Mkdir(dir, 0o755)
	if err == nil || !errors.Is(err, fs.ErrExist) {
		return err
	}
	fam, _ := engine.Lookup(id)
	files, ok := fam.FolderFiles[id]
	entries, rerr := os.ReadDir(dir)
	if !ok || rerr != nil {
		return err
	}
	for _, e := range entries {
		if engine.IsFolderFile(files, e.Name()) {
			return err
		}
	}
	return nil
}
