package orchestrate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"manydb/internal/measure"
	"manydb/internal/results"
)

// With a load gate, a study deletes the stores it is done with while it
// waits for the load anyway: a finished variant's stores move into the
// root's trash at once (a rename), and the trash is emptied, a file at a
// time, whenever the study waits, and paused when the wait ends, so no
// phase runs while stores are deleted. What is left is deleted, and
// counted as cleanup, when the next variant's stores would not fit beside
// it and when the study ends.

// errPaused is what an emptying of the trash returns when it was asked to
// stop before it finished.
var errPaused = errors.New("paused")

// trash is a study's trash folder and whether it holds stores to delete.
type trash struct {
	root     string
	full     bool      // holds stores discarded since it was last emptied
	emptying *emptying // being emptied in the background
}

// emptying is the trash being emptied in the background.
type emptying struct {
	start time.Time
	stop  chan struct{}
	done  chan emptied
}

// emptied is how an emptying ended: its error (errPaused when it was
// stopped first) and when.
type emptied struct {
	err error
	end time.Time
}

// count adds an emptying's time to b: its time up to stopped, when the
// study's wait ended and it was asked to stop, as cleanup that overlapped
// the wait, and its time after that as cleanup.
func (e *emptying) count(b *results.Budget, stopped, end time.Time) {
	within := end
	if stopped.Before(end) {
		within = stopped
	}
	b.CleanupOverlapped += max(0, within.Sub(e.start).Seconds())
	b.Cleanup += max(0, end.Sub(stopped).Seconds())
}

// discard moves what manydb made in dir, a finished variant's stores (of
// sets, moveToTrash), into the trash, counts the renames as cleanup in b,
// and returns what it left in dir.
func (t *trash) discard(dir string, b *results.Budget, sets ...made) ([]string, error) {
	start := time.Now()
	_, left, err := moveToTrash(t.root, dir, sets...)
	b.Cleanup += time.Since(start).Seconds()
	t.full = t.full || err == nil
	return left, err
}

// emptyWhileWaiting starts emptying the trash in the background, unless it
// is empty or already being emptied: the study is about to wait.
func (t *trash) emptyWhileWaiting() {
	if !t.full || t.emptying != nil {
		return
	}
	e := &emptying{start: time.Now(), stop: make(chan struct{}), done: make(chan emptied, 1)}
	go func() {
		err := removeUntil(filepath.Join(t.root, TrashDir), e.stop)
		e.done <- emptied{err: err, end: time.Now()}
	}()
	t.emptying = e
}

// pause stops the background emptying, if one runs, once its current file
// is deleted, and counts its time in b (emptying.count).
func (t *trash) pause(b *results.Budget) error {
	e := t.emptying
	if e == nil {
		return nil
	}
	t.emptying = nil
	stopped := time.Now()
	close(e.stop)
	r := <-e.done
	e.count(b, stopped, r.end)
	if errors.Is(r.err, errPaused) {
		return nil
	}
	t.full = false
	if r.err != nil {
		return fmt.Errorf("empty the trash: %w", r.err)
	}
	return nil
}

// emptyNow deletes what is left in the trash, counted in b as cleanup.
func (t *trash) emptyNow(b *results.Budget) error {
	if err := t.pause(b); err != nil || !t.full {
		return err
	}
	start := time.Now()
	err := EmptyTrash(t.root)
	b.Cleanup += time.Since(start).Seconds()
	t.full = err != nil // what a failed removal left is tried again
	return err
}

// makeRoom empties the trash now when need bytes, the stores about to be
// made, would not fit in the space left beside it.
func (t *trash) makeRoom(need float64, b *results.Budget) error {
	if !t.full {
		return nil
	}
	free, err := measure.FreeBytes(t.root)
	if err == nil && float64(free) >= need {
		return nil
	}
	return t.emptyNow(b)
}

// removeUntil deletes path and everything below it, a file at a time, as
// os.RemoveAll does, and returns errPaused, leaving the rest, once stop is
// closed. A symbolic link is removed as a link: what it points to is not
// manydb's.
func removeUntil(path string, stop <-chan struct{}) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		if err := removeBelow(path, stop); err != nil {
			return err
		}
	}
	return os.Remove(path)
}

// removeBelow deletes everything below the folder dir (removeUntil).
func removeBelow(dir string, stop <-chan struct{}) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		select {
		case <-stop:
			return errPaused
		default:
		}
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			if err := removeBelow(p, stop); err != nil {
				return err
			}
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
