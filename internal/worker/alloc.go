package worker

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"manydb/internal/job"
)

// Allocator is the malloc a worker process runs with, as the process
// itself shows it (see findAllocator).
type Allocator struct {
	// Name is glibc, jemalloc, mimalloc or tcmalloc; for another library,
	// its file name.
	Name job.Allocator
	// Version is what the library's own version call answers
	// (gnu_get_libc_version, mallctl("version"), mi_version, tc_version).
	Version string
	// Library is the path of the shared library that defines the malloc
	// every call in the process reaches.
	Library string
}

// errNoCgo is returned by findAllocator in a worker built without cgo
// whose process has no C library: there is no malloc to find or replace.
var errNoCgo = errors.New("this worker is built without cgo and has no C library: it has no C malloc")

// checkAllocator finds the process' allocator and, when want is set (the
// allocator the setting asked for: glibc, jemalloc, …), checks that it is
// that one. A process without a C library answers a zero Allocator when
// want is empty.
//
// It runs before a phase measures anything, so a preload that did not take
// (a wrong LD_PRELOAD path: the dynamic linker only warns and goes on with
// glibc) fails the phase instead of measuring glibc under another name.
func checkAllocator(want job.Allocator) (Allocator, error) {
	a, err := findAllocator()
	switch {
	case errors.Is(err, errNoCgo) && want == "":
		return Allocator{}, nil
	case err != nil:
		return Allocator{}, fmt.Errorf("which malloc runs here: %w", err)
	case want == job.Glibc && a.Name != want:
		return Allocator{}, fmt.Errorf("the setting runs glibc's malloc, but malloc in this process is %s's (%s; LD_PRELOAD=%q): unset LD_PRELOAD, or use the setting %s; nothing was measured",
			a.Name, a.Library, os.Getenv("LD_PRELOAD"), a.Name)
	case want != "" && a.Name != want:
		return Allocator{}, fmt.Errorf("the setting asks for %s, but malloc in this process is %s's (%s; LD_PRELOAD=%q): the preload did not take effect, so nothing was measured",
			want, a.Name, a.Library, os.Getenv("LD_PRELOAD"))
	}
	return a, nil
}

// record adds the allocator to a record's versions: "allocator" (name and
// version) and "allocator_library" (its path). A zero Allocator adds
// nothing.
func (a Allocator) record(versions map[string]string) {
	if a.Name == "" {
		return
	}
	versions["allocator"] = string(a.Name) + " " + a.Version
	versions["allocator_library"] = a.Library
}

// allocatorName names the allocator of a library file from its name.
func allocatorName(library string) job.Allocator {
	base := filepath.Base(library)
	for prefix, name := range map[string]job.Allocator{"libc.so": job.Glibc, "libc-": job.Glibc,
		"libjemalloc": job.Jemalloc, "libmimalloc": job.Mimalloc, "libtcmalloc": job.Tcmalloc} {
		if strings.HasPrefix(base, prefix) {
			return name
		}
	}
	return job.Allocator(base)
}

// mappedFile returns the file mapped at address addr in the process'
// memory map (path: /proc/self/maps), and whether there is one.
func mappedFile(path string, addr uint64) (string, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode [path]
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil {
			return "", false, fmt.Errorf("%s: bad line %q", path, sc.Text())
		}
		if start <= addr && addr < end {
			return strings.Join(fields[5:], " "), true, nil // "" for an anonymous mapping
		}
	}
	return "", false, sc.Err()
}

// allocatorFromMaps is the proof of a worker built without cgo, which
// cannot ask the dynamic linker: the allocator whose library the memory
// map (path: /proc/self/maps) holds. A library from LD_PRELOAD comes first
// in the global scope, so when jemalloc's, mimalloc's or tcmalloc's is
// mapped it is the malloc of the process (unless something loaded it
// privately, which no engine here does); otherwise glibc's, if the C
// library is mapped. Its version is not asked. errNoCgo when the process
// has no C library at all (a static pure-Go binary).
func allocatorFromMaps(path string) (Allocator, error) {
	f, err := os.Open(path)
	if err != nil {
		return Allocator{}, err
	}
	defer f.Close()
	var libc string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		lib := strings.Join(fields[5:], " ")
		switch name := allocatorName(lib); name {
		case job.Jemalloc, job.Mimalloc, job.Tcmalloc:
			return Allocator{Name: name, Version: noVersion, Library: lib}, nil
		case job.Glibc:
			libc = lib
		}
	}
	if err := sc.Err(); err != nil {
		return Allocator{}, err
	}
	if libc == "" {
		return Allocator{}, errNoCgo
	}
	return Allocator{Name: job.Glibc, Version: noVersion, Library: libc}, nil
}

// noVersion is the version recorded by a worker built without cgo.
const noVersion = "(version not asked: worker built without cgo; proof from /proc/self/maps only)"

// sameFile tells whether two paths name one file (links followed).
func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// checkEnv proves the setting's environment reached the worker: each
// NAME=value of env must be what getenv gives for NAME, or the phase
// fails before it measures anything.
func checkEnv(env []string, getenv func(string) string) error {
	for _, e := range env {
		name, want, _ := strings.Cut(e, "=")
		if got := getenv(name); got != want {
			return fmt.Errorf("the setting sets %s, but this process has %s=%q: the setting's environment did not reach the worker, so nothing was measured", e, name, got)
		}
	}
	return nil
}
