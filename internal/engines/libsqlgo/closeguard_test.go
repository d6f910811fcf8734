package libsqlgo

import (
	"strings"
	"testing"
	"time"

	"manydb/internal/engine"
	"manydb/internal/engines/enginetest"
	"manydb/internal/workload"
)

// TestCloseGuard opens, counts and closes a few stores and checks what the
// close guard saw: every connection's close went to SQLite once, and its
// repeat (go-libsql's double close) was skipped. When go-libsql ships a
// library without the double close, skipped drops to 0 and this test
// says so: the guard can then go.
func TestCloseGuard(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	spec := workload.Spec{Name: "custom", Objects: 10, TextLen: 20}
	dirs := enginetest.MakeStores(t, v, 5, spec)
	settle := func() (uint64, uint64) { // the closes run on tokio's threads
		r, s := CloseCounts()
		for i := 0; i < 100; i++ {
			time.Sleep(10 * time.Millisecond)
			r2, s2 := CloseCounts()
			if r2 == r && s2 == s {
				break
			}
			r, s = r2, s2
		}
		return r, s
	}
	real0, skipped0 := settle()
	const cycles = 200
	for i := 0; i < cycles; i++ {
		s, err := v.Open(dirs[i%len(dirs)])
		if err != nil {
			t.Fatal(err)
		}
		if n, err := s.Count(); err != nil || n != int64(spec.Objects) {
			t.Fatalf("count %d, %v", n, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	real1, skipped1 := settle()
	real, skipped := real1-real0, skipped1-skipped0
	t.Logf("%d open/count/close cycles: %d closes went to SQLite, %d repeats skipped", cycles, real, skipped)
	if real != cycles {
		t.Errorf("%d real closes for %d connections, want one each", real, cycles)
	}
	if skipped != cycles {
		t.Errorf("%d repeated closes skipped for %d connections, want one each: go-libsql's library changed (docs/engines.md, libSQL)", skipped, cycles)
	}
}

// oneStore makes the variant at SQLite's defaults and one small store of
// it, closed.
func oneStore(t *testing.T) (engine.Variant, string) {
	t.Helper()
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return v, enginetest.MakeStores(t, v, 1, workload.Spec{Name: "custom", Objects: 10, TextLen: 20})[0]
}

// TestWaitClosed: waitClosed waits for a store's close, which go-libsql
// finishes on a tokio thread, and gives up, naming the counts, while a
// connection is still open.
func TestWaitClosed(t *testing.T) {
	v, dir := oneStore(t)
	s, err := v.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = waitClosed(10 * time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "connections it opened") {
		t.Errorf("a store open: waitClosed = %v, want an error naming the counts", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := waitClosed(closeWait); err != nil {
		t.Fatal(err)
	}
	if opened, closed := openCounts(); opened == 0 || closed < opened {
		t.Errorf("after waitClosed: %d connections opened, %d closed", opened, closed)
	}
}

// TestConfigureWaitsForCloses: a change of SQLite's configuration, which
// shuts SQLite down, comes only once the close of the store before it
// has returned on its tokio thread. It leaves SQLite at its defaults.
func TestConfigureWaitsForCloses(t *testing.T) {
	v, dir := oneStore(t)
	for _, lean := range []bool{true, false} {
		s, err := v.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := configure(lean); err != nil {
			t.Fatal(err)
		}
		if opened, closed := openCounts(); closed < opened {
			t.Errorf("lean %t configured with %d of %d connections closed", lean, closed, opened)
		}
	}
}
