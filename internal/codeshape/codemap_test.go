package codeshape

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// codeMap is the code map a newcomer reads first; it names every package
// under internal/ by its path.
const codeMap = "../../docs/code.md"

// TestCodeMapNamesEveryPackage fails for each package under internal/
// (a directory with a Go file that is not a test) that docs/code.md does
// not name as `internal/…`, and for each `internal/…` path it names that
// is not in the tree (a package or file renamed or removed since).
func TestCodeMapNamesEveryPackage(t *testing.T) {
	text, err := os.ReadFile(codeMap)
	if err != nil {
		t.Fatal(err)
	}
	named := namedPaths(string(text))
	pkgs, err := packageDirs("../../internal")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("found %d packages under internal/, too few: is the walk broken?", len(pkgs))
	}
	for _, p := range pkgs {
		if !slices.Contains(named, p) {
			t.Errorf("docs/code.md does not name the package `%s`", p)
		}
	}
	for _, p := range named {
		if _, err := os.Stat(filepath.Join("../..", p)); err != nil {
			t.Errorf("docs/code.md names `%s`, which is not in the tree", p)
		}
	}
}

// namedPaths lists the `internal/…` paths a Markdown text names in code
// spans, without a trailing slash; a path with a placeholder (`<name>`)
// names no one place and is left out.
func namedPaths(text string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`(internal/[^`]*)`").FindAllStringSubmatch(text, -1) {
		p := strings.TrimSuffix(m[1], "/")
		if !strings.ContainsAny(p, "<>* ") && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// packageDirs lists the directories under root holding a Go file that is
// not a test, as paths from the repository's top ("internal/job"); a
// testdata directory holds no package.
func packageDirs(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel("../..", filepath.Dir(path))
		if err == nil && !slices.Contains(out, rel) {
			out = append(out, rel)
		}
		return err
	})
	return out, err
}
