package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"manydb/internal/engine"
)

// TestEnginesAgreeWithCatalog asks every worker built by TestMain which
// variants it serves: each catalog variant is served by its family's
// worker and its adapter answers its id (built) or says how to enable it
// (disabled: ObjectBox, Turso or libSQL without their library; postgres
// and sqld without the server installed beside the worker, as in this
// test's directory).
func TestEnginesAgreeWithCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("asks every worker for its variants")
	}
	needWorkers(t)
	o, out, _ := options(t)
	if err := Run(context.Background(), []string{"engines"}, o); err != nil {
		t.Fatalf("manydb engines: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1+len(engine.AllVariants()) {
		t.Fatalf("manydb engines printed %d lines, want a header and one per variant:\n%s", len(lines), out)
	}
	for i, v := range engine.AllVariants() {
		f := strings.Fields(lines[i+1])
		fam, _ := engine.Lookup(v)
		if f[0] != v || f[1] != fam.Binary {
			t.Errorf("line %q: want variant %s of %s", lines[i+1], v, fam.Binary)
		}
		if state := f[3]; state != "built" && !(state == "disabled" && (fam.Binary == "worker-objectbox" || fam.Binary == "worker-turso" || fam.Binary == "worker-libsql" || fam.Binary == "worker-postgres" || fam.Binary == "worker-sqld")) {
			t.Errorf("%s: %q", v, lines[i+1])
		}
	}

	out.Reset()
	if err := Run(context.Background(), []string{"engines", "--ids"}, o); err != nil {
		t.Fatal(err)
	}
	for _, id := range strings.Fields(out.String()) {
		if _, ok := engine.Lookup(id); !ok {
			t.Errorf("engines --ids printed %q, not a catalog variant", id)
		}
	}
	if !strings.Contains(out.String(), "sqlite\n") {
		t.Errorf("engines --ids does not list sqlite:\n%s", out)
	}
}

// TestEnginesRefusesBadCatalog gives manydb engines a catalog that
// disagrees with the workers: a variant no adapter serves, and a family
// missing a variant its worker serves.
func TestEnginesRefusesBadCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("asks every worker for its variants")
	}
	needWorkers(t)
	o, out, _ := options(t)
	for _, f := range engine.Catalog() {
		switch f.Binary {
		case "worker-sqlite":
			f.Variants = append(slices.Clone(f.Variants), "sqlite_extra")
		case "worker-gokv":
			f.Variants = f.Variants[:len(f.Variants)-1]
		}
		o.Catalog = append(o.Catalog, f)
	}
	err := Run(context.Background(), []string{"engines"}, o)
	if !errors.Is(err, engine.ErrCatalogMismatch) {
		t.Fatalf("engines with a bad catalog: err = %v, want ErrCatalogMismatch\n%s", err, out)
	}
	for _, want := range []string{`"sqlite_extra", which it does not serve`, `worker-gokv serves "badger", which the catalog does not give it`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %s:\n%v", want, err)
		}
	}
	if ExitCode(err) != 1 {
		t.Errorf("exit code %d, want 1", ExitCode(err))
	}
}

// TestMakefileBuildsEveryWorker checks that the Makefile builds one binary
// per catalog family and no other, that cmd/ has a worker per family, and
// that the Makefile names no variant list of its own.
func TestMakefileBuildsEveryWorker(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	var families []string
	for _, f := range engine.Catalog() {
		families = append(families, f.Binary)
	}
	slices.Sort(families)
	var built []string
	for _, m := range regexp.MustCompile(`-o \$\(BIN\)/(worker-[\w-]+) \./cmd/(worker-[\w-]+)`).FindAllStringSubmatch(string(mk), -1) {
		if m[1] != m[2] {
			t.Errorf("Makefile builds ./cmd/%s into %s", m[2], m[1])
		}
		built = append(built, m[1])
	}
	slices.Sort(built)
	if !slices.Equal(built, families) {
		t.Errorf("Makefile builds %v, the catalog's families are %v", built, families)
	}
	dirs, err := filepath.Glob("../../cmd/worker-*")
	if err != nil {
		t.Fatal(err)
	}
	for i := range dirs {
		dirs[i] = filepath.Base(dirs[i])
	}
	if !slices.Equal(dirs, families) {
		t.Errorf("cmd/ has %v, the catalog's families are %v", dirs, families)
	}
	for _, line := range strings.Split(string(mk), "\n") {
		n := 0
		for _, w := range regexp.MustCompile(`[\w]+`).FindAllString(line, -1) {
			if _, ok := engine.Lookup(w); ok {
				n++
			}
		}
		if n >= 3 {
			t.Errorf("Makefile line lists variant ids (ask 'manydb engines --ids' instead): %s", line)
		}
	}
}
