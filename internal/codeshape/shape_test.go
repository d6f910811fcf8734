package codeshape

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The most any package under internal may have: the files of its
// largest loop (a set of files each reaching every other through the
// references), and the pairs of files that use each other.
var limit = shape{Loop: 3, Pairs: 3}

// shape is the size of a package's largest loop of files and its count
// of mutual pairs.
type shape struct{ Loop, Pairs int }

// TestFileReferences type-checks each package under internal (go/types,
// its imports from the export data 'go list -export' gives) and draws an
// arrow from file A to file B when A uses an object (a function, type,
// method, field, variable or constant) that B declares.
func TestFileReferences(t *testing.T) {
	exports := exportData(t)
	var checked []string
	for path := range exports {
		if strings.HasPrefix(path, module+"/internal/") {
			checked = append(checked, path)
		}
	}
	slices.Sort(checked)
	if len(checked) < 20 {
		t.Fatalf("go list gave %d packages under internal: the listing did not find the code", len(checked))
	}
	for _, path := range checked {
		t.Run(strings.TrimPrefix(path, module+"/internal/"), func(t *testing.T) {
			g := fileGraph(t, path, exports)
			got := shape{Loop: largestLoop(g), Pairs: mutualPairs(g)}
			t.Logf("%s: largest loop %d files, %d mutual pairs %v", path, got.Loop, got.Pairs, pairsOf(g))
			if got.Loop > limit.Loop || got.Pairs > limit.Pairs {
				t.Errorf("%s: largest loop %d files (at most %d), %d mutual pairs (at most %d): %v",
					path, got.Loop, limit.Loop, got.Pairs, limit.Pairs, pairsOf(g))
			}
		})
	}
}

// module is the module's path, which the checked packages' paths start
// with.
const module = "manydb"

// listed is what 'go list -json' says of a package.
type listed struct {
	ImportPath string
	Dir        string
	Export     string
	GoFiles    []string
	CgoFiles   []string
}

// exportData returns the listing of every package under internal and of
// every package they depend on, with its export data file.
func exportData(t *testing.T) map[string]listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles,CgoFiles", module+"/internal/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]listed{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}

// fileGraph type-checks package path and returns its files' arrows: for
// each file, the other files it uses objects of.
func fileGraph(t *testing.T, path string, pkgs map[string]listed) map[string][]string {
	t.Helper()
	p, ok := pkgs[path]
	if !ok {
		t.Fatalf("go list gave no package %s", path)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range slices.Concat(p.GoFiles, p.CgoFiles) {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(pkgs[path].Export)
	})
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp, FakeImportC: true, Error: func(error) {}}
	pkg, _ := conf.Check(path, fset, files, info)
	g := map[string][]string{}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if from != to && !slices.Contains(g[from], to) {
			g[from] = append(g[from], to)
		}
	}
	return g
}

// largestLoop returns the number of files in the largest strongly
// connected set of g (Tarjan's algorithm); 1 when there is no loop.
func largestLoop(g map[string][]string) int {
	index, low, onStack := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	largest, next := 1, 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range g[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		n := 0
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			n++
			if w == v {
				break
			}
		}
		largest = max(largest, n)
	}
	for _, v := range sortedKeys(g) {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	return largest
}

// mutualPairs counts the pairs of files that use each other.
func mutualPairs(g map[string][]string) int {
	return len(pairsOf(g))
}

// pairsOf lists the pairs of files that use each other, "a ↔ b" with a
// before b.
func pairsOf(g map[string][]string) []string {
	var pairs []string
	for _, a := range sortedKeys(g) {
		for _, b := range g[a] {
			if a < b && slices.Contains(g[b], a) {
				pairs = append(pairs, a+" ↔ "+b)
			}
		}
	}
	slices.Sort(pairs)
	return pairs
}

func sortedKeys(g map[string][]string) []string {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestLoopAndPairs: the counts on a small graph whose answer is known:
// a → b → c → a is a loop of 3, a ↔ d a pair (and joins the loop), e
// alone.
func TestLoopAndPairs(t *testing.T) {
	g := map[string][]string{"a": {"b", "d"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"a"}}
	if got := largestLoop(g); got != 4 {
		t.Errorf("largest loop = %d, want 4 (a, b, c, d)", got)
	}
	if got := pairsOf(g); !slices.Equal(got, []string{"a ↔ d"}) {
		t.Errorf("pairs = %v, want [a ↔ d]", got)
	}
	if got := largestLoop(map[string][]string{"a": {"b"}, "b": {}}); got != 1 {
		t.Errorf("largest loop without a loop = %d, want 1", got)
	}
}
