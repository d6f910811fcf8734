package orchestrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
)

// Tests of issue 12: the study owns its data.

// countCells counts the ok records of each cell of study id.
func countCells(t *testing.T, out, id string) map[string]int {
	t.Helper()
	recs, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, r := range recs {
		if r.Study == id && r.Status == results.StatusOK && r.Phase != job.PhaseEnv && r.Phase != job.PhaseEnd {
			n[fmt.Sprintf("%s %s %d", r.Variant, r.Phase, r.Repeat())]++
		}
	}
	return n
}

// Case 1: stores left by another study in the variant's folder are not
// measured: a study killed after its create finds them replaced by another
// study's and makes its own again, without recording a second create.
func TestStoresOfAnotherStudyAreNotReused(t *testing.T) {
	a := fakeConfig(t, "fake")
	a.Stores, a.Runs, a.Hold, a.Keep = 6, 2, 3, true
	idA, err := Run(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	// As if A had been killed right after its create: keep env and create.
	recs, _ := results.ReadFile(a.Out)
	os.Remove(a.Out)
	w, _ := results.OpenWriter(a.Out)
	for _, r := range recs[:2] {
		w.Append(r)
	}
	w.Close()
	// Another study on the same root and results file replaces the stores.
	b := a
	b.Stores, b.Workload.Objects = 8, 3
	if _, err := Run(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	a.Log = &log
	if id, err := Run(context.Background(), a); err != nil || id != idA {
		t.Fatalf("rerun of A: study %s, %v; want study %s resumed\n%s", id, err, idA, log.String())
	}
	if !strings.Contains(log.String(), "cannot be reused") {
		t.Errorf("the rerun did not say why it made the stores again:\n%s", log.String())
	}
	n := countCells(t, a.Out, idA)
	for _, cell := range []string{"fake create 0", "fake open 1", "fake open 2", "fake hold 0", "fake space 0"} {
		if n[cell] != 1 {
			t.Errorf("%s recorded %d times, want once (%v)", cell, n[cell], n)
		}
	}
}

// Case 2: a second run on the same root and results file is refused with
// the first one's process id, and the first one finishes.
func TestSecondRunIsLockedOut(t *testing.T) {
	c := fakeConfig(t, "fake_slow")
	c.Stores, c.Runs, c.Hold = 20, 2, 4
	first := startOrchestrator(t, c, 1)
	_, err := Run(context.Background(), c)
	var in *job.InputError
	if !errors.As(err, &in) || !strings.Contains(err.Error(), fmt.Sprintf("in use by manydb process %d", first.Process.Pid)) {
		t.Errorf("second run: err = %v; want an job.InputError naming process %d", err, first.Process.Pid)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("the first run failed: %v", err)
	}
	recs, _ := results.ReadFile(c.Out)
	if n := countCells(t, c.Out, recs[0].Study); n["fake_slow space 0"] != 1 || n["fake_slow open 2"] != 1 {
		t.Errorf("the first run did not finish: %v", n)
	}
}

// Case 4: a failed create removes its partial stores.
func TestFailedCreateRemovesItsStores(t *testing.T) {
	c := fakeConfig(t, "fake_createfail")
	c.Stores, c.Runs, c.Hold = 5, 1, 2
	_, err := Run(context.Background(), c)
	var failed *Failed
	if !errors.As(err, &failed) {
		t.Fatalf("err = %v, want failed phases", err)
	}
	dir := filepath.Join(c.Root, "default", "fake_createfail")
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the partial stores of a failed create are still in %s (%v)", dir, err)
	}
}

// Case 5: what an interrupted removal left in the trash is removed by the
// next run.
func TestTrashIsEmptied(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Stores, c.Runs, c.Hold = 2, 1, 1
	left := filepath.Join(c.Root, TrashDir, "default_fake-1", "000000")
	if err := os.MkdirAll(left, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(c.Root, MarkerFile), nil, 0o644)
	os.WriteFile(filepath.Join(left, "fake.db"), []byte("10"), 0o644)
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(c.Root, TrashDir))
	if err != nil || len(entries) != 0 {
		t.Errorf("trash holds %v (%v), want nothing", entries, err)
	}
	if _, err := os.Stat(filepath.Join(c.Root, "default", "fake")); !os.IsNotExist(err) {
		t.Errorf("the study's stores were not removed: %v", err)
	}
}

