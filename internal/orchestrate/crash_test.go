package orchestrate

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/job"
)

// TestCrashCause: a worker's Go runtime that died of a signal, in Go code
// (Badger's mmap on a full disk: SIGBUS) or in C code through cgo
// (SIGSEGV), is named with the call it was in; a plain error is not.
func TestCrashCause(t *testing.T) {
	for _, tt := range []struct {
		tail []string
		want string
	}{
		{[]string{"unexpected fault address 0x7f3a2c000000", "fatal error: fault",
			"[signal SIGBUS: bus error code=0x2 addr=0x7f3a2c000000 pc=0x8a1f2b]", "",
			"goroutine 23 gp=0xc000102a80 m=5 mp=0xc000100008 [running]:",
			"runtime.throw({0xa3c1b2?, 0x0?})", "\t/usr/local/go/src/runtime/panic.go:1101 +0x48 fp=0xc00006ee48 sp=0xc00006ee18 pc=0x47a3c8",
			"runtime.sigpanic()", "\t/usr/local/go/src/runtime/signal_unix.go:922 +0x10a fp=0xc00006eea8 sp=0xc00006ee48 pc=0x47c2ea",
			"github.com/dgraph-io/badger/v4/y.(*WaterMark).process(0xc0001a2000, 0xc0001a6000)",
			"\t/root/go/pkg/mod/github.com/dgraph-io/badger/v4@v4.5.0/y/watermark.go:61 +0xa5"},
			"SIGBUS (bus error) in github.com/dgraph-io/badger/v4/y.(*WaterMark).process"},
		{[]string{"SIGSEGV: segmentation violation", "PC=0x7f12 m=0 sigcode=1 addr=0x0", "signal arrived during cgo execution", "",
			"goroutine 1 gp=0xc000002380 m=0 mp=0xb8e2a0 [syscall]:", "runtime.cgocall(0x8c6a30, 0xc00011f6f8)",
			"\t/usr/local/go/src/runtime/cgocall.go:167 +0x4b fp=0xc00011f6d0 sp=0xc00011f698 pc=0x46d2cb",
			"manydb/internal/engines/sqlitecapi._Cfunc_sqlite3_step(0x2a3b4c0)", "\t_cgo_gotypes.go:512 +0x47"},
			"SIGSEGV (segmentation violation) in manydb/internal/engines/sqlitecapi._Cfunc_sqlite3_step"},
		{[]string{"[signal SIGBUS: bus error code=0x2 addr=0x1 pc=0x2]"}, "SIGBUS (bus error)"},
		{[]string{"error: store 3 (/r/000003): open: no space left on device"}, ""},
	} {
		if got := crashCause(tt.tail); got != tt.want {
			t.Errorf("crashCause = %q, want %q", got, tt.want)
		}
	}
}

// TestWithFreeSpace: a failure on a file system under the bound says
// that it is full and what it has left; above it, the error stands.
func TestWithFreeSpace(t *testing.T) {
	err := errors.New("worker failed: exit status 1")
	dir := t.TempDir()
	if got := withFreeSpaceUnder(err, dir, math.MaxUint64); !errors.Is(got, err) || !strings.Contains(got.Error(), "; the file system of "+dir+" is full (") {
		t.Errorf("under the bound: %v", got)
	}
	if got := withFreeSpaceUnder(err, dir, 0); got != err {
		t.Errorf("above the bound: %v", got)
	}
}

// TestStallNamesTheLayoutsStore: the watchdog names where a stalled
// worker was by the layout's store: in the shared layout the one shared
// store, not a store of its own that the layout does not have.
func TestStallNamesTheLayoutsStore(t *testing.T) {
	c := fakeConfig(t, "fake")
	s := &study{Config: c}
	for layout, want := range map[job.Layout]string{
		job.LayoutPerAgent: filepath.Join(c.Root, "default", "fake", "000063"),
		job.LayoutShared:   filepath.Join(c.Root, "default", "fake-shared", "shared"),
	} {
		cl := s.cell(where{set: mustSetting(t, "default"), layout: layout, v: "fake"})
		w := cl.workerCmd("create", nil, job.Job{Phase: job.PhaseCreate, Stores: c.Stores}, nil)
		if got := w.storeDir(63); got != want {
			t.Errorf("%s: store 63 is %s, want %s", layout.Name(), got, want)
		}
	}
}
