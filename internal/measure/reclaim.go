package measure

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DAMONAdmin is where the kernel's DAMON sysfs interface lives.
const DAMONAdmin = "/sys/kernel/mm/damon/admin"

// Pageout is a DAMON scheme that is running and pages out memory nobody
// has accessed for a while: proactive reclaim, which drops clean page
// cache without memory pressure (a warm store's pages go after MinAgeS
// seconds untouched).
type Pageout struct {
	Kdamond    string  // the kdamond's directory name ("0")
	Operations string  // what it watches: "paddr" (all physical memory), "vaddr" (processes)
	MinAgeS    float64 // seconds a region must stay (nearly) unaccessed
	QuotaBytes int64   // the most it pages out per QuotaS seconds (0: no quota)
	QuotaS     float64
	Filters    []string // the scheme's filters, "anon excluded", "unmapped only"
}

// String says what the scheme does in one line.
func (p Pageout) String() string {
	s := fmt.Sprintf("DAMON kdamond %s pages out %s memory untouched for %.0f s", p.Kdamond, p.Operations, p.MinAgeS)
	if p.QuotaBytes > 0 {
		s += fmt.Sprintf(", up to %d MiB per %.0f s", p.QuotaBytes>>20, p.QuotaS)
	}
	if len(p.Filters) > 0 {
		s += " (" + strings.Join(p.Filters, ", ") + ")"
	}
	return s
}

// PageoutSchemes lists the running DAMON pageout schemes under admin (the
// sysfs directory DAMONAdmin, or a copy of it in a test); none when the
// kernel has no DAMON.
func PageoutSchemes(admin string) ([]Pageout, error) {
	kdamonds, err := filepath.Glob(filepath.Join(admin, "kdamonds", "[0-9]*"))
	if err != nil {
		return nil, err
	}
	var out []Pageout
	for _, k := range kdamonds {
		if state, _ := readWord(filepath.Join(k, "state")); state != "on" {
			continue
		}
		contexts, _ := filepath.Glob(filepath.Join(k, "contexts", "[0-9]*"))
		for _, c := range contexts {
			ps, err := contextPageouts(filepath.Base(k), c)
			if err != nil {
				return nil, err
			}
			out = append(out, ps...)
		}
	}
	return out, nil
}

// contextPageouts reads the pageout schemes of one running DAMON context.
func contextPageouts(kdamond, ctx string) ([]Pageout, error) {
	ops, _ := readWord(filepath.Join(ctx, "operations"))
	aggrUs, err := readInt(filepath.Join(ctx, "monitoring_attrs", "intervals", "aggr_us"))
	if err != nil {
		return nil, err
	}
	schemes, _ := filepath.Glob(filepath.Join(ctx, "schemes", "[0-9]*"))
	var out []Pageout
	for _, s := range schemes {
		if action, _ := readWord(filepath.Join(s, "action")); action != "pageout" {
			continue
		}
		age, err := readInt(filepath.Join(s, "access_pattern", "age", "min"))
		if err != nil {
			return nil, err
		}
		quota, _ := readInt(filepath.Join(s, "quotas", "bytes"))
		resetMs, _ := readInt(filepath.Join(s, "quotas", "reset_interval_ms"))
		out = append(out, Pageout{Kdamond: kdamond, Operations: ops, MinAgeS: float64(age*aggrUs) / 1e6,
			QuotaBytes: quota, QuotaS: float64(resetMs) / 1000, Filters: schemeFilters(s)})
	}
	return out, nil
}

// schemeFilters describes a scheme's filters of memory types ("anon
// excluded", "unmapped only"), the ones that decide whether page cache is
// paged out.
func schemeFilters(scheme string) []string {
	var out []string
	for _, set := range []string{"ops_filters", "filters", "core_filters"} {
		dirs, _ := filepath.Glob(filepath.Join(scheme, set, "[0-9]*"))
		for _, d := range dirs {
			typ, _ := readWord(filepath.Join(d, "type"))
			matching, _ := readWord(filepath.Join(d, "matching"))
			allow, _ := readWord(filepath.Join(d, "allow"))
			if typ == "" {
				continue
			}
			if matching == "N" {
				typ = "not " + typ
			}
			if allow == "N" {
				out = append(out, typ+" excluded")
			} else {
				out = append(out, typ+" only")
			}
		}
	}
	return out
}

// readWord reads a sysfs file's one word; "" when it does not exist.
func readWord(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// readInt reads a sysfs file's one integer.
func readInt(path string) (int64, error) {
	w, err := readWord(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(w, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is no integer: %w", path, w, err)
	}
	return n, nil
}
