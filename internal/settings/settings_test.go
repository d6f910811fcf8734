package settings

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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

func TestApplies(t *testing.T) {
	mmap, _ := Lookup("mmap-threshold")
	thp, _ := Lookup("thp-off")
	if mmap.Applies(false) || !mmap.Applies(true) || !thp.Applies(false) {
		t.Error("glibc settings must apply to cgo engines only, thp-off to all")
	}
	for _, name := range []string{"jemalloc", "mimalloc", "tcmalloc", "thp-off+jemalloc"} {
		s, ok := Lookup(name)
		if !ok || s.Applies(false) || !s.Applies(true) || string(s.Malloc()) != strings.TrimPrefix(name, "thp-off+") {
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
