// Package settings defines the process-wide conditions a study can run its
// workers under, applied identically to every variant they apply to. A
// setting is a table dimension: each setting gets its own stores, phases
// and table.
//
//	default         nothing changed: the process as a Go program sees it
//	lean            each engine's own documented options for many open
//	                stores (a small page cache, no lookaside, …), which
//	                every record names (engine_options)
//	mmap-threshold  glibc's mmap threshold fixed at 131072 bytes, as the
//	                reference's mallopt(M_MMAP_THRESHOLD, 131072)
//	trim-threshold  glibc's trim threshold at 64 MiB: freed memory is not
//	                handed back to the OS after every close
//	thp-off         transparent huge pages off for the worker
//	                (prctl(PR_SET_THP_DISABLE))
//	wal             SQLite's journal in WAL mode for every store
//	                (PRAGMA journal_mode=WAL at every open): the mode of
//	                the shared layout's store, so that a store per agent
//	                can be compared with it commit for commit
//	jemalloc        jemalloc instead of glibc's malloc (LD_PRELOAD of
//	mimalloc        Debian's libjemalloc2, libmimalloc2.0,
//	tcmalloc        libtcmalloc-minimal4)
//
// A setting reaches a worker through its job alone (Apply): the job
// carries the setting's environment, which the orchestrator starts the
// worker with and the worker checks, and its other conditions as fields.
// The glibc settings are environment variables set when the worker is
// started (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_): glibc reads them
// when it initialises malloc, before any allocation, which is exactly what
// mallopt at the top of main does, and they need no code in the worker.
// Like mallopt, setting the mmap threshold also turns off glibc's dynamic
// threshold. The allocator settings put the allocator's library in the
// worker's LD_PRELOAD (Resolve finds it), so that the dynamic linker binds
// every malloc and free of the process, the engines' included, to it; the
// worker proves that it did before it measures (internal/worker). All of
// these apply only to engines that allocate with the C library's malloc
// (cgo); a pure-Go engine is marked not applicable rather than measured
// again under an identical process. thp-off is a prctl the worker makes
// before it creates the engine; it applies to every engine.
//
// lean is not a process condition but the engines' own options: the
// worker makes the variant with its factory's Lean (internal/engine), and
// every record names the options it set. It applies to every variant
// whose engine has such options, cgo or not; the catalog says why it does
// not apply to the others (engine.Family.NoLean), whose cells are then
// n/a rather than the default measured again. It combines with every
// other setting (lean+mmap-threshold, thp-off+lean … in any order).
//
// Settings combine with "+" (thp-off+jemalloc, mmap-threshold+trim-threshold)
// where the result is a real condition: see Parse for the combinations
// refused and why. A combination with a malloc part is cgo-only: for a
// pure-Go engine it would be its other part alone (thp-off), which that
// setting measures under its own name.
package settings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"manydb/internal/engine"
	"manydb/internal/job"
)

// Setting is one process-wide condition.
type Setting struct {
	Name string
	// Env is added to the worker's environment.
	Env []string
	// CgoOnly tells that it changes the C library's malloc only.
	CgoOnly bool
	// THPOff asks the worker to disable transparent huge pages.
	THPOff bool
	// Lean asks the worker to make the variant with its engine's options
	// for many open stores (engine.Factory's Lean).
	Lean bool
	// WAL asks the worker to open every store in SQLite's WAL journal
	// mode (engine.WALVariant).
	WAL bool
	// Preload is the allocator the worker runs with instead of glibc's
	// malloc; nil for glibc's.
	Preload *Allocator
	// Library is the path of Preload's library once Resolve found it.
	Library string
	// Describe says what it does, for tables and help.
	Describe string
}

// Allocator is a malloc implementation that a setting preloads in place of
// glibc's.
type Allocator struct {
	// Name is how the worker names the allocator it finds in its process
	// (internal/worker): jemalloc, mimalloc or tcmalloc.
	Name job.Allocator
	// Library is the file name of its shared library, as the Debian
	// package installs it in the multiarch library directory.
	Library string
	// Package is the Debian package that installs Library.
	Package string
}

// The allocators a setting can preload.
var (
	jemalloc = Allocator{Name: job.Jemalloc, Library: "libjemalloc.so.2", Package: "libjemalloc2"}
	mimalloc = Allocator{Name: job.Mimalloc, Library: "libmimalloc.so.2", Package: "libmimalloc2.0"}
	tcmalloc = Allocator{Name: job.Tcmalloc, Library: "libtcmalloc_minimal.so.4", Package: "libtcmalloc-minimal4"}
)

