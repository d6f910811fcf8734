// Package settings defines the process-wide conditions a study can run its
// workers under, applied identically to every variant they apply to. A
// setting is a table dimension: each setting gets its own stores, phases
// and table.
//
//	default         nothing changed: the process as a Go program sees it
//	mmap-threshold  glibc's mmap threshold fixed at 131072 bytes, as the
//	                reference's mallopt(M_MMAP_THRESHOLD, 131072)
//	trim-threshold  glibc's trim threshold at 64 MiB: freed memory is not
//	                handed back to the OS after every close
//	thp-off         transparent huge pages off for the worker
//	                (prctl(PR_SET_THP_DISABLE))
//
// The glibc settings are environment variables set when the worker is
// started (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_): glibc reads them
// when it initialises malloc, before any allocation, which is exactly what
// mallopt at the top of main does, and they need no code in the worker.
// Like mallopt, setting the mmap threshold also turns off glibc's dynamic
// threshold. They apply only to engines that allocate with glibc's malloc
// (cgo); a pure-Go engine is marked not applicable rather than measured
// again under an identical process. thp-off is a prctl the worker makes
// before it creates the engine; it applies to every engine.
package settings

import (
	"fmt"
	"sort"
	"strings"
)

// Setting is one process-wide condition.
type Setting struct {
	Name string
	// Env is added to the worker's environment.
	Env []string
	// CgoOnly tells that it changes glibc's malloc only.
	CgoOnly bool
	// THPOff asks the worker to disable transparent huge pages.
	THPOff bool
	// Describe says what it does, for tables and help.
	Describe string
}

// All returns every setting in table order.
func All() []Setting {
	return []Setting{
		{Name: "default", Describe: "nothing changed"},
		{Name: "mmap-threshold", Env: []string{"MALLOC_MMAP_THRESHOLD_=131072"}, CgoOnly: true,
			Describe: "glibc mmap threshold fixed at 131072 bytes (MALLOC_MMAP_THRESHOLD_, as mallopt(M_MMAP_THRESHOLD, 131072))"},
		{Name: "trim-threshold", Env: []string{"MALLOC_TRIM_THRESHOLD_=67108864"}, CgoOnly: true,
			Describe: "glibc trim threshold 64 MiB (MALLOC_TRIM_THRESHOLD_): freed memory stays in the process"},
		{Name: "thp-off", THPOff: true,
			Describe: "transparent huge pages off in the worker (prctl(PR_SET_THP_DISABLE))"},
	}
}

// Lookup returns the named setting.
func Lookup(name string) (Setting, bool) {
	for _, s := range All() {
		if s.Name == name {
			return s, true
		}
	}
	return Setting{}, false
}

// ParseList parses a comma-separated list of setting names.
func ParseList(list string) ([]Setting, error) {
	var out []Setting
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		s, ok := Lookup(name)
		if !ok {
			var names []string
			for _, s := range All() {
				names = append(names, s.Name)
			}
			sort.Strings(names)
			return nil, fmt.Errorf("unknown setting %q: use %s", name, strings.Join(names, ", "))
		}
		if seen[name] {
			return nil, fmt.Errorf("setting %q is listed twice", name)
		}
		seen[name] = true
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no setting given: use default")
	}
	return out, nil
}

// Applies tells whether s changes anything for an engine; cgo tells
// whether the engine allocates with glibc's malloc.
func (s Setting) Applies(cgo bool) bool { return cgo || !s.CgoOnly }
