package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// TestFigureNamesAreRegistered: every FigureName constant of registry.go
// names an entry of the registry, so that a figure removed from it
// takes its constant along, and the packages naming it fail to compile.
func TestFigureNamesAreRegistered(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "registry.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := 0
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			v := spec.(*ast.ValueSpec)
			if typ, ok := v.Type.(*ast.Ident); !ok || typ.Name != "FigureName" {
				continue
			}
			for k, id := range v.Names {
				name, err := strconv.Unquote(v.Values[k].(*ast.BasicLit).Value)
				if err != nil {
					t.Fatal(err)
				}
				names++
				if figureNamed(name).name != name {
					t.Errorf("%s = %q names no figure of the registry", id.Name, name)
				}
			}
		}
	}
	if names < 20 {
		t.Errorf("found %d FigureName constants in registry.go, want the 20 or more other packages read", names)
	}
}
