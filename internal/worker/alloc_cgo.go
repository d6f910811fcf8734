//go:build cgo

package worker

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// malloc_address is the address of the malloc that the dynamic linker
// binds every call to: the first definition in the global scope, where a
// library in LD_PRELOAD comes before the C library.
static uintptr_t malloc_address(void) { return (uintptr_t)dlsym(RTLD_DEFAULT, "malloc"); }

// malloc_library is the path of the object that defines that malloc.
static const char *malloc_library(void) {
	Dl_info info;
	void *p = dlsym(RTLD_DEFAULT, "malloc");
	if (p == NULL || dladdr(p, &info) == 0) return NULL;
	return info.dli_fname;
}

// allocator_version asks the library at path (already loaded: RTLD_NOLOAD)
// for its version with its own call, into buf.
static int allocator_version(const char *path, const char *name, char *buf, size_t n) {
	void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
	if (h == NULL) return -1;
	int ok = -2;
	if (name[0] == 'g') { // glibc
		const char *(*f)(void) = (const char *(*)(void))dlsym(h, "gnu_get_libc_version");
		if (f != NULL) ok = snprintf(buf, n, "%s", f());
	} else if (name[0] == 'j') { // jemalloc
		int (*f)(const char *, void *, size_t *, void *, size_t) =
			(int (*)(const char *, void *, size_t *, void *, size_t))dlsym(h, "mallctl");
		const char *v = NULL;
		size_t len = sizeof v;
		if (f != NULL && f("version", &v, &len, NULL, 0) == 0 && v != NULL) ok = snprintf(buf, n, "%s", v);
	} else if (name[0] == 'm') { // mimalloc: major*100 + minor*10 + patch
		int (*f)(void) = (int (*)(void))dlsym(h, "mi_version");
		if (f != NULL) {
			int v = f();
			ok = snprintf(buf, n, "%d.%d.%d", v / 100, v / 10 % 10, v % 10);
		}
	} else if (name[0] == 't') { // tcmalloc: "gperftools 2.10"
		const char *(*f)(int *, int *, const char **) = (const char *(*)(int *, int *, const char **))dlsym(h, "tc_version");
		int major, minor;
		const char *patch;
		if (f != NULL) ok = snprintf(buf, n, "%s", f(&major, &minor, &patch));
	}
	dlclose(h);
	return ok;
}
*/
import "C"

import (
	"fmt"
	"slices"
	"unsafe"

	"manydb/internal/job"
)

// findAllocator finds the malloc this process runs with and proves it
// three ways: the dynamic linker's own answer to "which malloc" (dlsym of
// malloc in the global scope, which is what every engine's call binds to)
// lies in a library; /proc/self/maps maps that very file at that address;
// and the library's own version call, looked up in that library, answers.
func findAllocator() (Allocator, error) {
	addr := uint64(C.malloc_address())
	lib := C.malloc_library()
	if addr == 0 || lib == nil {
		return Allocator{}, fmt.Errorf("the dynamic linker does not say which library defines malloc")
	}
	a := Allocator{Library: C.GoString(lib)}
	a.Name = allocatorName(a.Library)
	mapped, ok, err := mappedFile("/proc/self/maps", addr)
	switch {
	case err != nil:
		return Allocator{}, fmt.Errorf("read the memory map: %w", err)
	case !ok || !sameFile(mapped, a.Library):
		return Allocator{}, fmt.Errorf("malloc at %#x is said to be in %s, but /proc/self/maps maps %q there", addr, a.Library, mapped)
	}
	a.Library = mapped
	if !slices.Contains(job.Allocators(), a.Name) {
		return a, nil // no version call known; checkAllocator refuses it if another was asked for
	}
	path, name := C.CString(a.Library), C.CString(string(a.Name))
	defer C.free(unsafe.Pointer(path))
	defer C.free(unsafe.Pointer(name))
	var buf [256]C.char
	if n := C.allocator_version(path, name, &buf[0], C.size_t(len(buf))); n < 0 {
		return Allocator{}, fmt.Errorf("%s (%s) does not answer its version call (code %d): it is not the %s it looks like", a.Library, a.Name, int(n), a.Name)
	}
	a.Version = C.GoString(&buf[0])
	return a, nil
}
