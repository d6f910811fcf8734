package codeshape

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The longest a function and a file of the code (not its tests) may be,
// in lines.
const (
	maxFuncLines = 80
	maxFileLines = 600
)

// TestLengths parses every Go file under internal and cmd but the tests
// and the generated ones, and fails for each function longer than
// maxFuncLines (from its func keyword to its closing brace) and each file
// longer than maxFileLines.
func TestLengths(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	for _, root := range []string{"../../internal", "../../cmd"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
			if err != nil {
				return err
			}
			if ast.IsGenerated(f) {
				return nil
			}
			files++
			if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
				t.Errorf("%s: %d lines, more than %d", path, n, maxFileLines)
			}
			for _, decl := range f.Decls {
				if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
					if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
						t.Errorf("%s: func %s: %d lines, more than %d", path, fd.Name.Name, n, maxFuncLines)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("read %d files under internal and cmd: the walk did not find the code", files)
	}
}
