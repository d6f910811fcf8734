package orchestrate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/settings"
)

// libDirWith returns a directory holding the library of allocator setting
// name as a symbolic link to target.
func libDirWith(t *testing.T, name, target string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(target, filepath.Join(dir, mustSetting(t, name).Preload.Library)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cLibrary returns the path of the C library this test binary runs with
// (the fake worker is this binary), as the worker records it.
func cLibrary(t *testing.T, c Config) string {
	t.Helper()
	c.Variants, c.Stores, c.Runs, c.Hold = []string{"fake"}, 1, 1, 1
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, _ := results.ReadFile(c.Out)
	for _, r := range recs {
		if r.Phase == job.PhaseCreate && r.Status == results.StatusOK {
			if lib := r.Versions["allocator_library"]; lib != "" && strings.HasPrefix(r.Versions["allocator"], "glibc ") {
				return lib
			}
		}
	}
	t.Skip("the fake worker records no glibc allocator: this test binary is built without cgo")
	return ""
}

// A setting whose library is in LD_PRELOAD but is not the allocator (here
// glibc itself, installed under jemalloc's name) fails every phase of the
// cgo engines: nothing is measured under the wrong name. The pure-Go
// engine is n/a.
func TestPreloadThatDoesNotTakeFails(t *testing.T) {
	c := fakeConfig(t, "fake", "fake_slow")
	c.Stores, c.Runs, c.Hold = 3, 1, 1
	c.Catalog = []engine.Family{
		{Binary: "worker-fake", Variants: []string{"fake"}, Cgo: true},
		{Binary: "worker-fake", Variants: []string{"fake_slow"}, Cgo: false},
	}
	probe := c
	probe.Out = filepath.Join(t.TempDir(), "probe.jsonl")
	probe.Root = filepath.Join(t.TempDir(), "root")
	libc := cLibrary(t, probe)

	c.Settings = []settings.Setting{mustSetting(t, "jemalloc")}
	c.LibDirs = []string{libDirWith(t, "jemalloc", libc)}
	_, err := Run(context.Background(), c)
	var failed *Failed
	if !errors.As(err, &failed) {
		t.Fatalf("err = %v, want the study to report failed phases", err)
	}
	recs, _ := results.ReadFile(c.Out)
	for _, r := range recs {
		switch {
		case r.Phase == job.PhaseEnv || r.Phase == job.PhaseEnd:
		case r.Variant == "fake_slow":
			if r.Status != results.StatusNotApplicable {
				t.Errorf("pure-Go engine under jemalloc: %s %s, want n/a", r.Phase, r.Status)
			}
		case r.Status != results.StatusFailed || !strings.Contains(r.Error, "asks for jemalloc, but malloc in this process is glibc's"):
			t.Errorf("%s %s under a preload of glibc named jemalloc: status %s, error %q; want failed", r.Variant, r.Phase, r.Status, r.Error)
		}
	}
}

// A setting whose library is not installed is skipped with one line that
// says how to install it; with no setting left the study is bad input and
// creates nothing.
func TestMissingAllocatorIsSkipped(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Stores, c.Runs, c.Hold = 2, 1, 1
	var log strings.Builder
	c.Log = &log
	c.LibDirs = []string{t.TempDir()}
	c.Settings = []settings.Setting{mustSetting(t, "default"), mustSetting(t, "thp-off+tcmalloc")}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "skipping the setting thp-off+tcmalloc") || !strings.Contains(log.String(), "apt-get install libtcmalloc-minimal4") {
		t.Errorf("log = %q: want one line saying tcmalloc is skipped and how to install it", log.String())
	}
	recs, _ := results.ReadFile(c.Out)
	for _, r := range recs {
		if r.Setting != "" && r.Setting != "default" {
			t.Errorf("a record for the skipped setting: %+v", r)
		}
	}

	c = fakeConfig(t, "fake")
	c.LibDirs = []string{t.TempDir()}
	c.Settings = []settings.Setting{mustSetting(t, "mimalloc")}
	_, err := Run(context.Background(), c)
	var input *job.InputError
	if !errors.As(err, &input) || !strings.Contains(err.Error(), "no setting left") {
		t.Errorf("err = %v, want bad input", err)
	}
	if _, err := os.Stat(c.Root); !os.IsNotExist(err) {
		t.Errorf("the data root was created for a study with nothing to run (%v)", err)
	}
}

// Under an installed allocator, every record of a cgo engine names it,
// with its version and library.
func TestPreloadedAllocatorIsRecorded(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Stores, c.Runs, c.Hold = 2, 1, 1
	set, err := mustSetting(t, "jemalloc").Resolve(settings.LibDirs())
	if err != nil {
		t.Skipf("%v (scripts/ensure-allocators.sh installs it)", err)
	}
	c.Settings = []settings.Setting{mustSetting(t, "thp-off+jemalloc")}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	recs, _ := results.ReadFile(c.Out)
	n := 0
	for _, r := range recs {
		if r.Phase == job.PhaseEnv || r.Phase == job.PhaseEnd {
			continue
		}
		n++
		if r.Setting != "thp-off+jemalloc" || !strings.HasPrefix(r.Versions["allocator"], "jemalloc 5.") || r.Versions["allocator_library"] != set.Library {
			t.Errorf("%s %s: setting %s, versions %v: want jemalloc from %s", r.Variant, r.Phase, r.Setting, r.Versions, set.Library)
		}
	}
	if n != 4 {
		t.Errorf("%d phase records, want 4 (create, open, hold, space)", n)
	}
}
