package settings

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/job"
)

func TestParseList(t *testing.T) {
	got, err := ParseList("default, mmap-threshold")
	if err != nil || len(got) != 2 || got[1].Env[0] != "MALLOC_MMAP_THRESHOLD_=131072" {
		t.Fatalf("got %+v, %v", got, err)
	}
	for _, bad := range []string{"", "fast", "default,default", "thp-off+jemalloc,jemalloc+thp-off"} {
		if _, err := ParseList(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	_, err = ParseList("fast")
	if !strings.Contains(err.Error(), "thp-off") || !strings.Contains(err.Error(), "jemalloc") {
		t.Errorf("error %q does not list the known settings", err)
	}
}

// families for TestApplies: a cgo one and a pure-Go one, each with a
// variant lean has no option for.
var (
	cgoFam  = engine.Family{Variants: []string{"c", "c_nolean"}, Cgo: true, NoLean: map[string]string{"c_nolean": "no option"}}
	pureFam = engine.Family{Variants: []string{"g", "g_nolean"}, NoLean: map[string]string{"g_nolean": "no option"}}
)

func applies(s Setting, f engine.Family, v string) bool { return s.NotApplicable(f, v) == "" }

func TestApplies(t *testing.T) {
	mmap, _ := Lookup("mmap-threshold")
	thp, _ := Lookup("thp-off")
	if applies(mmap, pureFam, "g") || !applies(mmap, cgoFam, "c") || !applies(thp, pureFam, "g") {
		t.Error("glibc settings must apply to cgo engines only, thp-off to all")
	}
	for _, name := range []string{"jemalloc", "mimalloc", "tcmalloc", "thp-off+jemalloc"} {
		s, ok := Lookup(name)
		if !ok || applies(s, pureFam, "g") || !applies(s, cgoFam, "c") || string(s.Malloc()) != strings.TrimPrefix(name, "thp-off+") {
			t.Errorf("%s: %+v: an allocator setting applies to cgo engines only and names its allocator", name, s)
		}
	}
	if d, _ := Lookup("default"); d.Malloc() != job.Glibc {
		t.Errorf("default runs with %q, want glibc", d.Malloc())
	}
}

func TestCombinations(t *testing.T) {
	s, err := Parse("jemalloc+thp-off")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "thp-off+jemalloc" || !s.THPOff || s.Preload == nil || s.Preload.Name != "jemalloc" || !s.CgoOnly {
		t.Errorf("jemalloc+thp-off = %+v: want thp-off+jemalloc with both parts", s)
	}
	s, err = Parse("trim-threshold+mmap-threshold")
	if err != nil || s.Name != "mmap-threshold+trim-threshold" || len(s.Env) != 2 {
		t.Errorf("mmap-threshold+trim-threshold = %+v, %v: want both variables", s, err)
	}
	for bad, why := range map[string]string{
		"default+thp-off":         "changes nothing",
		"thp-off+thp-off":         "twice",
		"jemalloc+mimalloc":       "both replace malloc",
		"mmap-threshold+jemalloc": "which jemalloc ignores",
		"thp-off+fast":            "unknown setting",
	} {
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: err = %v, want %q", bad, err, why)
		}
	}
}

// TestLean: lean applies to every engine with options for many open
// stores, cgo or not, and combines with the other settings; a
// combination applies only where each part does.
func TestLean(t *testing.T) {
	lean, err := Parse("lean")
	if err != nil || !lean.Lean || lean.CgoOnly || len(lean.Env) != 0 || lean.Malloc() != job.Glibc {
		t.Fatalf("lean = %+v, %v: want Lean, no environment, glibc", lean, err)
	}
	if !applies(lean, cgoFam, "c") || !applies(lean, pureFam, "g") {
		t.Error("lean must apply to cgo and pure-Go engines with options")
	}
	if why := lean.NotApplicable(cgoFam, "c_nolean"); !strings.Contains(why, "no option") {
		t.Errorf("lean for c_nolean: %q, want the catalog's reason", why)
	}
	for in, want := range map[string]string{
		"mmap-threshold+lean":   "lean+mmap-threshold",
		"lean+thp-off":          "lean+thp-off",
		"thp-off+lean":          "lean+thp-off",
		"jemalloc+lean":         "lean+jemalloc",
		"lean+thp-off+tcmalloc": "lean+thp-off+tcmalloc",
	} {
		s, err := Parse(in)
		if err != nil || s.Name != want || !s.Lean {
			t.Errorf("%s = %+v, %v: want %s with Lean", in, s, err, want)
		}
	}
	mix, _ := Parse("lean+mmap-threshold")
	if applies(mix, pureFam, "g") || !applies(mix, cgoFam, "c") || applies(mix, cgoFam, "c_nolean") {
		t.Error("lean+mmap-threshold must apply only where both parts do")
	}
	thpLean, _ := Parse("thp-off+lean")
	if applies(thpLean, cgoFam, "c_nolean") || !applies(thpLean, pureFam, "g") {
		t.Error("lean+thp-off: n/a where lean has no option (it would be thp-off alone), else applies")
	}
	for bad, why := range map[string]string{
		"lean+lean":    "twice",
		"default+lean": "changes nothing",
		"lean+leaner":  "unknown setting",
		"Lean":         "unknown setting",
	} {
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: err = %v, want %q", bad, err, why)
		}
	}
	if _, err := ParseList("default,lean,lean+thp-off"); err != nil {
		t.Errorf("default,lean,lean+thp-off: %v", err)
	}
	if _, err := ParseList("lean,lean"); err == nil {
		t.Error("lean,lean: no error")
	}
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	jem, _ := Lookup("thp-off+jemalloc")
	_, err := jem.Resolve([]string{dir})
	if !errors.Is(err, ErrLibraryMissing) || !strings.Contains(err.Error(), "apt-get install libjemalloc2") {
		t.Errorf("missing library: err = %v, want ErrLibraryMissing saying how to install it", err)
	}
	// The library found through a symbolic link, as Debian installs
	// mimalloc and tcmalloc: LD_PRELOAD names the file itself.
	real := filepath.Join(dir, "libjemalloc.so.2.real")
	if err := os.WriteFile(real, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "libjemalloc.so.2")); err != nil {
		t.Fatal(err)
	}
	got, err := jem.Resolve([]string{filepath.Join(dir, "none"), dir})
	if err != nil {
		t.Fatal(err)
	}
	if got.Library != real || !slices.Contains(got.Env, "LD_PRELOAD="+real) || !got.THPOff {
		t.Errorf("resolved = %+v: want LD_PRELOAD=%s", got, real)
	}
	if len(jem.Env) != 0 {
		t.Errorf("Resolve changed the setting it was called on: %+v", jem)
	}
	def, _ := Lookup("default")
	if got, err := def.Resolve(nil); err != nil || len(got.Env) != 0 {
		t.Errorf("default resolved to %+v, %v: want it unchanged", got, err)
	}
}

// TestApply: a setting reaches a job whole, its malloc only for a cgo
// worker.
func TestApply(t *testing.T) {
	s, err := Parse("lean+mmap-threshold")
	if err != nil {
		t.Fatal(err)
	}
	var j job.Job
	s.Apply(&j, true)
	if !j.Lean || j.THPOff || j.WAL || j.Allocator != job.Glibc || !slices.Equal(j.Env, []string{"MALLOC_MMAP_THRESHOLD_=131072"}) {
		t.Errorf("lean+mmap-threshold, cgo: %+v", j)
	}
	var g job.Job
	s.Apply(&g, false)
	if g.Allocator != "" || !g.Lean {
		t.Errorf("lean+mmap-threshold, pure Go: %+v", g)
	}
	j.Env[0] = "changed"
	if s.Env[0] != "MALLOC_MMAP_THRESHOLD_=131072" {
		t.Error("the job shares the setting's environment")
	}
}