// All returns every setting in table order (combinations left out).
func All() []Setting {
	return []Setting{
		{Name: "default", Describe: "nothing changed"},
		{Name: "lean", Lean: true,
			Describe: "each engine's own documented options for many open stores (a small page cache, lookaside off, small memtables, …; docs/engines.md), named in every record's engine_options"},
		{Name: "mmap-threshold", Env: []string{"MALLOC_MMAP_THRESHOLD_=131072"}, CgoOnly: true,
			Describe: "glibc mmap threshold fixed at 131072 bytes (MALLOC_MMAP_THRESHOLD_, as mallopt(M_MMAP_THRESHOLD, 131072))"},
		{Name: "trim-threshold", Env: []string{"MALLOC_TRIM_THRESHOLD_=67108864"}, CgoOnly: true,
			Describe: "glibc trim threshold 64 MiB (MALLOC_TRIM_THRESHOLD_): freed memory stays in the process"},
		{Name: "thp-off", THPOff: true,
			Describe: "transparent huge pages off in the worker (prctl(PR_SET_THP_DISABLE))"},
		{Name: "wal", WAL: true,
			Describe: "SQLite's journal in WAL mode (PRAGMA journal_mode=WAL at every open), the shared layout's mode: a commit syncs the WAL only; named in every record's engine_options"},
		preload(jemalloc, "5.3 in Debian 12: per-thread caches, arenas, unused pages given back after a decay time"),
		preload(mimalloc, "2.0 in Debian 12: per-thread heaps in segments, free lists per page"),
		preload(tcmalloc, "gperftools' tcmalloc_minimal, 2.10 in Debian 12: per-thread caches over a central page heap"),
	}
}

func preload(a Allocator, what string) Setting {
	return Setting{Name: string(a.Name), CgoOnly: true, Preload: &a,
		Describe: fmt.Sprintf("%s instead of glibc's malloc (LD_PRELOAD of %s from Debian's %s; %s)", a.Name, a.Library, a.Package, what)}
}

// Lookup returns the named setting or combination.
func Lookup(name string) (Setting, bool) {
	s, err := Parse(name)
	return s, err == nil
}

// Parse returns the named setting, or the combination of settings joined
// by "+". A combination takes every part's environment and THP choice; its
// name lists the parts in table order, whatever order they were given in.
// Refused: default in a combination (it changes nothing), a part twice,
// two allocators (only one can replace malloc), and an allocator with a
// glibc malloc variable (the allocator ignores it: the combination would
// be the allocator alone under another name).
func Parse(name string) (Setting, error) {
	parts := strings.Split(name, "+")
	if len(parts) == 1 {
		for _, s := range All() {
			if s.Name == name {
				return s, nil
			}
		}
		return Setting{}, fmt.Errorf("unknown setting %q: use %s", name, strings.Join(names(), ", "))
	}
	seen := map[string]bool{}
	for _, p := range parts {
		_, err := Parse(p)
		switch {
		case err != nil:
			return Setting{}, fmt.Errorf("%s: %w", name, err)
		case p == "default":
			return Setting{}, fmt.Errorf("%s: default changes nothing; leave it out of a combination", name)
		case seen[p]:
			return Setting{}, fmt.Errorf("%s: %s is named twice", name, p)
		}
		seen[p] = true
	}
	var c Setting
	var names, describe []string
	glibcVar := ""
	for _, s := range All() {
		if !seen[s.Name] {
			continue
		}
		names = append(names, s.Name)
		describe = append(describe, s.Describe)
		c.Env = append(c.Env, s.Env...)
		c.CgoOnly = c.CgoOnly || s.CgoOnly
		c.THPOff = c.THPOff || s.THPOff
		c.Lean = c.Lean || s.Lean
		c.WAL = c.WAL || s.WAL
		if len(s.Env) > 0 {
			glibcVar = s.Name
		}
		if s.Preload != nil {
			if c.Preload != nil {
				return Setting{}, fmt.Errorf("%s: %s and %s would both replace malloc; combine at most one allocator", name, c.Preload.Name, s.Name)
			}
			c.Preload = s.Preload
		}
	}
	if c.Preload != nil && glibcVar != "" {
		return Setting{}, fmt.Errorf("%s: %s sets a glibc malloc variable, which %s ignores (the combination would measure %s alone): combine %s only with %s",
			name, glibcVar, c.Preload.Name, c.Preload.Name, c.Preload.Name, strings.Join(preloadPartners(), " or "))
	}
	c.Name = strings.Join(names, "+")
	c.Describe = strings.Join(describe, "; and ")
	return c, nil
}

