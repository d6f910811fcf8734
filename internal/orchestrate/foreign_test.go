package orchestrate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/job"
)

// foreignFiles puts a file that is not manydb's at every level of the
// data root of c (the root, a setting's folder, each layout's variant
// folder, a fanout folder, a folder of its own among the stores) and
// returns their paths; each holds its own path.
func foreignFiles(t *testing.T, c Config) []string {
	t.Helper()
	if err := PrepareRoot(c.Root, "--root"); err != nil {
		t.Fatal(err)
	}
	perAgent := filepath.Join(c.Root, "default", "fake")
	paths := []string{
		filepath.Join(c.Root, "notes.txt"),
		filepath.Join(c.Root, "default", "notes.txt"),
		filepath.Join(perAgent, "README"),
		filepath.Join(filepath.Dir(job.StoreDir(perAgent, 3, c.Fanout)), "myfile.txt"),
		filepath.Join(perAgent, "mine", "keep.txt"),
		filepath.Join(c.Root, "default", "fake-shared", "keep.txt"),
	}
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// checkForeign fails the test for each of paths that is gone or changed.
func checkForeign(t *testing.T, step string, paths []string) {
	t.Helper()
	for _, p := range paths {
		if b, err := os.ReadFile(p); err != nil || string(b) != p {
			t.Errorf("%s: %s not kept (%q, %v)", step, p, b, err)
		}
	}
}

// TestForeignFilesStay: files that are not manydb's, at every level of a
// study's root, stay through a create (--keep), a resume that makes the
// stores again, a delete phase, a create on kept stores and the end of a
// study, and the console names those left in a variant's folder; what
// manydb made is gone at the end.
func TestForeignFilesStay(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Layouts = []job.Layout{job.LayoutPerAgent, job.LayoutShared}
	c.Stores, c.Runs, c.Hold, c.Fanout, c.Keep = 4, 1, 2, 1, true
	var log bytes.Buffer
	c.Log = &log
	foreign := foreignFiles(t, c)
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	checkForeign(t, "create with --keep", foreign)
	perAgent := filepath.Join(c.Root, "default", "fake")
	if !strings.Contains(log.String(), "left in "+perAgent+" what manydb did not make there: ") ||
		!strings.Contains(log.String(), "README") {
		t.Errorf("the console does not name what was left in %s:\n%s", perAgent, log.String())
	}
	// The delete phases' records lost: the rerun resumes, and makes the
	// stores (marked deleting) again before it.
	dropLines(t, c.Out, func(l string) bool {
		return strings.Contains(l, `"phase":"delete"`) || strings.Contains(l, `"phase":"end"`)
	})
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	checkForeign(t, "resume and delete", foreign)
	// Another study on the kept stores, without --keep: its create
	// removes them first, its end its own.
	c.Keep, c.Out = false, filepath.Join(t.TempDir(), "results.jsonl")
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	checkForeign(t, "create on kept stores and end of study", foreign)
	for _, dir := range []string{perAgent, filepath.Join(c.Root, "default", "fake-shared")} {
		for _, p := range []string{job.StoreDir(dir, 0, c.Fanout), job.StoreDir(dir, 3, c.Fanout), filepath.Dir(job.StoreDir(dir, 0, c.Fanout)),
			job.SharedDir(dir), job.ExportsDir(dir), filepath.Join(dir, ManifestFile)} {
			if _, err := os.Lstat(p); !os.IsNotExist(err) {
				t.Errorf("%s is left after the study (%v)", p, err)
			}
		}
	}
}

// TestRemoveTakesTheEnginesFilesOfAStore: in a store's folder and the
// shared store's, a removal takes the files the engine makes there
// (made.files) and leaves the others, with the folder, naming them; a
// store's folder holding only the engine's files goes whole.
func TestRemoveTakesTheEnginesFilesOfAStore(t *testing.T) {
	root := t.TempDir()
	if err := PrepareRoot(root, "--root"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "default", "sqlite")
	files := []string{"notes.db", "notes.db-wal"}
	write := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4 {
		write(filepath.Join(job.StoreDir(dir, i, 0), "notes.db"))
		write(filepath.Join(job.StoreDir(dir, i, 0), "notes.db-wal"))
	}
	write(filepath.Join(job.SharedDir(dir), "notes.db"))
	mine := []string{filepath.Join(job.StoreDir(dir, 3, 0), "myfile.txt"), filepath.Join(job.StoreDir(dir, 2, 0), "sub", "keep.txt"),
		filepath.Join(job.SharedDir(dir), "mine.txt")}
	for _, p := range mine {
		write(p)
	}
	left, err := RemoveInRoot(root, dir, made{stores: 4, files: files})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"000002/sub", "000003/myfile.txt", "shared/mine.txt"}
	if strings.Join(left, " ") != strings.Join(want, " ") {
		t.Errorf("left %q, want %q", left, want)
	}
	checkForeign(t, "removal", mine)
	for _, p := range []string{job.StoreDir(dir, 0, 0), filepath.Join(job.StoreDir(dir, 3, 0), "notes.db"),
		filepath.Join(job.StoreDir(dir, 2, 0), "notes.db-wal"), filepath.Join(job.SharedDir(dir), "notes.db")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is left after the removal (%v)", p, err)
		}
	}
}
