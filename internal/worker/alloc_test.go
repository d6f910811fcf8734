package worker

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/fakeengine"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/settings"
)

// allocWorkerEnv makes the test binary a worker for TestAllocatorProof.
const allocWorkerEnv = "MANYDB_TEST_ALLOC_WORKER"

// cgoBuilt tells whether this test binary has a C library (it is built
// with cgo); without one there is no malloc to prove.
func cgoBuilt(t *testing.T) {
	t.Helper()
	if _, err := findAllocator(); err == errNoCgo {
		t.Skip("built without cgo: no C malloc in this process")
	}
}

// TestFindAllocatorHere checks the proof against this test process, which
// runs without a preload: its malloc is glibc's, and asking for another
// allocator fails.
func TestFindAllocatorHere(t *testing.T) {
	cgoBuilt(t)
	if os.Getenv("LD_PRELOAD") != "" {
		t.Skip("this test process itself runs with LD_PRELOAD; TestAllocatorProof covers the preload")
	}
	a, err := checkAllocator(job.Glibc)
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "glibc" || !strings.HasPrefix(a.Library, "/") || !strings.Contains(filepath.Base(a.Library), "libc") || a.Version == "" {
		t.Errorf("allocator = %+v: want glibc with its library and version", a)
	}
	for _, want := range []job.Allocator{job.Jemalloc, job.Mimalloc, job.Tcmalloc} {
		if _, err := checkAllocator(want); err == nil || !strings.Contains(err.Error(), "the preload did not take effect") {
			t.Errorf("checkAllocator(%s) in a process without a preload: err = %v, want a refusal", want, err)
		}
	}
	if _, err := checkAllocator(""); err != nil {
		t.Errorf("no allocator asked for: %v", err)
	}
}

