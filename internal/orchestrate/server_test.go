package orchestrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/pgserver"
	"manydb/internal/results"
	"manydb/internal/settings"
	"manydb/internal/sqldserver"
)

// TestOwnServerWithoutVectors: with embeddings, manydb's own server whose
// pgvector cannot run on this CPU (scripts/fetch-postgres.sh's probe,
// pgserver.NoVectors) makes the server's variants n/a with the probe's
// reason, and no other; a probe that found pgvector working, none.
func TestOwnServerWithoutVectors(t *testing.T) {
	for probe, want := range map[string]string{"the CPU lacks AVX-512\n": "the CPU lacks AVX-512", "ok\n": ""} {
		c := fakeConfig(t, "fake", "fake_slow")
		c.Catalog = []engine.Family{{Binary: "worker-fake", Variants: []string{"fake"}, Cgo: true},
			{Binary: "worker-fake", Variants: []string{"fake_slow"}, Cgo: true, Server: "postgres"}}
		c.Workload.Dims = 16
		// The server's user enters the root's folders (t.TempDir's are
		// 0700), as pgserver.CheckReach asks when the test runs as root.
		for _, d := range []string{filepath.Dir(c.Root), filepath.Dir(filepath.Dir(c.Root))} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		repo := filepath.Dir(c.BinDir)
		if err := os.MkdirAll(filepath.Join(repo, pgserver.InstallDir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, pgserver.InstallDir, "postgres"), nil, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, pgserver.VectorsFile), []byte(probe), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := c.checkServer(); err != nil {
			t.Fatal(err)
		}
		def, _ := settings.Lookup("default")
		for v, want := range map[string]string{"fake": "", "fake_slow": want} {
			if got := c.notApplicable(where{set: def, layout: job.LayoutPerAgent, v: v}); got != want {
				t.Errorf("probe %q: %s n/a %q, want %q", probe, v, got, want)
			}
		}
	}
}

// TestSqldNotInstalled: a study with a variant kept in sqld, where sqld is
// not installed, records that variant's phases failed with the reason and
// runs the other variant; PostgreSQL's reasons never apply to it.
func TestSqldNotInstalled(t *testing.T) {
	c := fakeConfig(t, "fake", "fake_slow")
	c.Catalog = []engine.Family{{Binary: "worker-fake", Variants: []string{"fake"}, Cgo: true},
		{Binary: "worker-fake", Variants: []string{"fake_slow"}, Cgo: true, Server: serverSqld}}
	_, err := Run(context.Background(), c)
	var failedPhases *Failed
	if !errors.As(err, &failedPhases) {
		t.Fatalf("Run: %v, want its phases failed", err)
	}
	recs, err := results.ReadFile(c.Out)
	if err != nil {
		t.Fatal(err)
	}
	ok, failed := 0, 0
	for _, r := range recs {
		switch {
		case r.Variant == "fake" && r.Status == results.StatusOK:
			ok++
		case r.Variant == "fake_slow" && r.Status == results.StatusFailed && strings.Contains(r.Error, sqldserver.ErrNotInstalled.Error()):
			failed++
		case r.Variant == "fake_slow":
			t.Errorf("fake_slow %s: %s %q, want failed, not installed", r.Phase, r.Status, r.Error)
		}
	}
	if ok == 0 || failed == 0 {
		t.Errorf("%d ok records of fake, %d failed of fake_slow: want both", ok, failed)
	}
	c.Workload.Dims, c.serverNoVectors = 16, "no pgvector there"
	def, _ := settings.Lookup("default")
	if got := c.notApplicable(where{set: def, layout: job.LayoutPerAgent, v: "fake_slow"}); got != "" {
		t.Errorf("a sqld variant is n/a for PostgreSQL's reason: %q", got)
	}
}

// TestSqldPoolFitsTheFileLimit: with no --sqld-max-active, a study of
// more namespaces than the open-file limit holds loaded gets the largest
// pool that fits, said in the log; a --sqld-max-active given that does
// not fit is refused.
func TestSqldPoolFitsTheFileLimit(t *testing.T) {
	limit, err := sqldserver.FileLimit()
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	c := &Config{Variants: []string{"sqld"}, Stores: int(min(limit, 1<<30)), Layouts: job.DefaultLayouts(), Log: &log}
	if err := c.checkSqldFiles(); err != nil {
		t.Fatal(err)
	}
	if c.SqldMaxActive != sqldserver.MaxPool(limit, 0) || !strings.Contains(log.String(), fmt.Sprintf("the server keeps at most %d loaded", c.SqldMaxActive)) {
		t.Errorf("--sqld-max-active %d, log %q; want %d and a line saying so", c.SqldMaxActive, log.String(), sqldserver.MaxPool(limit, 0))
	}
	c.SqldMaxActive = c.Stores
	var inputErr *job.InputError
	if err := c.checkSqldFiles(); !errors.As(err, &inputErr) || !strings.Contains(err.Error(), "give --sqld-max-active") {
		t.Errorf("a pool of every namespace given: %v, want an input error naming the pool that fits", err)
	}
}