// Case 13: a worker killed by a signal is recorded with the signal's name.
func TestSignalIsRecorded(t *testing.T) {
	c := fakeConfig(t, "fake_sigkill")
	c.Stores, c.Runs, c.Hold = 5, 1, 2
	_, err := Run(context.Background(), c)
	var failed *Failed
	if !errors.As(err, &failed) {
		t.Fatalf("err = %v, want failed phases", err)
	}
	recs, _ := results.ReadFile(c.Out)
	found := false
	for _, r := range recs {
		if r.Status == results.StatusFailed {
			found = true
			if !strings.Contains(r.Error, "signal SIGKILL") {
				t.Errorf("failed %s: error %q does not name the signal", r.Phase, r.Error)
			}
		}
	}
	if !found {
		t.Error("no failed record")
	}
}

// Case 10: the first lines of a crash report stay in the failed record
// when the tail is full of goroutine dumps.
func TestStderrKeepsTheCause(t *testing.T) {
	var b strings.Builder
	b.WriteString("progress 1 5\nstarting\npanic: runtime error: makeslice: len out of range\n\ngoroutine 1 [running]:\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "main.f%d()\n", i)
	}
	got := readStderr(strings.NewReader(b.String()), nil, nil)
	if len(got) == 0 || got[0] != "panic: runtime error: makeslice: len out of range" {
		t.Errorf("kept %q…, want the panic line first", got[:min(3, len(got))])
	}
	if last := got[len(got)-1]; last != "main.f99()" {
		t.Errorf("last line %q, want the tail", last)
	}
}

// Case 12: the resume message counts cells, not the env and end records.
func TestResumeCountsCells(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Stores, c.Runs, c.Hold = 2, 2, 1
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	c.Log = &log
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	// create, open 1, open 2, hold, space
	if !strings.Contains(log.String(), ": 5 cells already recorded") {
		t.Errorf("resume said %q, want 5 cells", log.String())
	}
}

func TestBytesText(t *testing.T) {
	for b, want := range map[float64]string{612 << 10: "612 KB", 3.4 * (1 << 20): "3.4 MB", 80.2 * (1 << 30): "80.2 GB", 1e15: "909.5 TB", 612e3: "598 KB"} {
		if got := bytesText(b); got != want {
			t.Errorf("bytesText(%v) = %q, want %q", b, got, want)
		}
	}
}

// A symbolic link in the trash, or a trash that is itself a link, is
// removed as a link: emptying the trash never deletes what it points to.
func TestTrashLinksAreNotFollowed(t *testing.T) {
	for _, linkTheTrash := range []bool{false, true} {
		c := fakeConfig(t, "fake")
		c.Stores, c.Runs, c.Hold = 2, 1, 1
		outside := t.TempDir()
		keep := filepath.Join(outside, "important")
		if err := os.WriteFile(keep, []byte("not manydb's"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(c.Root, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(c.Root, MarkerFile), nil, 0o644)
		trash := filepath.Join(c.Root, TrashDir)
		link := filepath.Join(trash, "link")
		if linkTheTrash {
			link = trash
		} else if err := os.MkdirAll(trash, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, link); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("trash as a link %v: %s, outside the root, was deleted: %v", linkTheTrash, keep, err)
		}
		if fi, err := os.Lstat(link); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			t.Errorf("trash as a link %v: the link %s is still there", linkTheTrash, link)
		}
	}
}

// --out naming a file that is not a results file (one line of text, no
// newline) is refused before anything is made, and the file is kept.
func TestForeignOutIsRefused(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Stores, c.Runs, c.Hold = 2, 1, 1
	if err := os.WriteFile(c.Out, []byte("important"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), c)
	var input *job.InputError
	if !errors.As(err, &input) || !strings.Contains(err.Error(), "not a results file") {
		t.Errorf("err = %v, want an input error saying it is not a results file", err)
	}
	if b, _ := os.ReadFile(c.Out); string(b) != "important" {
		t.Errorf("--out now holds %q", b)
	}
	if _, err := os.Stat(c.Root); !os.IsNotExist(err) {
		t.Errorf("the data root %s was made: %v", c.Root, err)
	}
}