// TestAllocatorProof runs a worker (this test binary) under each
// allocator setting, with the library from LD_PRELOAD as manydb passes it,
// and under the same setting with LD_PRELOAD pointing at glibc, at a file
// that does not exist and at nothing. The first must record the allocator
// and its version; the others must fail the phase: a preload that did not
// take effect is never measured under the allocator's name.
func TestAllocatorProof(t *testing.T) {
	if os.Getenv(allocWorkerEnv) == "1" {
		var out bytes.Buffer
		err := Run(strings.Fields(os.Getenv("MANYDB_TEST_ALLOC_ARGS")), &out, io.Discard,
			engine.Factory{ID: "fake", New: fakeengine.New("fake")})
		if err != nil {
			os.Stderr.WriteString("error: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.Write(out.Bytes())
		os.Exit(0)
	}
	cgoBuilt(t)
	here, err := findAllocator()
	if err != nil || here.Name != "glibc" {
		t.Skipf("this process' malloc is %+v (%v), not glibc's: run the test without LD_PRELOAD", here, err)
	}
	worker := func(t *testing.T, allocator, preload string) (results.Record, string, error) {
		t.Helper()
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run", "^TestAllocatorProof$")
		cmd.Env = append(os.Environ(), allocWorkerEnv+"=1", "LD_PRELOAD="+preload,
			"MANYDB_TEST_ALLOC_ARGS=--variant fake --phase create --dir "+dir+" --stores 2 --objects 5 --allocator "+allocator)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var rec results.Record
		if err == nil {
			if jerr := json.Unmarshal(out, &rec); jerr != nil {
				t.Fatalf("%v: %s", jerr, out)
			}
		}
		return rec, stderr.String(), err
	}
	sets := map[string]settings.Setting{}
	for _, name := range []string{"jemalloc", "mimalloc", "tcmalloc"} {
		s, _ := settings.Lookup(name)
		sets[name] = s
	}
	for name, set := range sets {
		t.Run(name, func(t *testing.T) {
			set, err := set.Resolve(settings.LibDirs())
			if err != nil {
				t.Skipf("%v (scripts/ensure-allocators.sh installs it)", err)
			}
			rec, stderr, err := worker(t, name, set.Library)
			if err != nil {
				t.Fatalf("under %s with its library preloaded: %v\n%s", name, err, stderr)
			}
			if !strings.HasPrefix(rec.Versions["allocator"], name+" ") || rec.Versions["allocator"] == name+" " || rec.Versions["allocator_library"] != set.Library {
				t.Errorf("record's versions = %v: want %s, its version and %s", rec.Versions, name, set.Library)
			}
			if len(rec.CreateMs) != 2 {
				t.Errorf("the phase did not run: %d create samples", len(rec.CreateMs))
			}
			for what, preload := range map[string]string{
				"glibc":   libc(t),
				"missing": filepath.Join(t.TempDir(), set.Preload.Library),
				"nothing": "",
			} {
				_, stderr, err := worker(t, name, preload)
				if err == nil || !strings.Contains(stderr, "the preload did not take effect") {
					t.Errorf("LD_PRELOAD of %s under %s: err = %v, stderr %q; want the phase to fail", what, name, err, stderr)
				}
			}
		})
	}
	// The default setting under a preloaded allocator is refused too:
	// its table would show jemalloc's figures as glibc's.
	if set, err := sets["jemalloc"].Resolve(settings.LibDirs()); err == nil {
		if _, stderr, err := worker(t, string(job.Glibc), set.Library); err == nil || !strings.Contains(stderr, "malloc in this process is jemalloc's") {
			t.Errorf("--allocator glibc under LD_PRELOAD of jemalloc: err = %v, stderr %q; want a failure", err, stderr)
		}
	}
}

// libc returns the path of this process' C library.
func libc(t *testing.T) string {
	a, err := findAllocator()
	if err != nil || a.Name != "glibc" {
		t.Fatalf("C library: %+v, %v", a, err)
	}
	return a.Library
}

func TestAllocatorName(t *testing.T) {
	for lib, want := range map[string]job.Allocator{
		"/lib/x86_64-linux-gnu/libc.so.6":               "glibc",
		"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2":    "jemalloc",
		"/usr/lib/x86_64-linux-gnu/libmimalloc.so.2.0":  "mimalloc",
		"/usr/lib/libtcmalloc_minimal.so.4.5.10":        "tcmalloc",
		"/opt/lib/libsnmalloc.so":                       "libsnmalloc.so",
		"/usr/lib/" + runtime.GOARCH + "/libcrypt.so.1": "libcrypt.so.1",
	} {
		if got := allocatorName(lib); got != want {
			t.Errorf("allocatorName(%s) = %q, want %q", lib, got, want)
		}
	}
}

func TestMappedFile(t *testing.T) {
	maps := filepath.Join(t.TempDir(), "maps")
	os.WriteFile(maps, []byte(`55d4c8a00000-55d4c8a21000 rw-p 00000000 00:00 0                          [heap]
7f1a2c000000-7f1a2c028000 r--p 00000000 fd:01 1311237                    /usr/lib/x86_64-linux-gnu/libc.so.6
7f1a2c028000-7f1a2c19d000 r-xp 00028000 fd:01 1311237                    /usr/lib/x86_64-linux-gnu/libc.so.6
7f1a2d000000-7f1a2d001000 rw-p 00000000 00:00 0 
`), 0o644)
	for addr, want := range map[uint64]string{0x7f1a2c028000: "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x55d4c8a00010: "[heap]", 0x7f1a2d000000: ""} {
		got, ok, err := mappedFile(maps, addr)
		if err != nil || !ok || got != want {
			t.Errorf("%#x: %q, %v, %v; want %q", addr, got, ok, err, want)
		}
	}
	if _, ok, err := mappedFile(maps, 0x7f1a2c19d000); ok || err != nil {
		t.Errorf("an address past every mapping was found in one (%v)", err)
	}
}

func TestAllocatorFromMaps(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	libc := "7f1a2c028000-7f1a2c19d000 r-xp 00028000 fd:01 1311237 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	jem := "7f1a2d000000-7f1a2d100000 r-xp 00000000 fd:01 1311240 /usr/lib/x86_64-linux-gnu/libjemalloc.so.2\n"
	static := "00400000-00800000 r-xp 00000000 fd:01 99 /work/bin/worker-gokv\n7f1a2d000000-7f1a2d001000 rw-p 00000000 00:00 0 \n"
	for maps, want := range map[string]job.Allocator{libc: "glibc", jem + libc: "jemalloc", libc + jem: "jemalloc"} {
		a, err := allocatorFromMaps(write("maps", maps))
		if err != nil || a.Name != want || a.Version != noVersion || !strings.HasPrefix(a.Library, "/usr/lib/") {
			t.Errorf("%q: %+v, %v; want %s", maps, a, err, want)
		}
	}
	if _, err := allocatorFromMaps(write("maps", static)); err != errNoCgo {
		t.Errorf("a process without a C library: err = %v, want errNoCgo", err)
	}
}

// TestCheckEnv: a setting's variable missing or different in the
// worker's environment fails the phase, naming it.
func TestCheckEnv(t *testing.T) {
	env := map[string]string{"MALLOC_MMAP_THRESHOLD_": "131072"}
	getenv := func(k string) string { return env[k] }
	if err := checkEnv([]string{"MALLOC_MMAP_THRESHOLD_=131072"}, getenv); err != nil {
		t.Errorf("the variable is there: %v", err)
	}
	for _, want := range []string{"MALLOC_MMAP_THRESHOLD_=65536", "MALLOC_TRIM_THRESHOLD_=67108864"} {
		err := checkEnv([]string{want}, getenv)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "nothing was measured") {
			t.Errorf("checkEnv(%s) = %v", want, err)
		}
	}
}
