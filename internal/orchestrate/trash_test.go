package orchestrate

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"manydb/internal/results"
)

// trashWithStores makes a marked root whose trash holds n stores of two
// files each in a folder of a finished variant, and returns the root.
func trashWithStores(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, MarkerFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		dir := filepath.Join(root, TrashDir, "default_fake-1", "s"+string(rune('a'+i)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"db", "db-wal"} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// removeUntil stops, leaving the rest, when asked before it is done, and a
// later call deletes what is left, the folder too.
func TestRemoveUntilPausesAndResumes(t *testing.T) {
	root := trashWithStores(t, 3)
	trash := filepath.Join(root, TrashDir)
	stop := make(chan struct{})
	close(stop)
	if err := removeUntil(trash, stop); !errors.Is(err, errPaused) {
		t.Fatalf("stopped removal: %v, want errPaused", err)
	}
	if _, err := os.Stat(filepath.Join(trash, "default_fake-1", "sa", "db")); err != nil {
		t.Fatalf("a removal stopped before its first file deleted it: %v", err)
	}
	if err := removeUntil(trash, make(chan struct{})); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(trash); !os.IsNotExist(err) {
		t.Errorf("the trash after a whole removal: %v, want it gone", err)
	}
}

// A symbolic link in the trash is removed as a link; what it points to
// stays.
func TestRemoveUntilKeepsALinksTarget(t *testing.T) {
	root := trashWithStores(t, 1)
	outside := filepath.Join(t.TempDir(), "keep")
	if err := os.WriteFile(outside, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(root, TrashDir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := removeUntil(filepath.Join(root, TrashDir), make(chan struct{})); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the link's target: %v, want it kept", err)
	}
}

// makeRoom empties the trash only when the stores about to be made would
// not fit beside it, and counts that time as cleanup.
func TestMakeRoom(t *testing.T) {
	root := trashWithStores(t, 2)
	bin := trash{root: root, full: true}
	var b results.Budget
	if err := bin.makeRoom(1, &b); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, TrashDir, "default_fake-1")); err != nil || !bin.full {
		t.Fatalf("a byte to make: the trash %v, full %v; want it kept", err, bin.full)
	}
	if err := bin.makeRoom(1e30, &b); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, TrashDir, "default_fake-1")); !os.IsNotExist(err) || bin.full {
		t.Errorf("stores that cannot fit: the trash %v, full %v; want it emptied", err, bin.full)
	}
	if b.Cleanup <= 0 {
		t.Errorf("cleanup %v s, want the emptying counted", b.Cleanup)
	}
}

// An emptying counts as overlapped only its own time within the wait: one
// that ended before the wait did counts until its end, one that ran on
// after it counts that part as cleanup.
func TestEmptyingCount(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	for _, c := range []struct {
		name                    string
		stopped, end            float64
		overlapped, cleanupWant float64
	}{
		{"done within the wait", 100, 12, 12, 0},
		{"stopped by the wait's end", 30, 30.5, 30, 0.5},
	} {
		var b results.Budget
		(&emptying{start: t0}).count(&b, at(c.stopped), at(c.end))
		if math.Abs(b.CleanupOverlapped-c.overlapped) > 1e-9 || math.Abs(b.Cleanup-c.cleanupWant) > 1e-9 {
			t.Errorf("%s: overlapped %v s, cleanup %v s; want %v and %v", c.name, b.CleanupOverlapped, b.Cleanup, c.overlapped, c.cleanupWant)
		}
	}
}