// preloadPartners are the settings an allocator setting combines with:
// those that set no glibc malloc variable and preload no allocator.
func preloadPartners() []string {
	var out []string
	for _, s := range All() {
		if s.Name != "default" && len(s.Env) == 0 && s.Preload == nil {
			out = append(out, s.Name)
		}
	}
	return out
}

// Names lists the settings' names in table order.
func Names() []string {
	var out []string
	for _, s := range All() {
		out = append(out, s.Name)
	}
	return out
}

// names lists the settings' names, sorted.
func names() []string {
	out := Names()
	sort.Strings(out)
	return out
}

// ParseList parses a comma-separated list of setting names (each a
// setting or a combination, see Parse).
func ParseList(list string) ([]Setting, error) {
	var out []Setting
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		s, err := Parse(name)
		if err != nil {
			return nil, err
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("setting %q is listed twice", s.Name)
		}
		seen[s.Name] = true
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no setting given: use default")
	}
	return out, nil
}

// NotApplicable says why s does not apply to variant v of family f (its
// cells are then n/a): a malloc setting and an engine that does not
// allocate with the C library's malloc, or lean and an engine without
// options for many open stores (f.NoLean). A combination applies only
// where each of its parts does. "" when s applies.
func (s Setting) NotApplicable(f engine.Family, v string) string {
	if why := f.NoLean[v]; s.Lean && why != "" {
		return fmt.Sprintf("lean sets no option for %s: %s", v, why)
	}
	if why := f.NoWAL[v]; s.WAL && why != "" {
		return fmt.Sprintf("wal has no journal mode to set for %s: %s", v, why)
	}
	if s.CgoOnly && !f.Cgo && s.Lean {
		return fmt.Sprintf("%s combines lean with a change to the C library's malloc, which %s does not allocate with, and a combination applies only where each part does (lean alone applies to it)", s.Name, v)
	}
	if s.CgoOnly && !f.Cgo {
		return fmt.Sprintf("%s changes the C library's malloc only; %s does not allocate with it", s.Name, v)
	}
	return ""
}

// Malloc names the allocator a worker under s must run with: Glibc, or
// the preloaded allocator's name.
func (s Setting) Malloc() job.Allocator {
	if s.Preload != nil {
		return s.Preload.Name
	}
	return job.Glibc
}

// Apply puts s in j, the one way a setting reaches a worker: its
// environment (Env: j.Environ starts the worker with it, the worker
// checks it), THPOff, Lean, WAL and, for a worker of a cgo engine, the
// malloc it must prove it runs with.
func (s Setting) Apply(j *job.Job, cgo bool) {
	j.Env = slices.Clone(s.Env)
	j.THPOff, j.Lean, j.WAL = s.THPOff, s.Lean, s.WAL
	if cgo {
		j.Allocator = s.Malloc()
	}
}

// ErrLibraryMissing is returned by Resolve when the allocator's library is
// not installed.
var ErrLibraryMissing = errors.New("allocator library not installed")

// LibDirs returns the directories Resolve searches, in order: the
// multiarch directories of Debian and Ubuntu first.
func LibDirs() []string {
	triplet := map[string]string{"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu",
		"386": "i386-linux-gnu", "arm": "arm-linux-gnueabihf", "riscv64": "riscv64-linux-gnu",
		"ppc64le": "powerpc64le-linux-gnu", "s390x": "s390x-linux-gnu"}[runtime.GOARCH]
	var dirs []string
	if triplet != "" {
		dirs = append(dirs, "/usr/lib/"+triplet, "/lib/"+triplet)
	}
	return append(dirs, "/usr/lib64", "/usr/lib", "/usr/local/lib")
}

// Resolve returns s ready to run: for an allocator setting, with the path
// of its library (the first of dirs that has it, symbolic links resolved)
// in Library and LD_PRELOAD=path in Env. A setting without an allocator is
// returned as it is. When the library is not in dirs, the error (which
// wraps ErrLibraryMissing) says how to install it.
func (s Setting) Resolve(dirs []string) (Setting, error) {
	if s.Preload == nil {
		return s, nil
	}
	for _, d := range dirs {
		p := filepath.Join(d, s.Preload.Library)
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		s.Library = p
		s.Env = append(append([]string(nil), s.Env...), "LD_PRELOAD="+p)
		return s, nil
	}
	return Setting{}, fmt.Errorf("%w: %s needs %s, which is not in %s: install it with 'apt-get install %s' (make build does, as root)",
		ErrLibraryMissing, s.Name, s.Preload.Library, strings.Join(dirs, ", "), s.Preload.Package)
}
