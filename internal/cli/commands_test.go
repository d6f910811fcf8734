package cli

import (
	"context"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
)

// TestPackageDocListsCommands: the package doc lists exactly the lines of
// the table of subcommands, in its order.
func TestPackageDocListsCommands(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "cli.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, l := range strings.Split(f.Doc.Text(), "\n") {
		if s, ok := strings.CutPrefix(l, "\tmanydb "); ok {
			listed = append(listed, "manydb "+s)
		}
	}
	if want := commandLines(); !slices.Equal(listed, want) {
		t.Errorf("the package doc lists\n%s\nwant (from commands)\n%s", strings.Join(listed, "\n"), strings.Join(want, "\n"))
	}
}

// TestUsageAndDispatchFromTable: manydb help lists every subcommand of
// the table, each name runs its own (its --help prints its synopsis), and
// an unknown name lists them all.
func TestUsageAndDispatchFromTable(t *testing.T) {
	o, out, _ := options(t)
	if err := Run(context.Background(), []string{"--help"}, o); err != nil {
		t.Fatal(err)
	}
	for _, l := range commandLines() {
		if !strings.Contains(out.String(), "\n  "+l+"\n") {
			t.Errorf("manydb --help lacks %q", l)
		}
	}
	o, _, _ = options(t)
	err := Run(context.Background(), []string{"frobnicate"}, o)
	for _, c := range commands() {
		if c.name == "help" {
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("unknown command error %v does not name %s", err, c.name)
		}
		o, out, _ := options(t)
		if err := Run(context.Background(), []string{c.name, "--help"}, o); err != nil {
			t.Errorf("%s --help: %v", c.name, err)
		}
		if !strings.HasPrefix(out.String(), "usage: manydb "+c.name) {
			t.Errorf("%s --help begins %.40q, want usage: manydb %s", c.name, out, c.name)
		}
	}
}
