package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's results table is what manydb tables --format overview
// prints for the record its marker names (issue 28): regenerate it with
// that command when the record changes.
func TestREADMEResultsTableIsGenerated(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	marker := regexp.MustCompile("(?s)<!-- generated: manydb (tables --format overview [^>]*?) -->\n(.*?)<!-- end generated -->")
	m := marker.FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no results table between <!-- generated: manydb tables --format overview FILE... --> and <!-- end generated -->")
	}
	args := strings.Fields(string(m[1]))
	for i, a := range args {
		if strings.HasPrefix(a, "docs/") {
			args[i] = filepath.Join("..", "..", a)
		}
	}
	o, out, errOut := options(t)
	if err := Run(context.Background(), args, o); err != nil {
		t.Fatalf("manydb %s: %v\n%s", m[1], err, errOut)
	}
	if want := out.Bytes(); !bytes.Equal(bytes.TrimSpace(m[2]), bytes.TrimSpace(want)) {
		t.Errorf("README.md's results table differs from what manydb %s prints; replace it with:\n%s", m[1], want)
	}
}
