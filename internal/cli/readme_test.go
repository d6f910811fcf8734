package cli

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The README's results table is what manydb tables --format overview
// prints for the record its marker names: regenerate it with that
// command when the record changes. It reads the committed record
// (docs/results/), so -short leaves it out; TestGeneratedBlocks checks
// the same commands on small records.
func TestREADMEResultsTableIsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the committed record under docs/results")
	}
	checkGenerated(t, "README.md", "tables --format overview")
}

// docs/choosing.md's answer is what manydb advise prints for the scenario
// its marker names, from the committed records (not under -short, as
// above).
func TestChoosingAnswerIsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the committed record under docs/results")
	}
	checkGenerated(t, "docs/choosing.md", "advise")
}

// TestGeneratedBlocks: the blocks of testdata/generated.md, made by
// manydb tables --format overview and manydb advise from the report's
// small test records, are what those commands print.
func TestGeneratedBlocks(t *testing.T) {
	for _, command := range []string{"tables --format overview", "advise"} {
		t.Run(command, func(t *testing.T) {
			checkGenerated(t, "internal/cli/testdata/generated.md", command)
		})
	}
}

// checkGenerated checks that each block of doc (a path from the
// repository's top) between "<!-- generated: manydb COMMAND… -->" and
// "<!-- end generated -->" is what that command prints, run from the
// repository's top.
func checkGenerated(t *testing.T, doc, command string) {
	t.Helper()
	chdir(t, "../..")
	text, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	marker := regexp.MustCompile("(?s)<!-- generated: manydb (" + regexp.QuoteMeta(command) + "[^>]*?) -->\n(.*?)<!-- end generated -->")
	blocks := marker.FindAllSubmatch(text, -1)
	if len(blocks) == 0 {
		t.Fatalf("%s has no block between <!-- generated: manydb %s … --> and <!-- end generated -->", doc, command)
	}
	for _, m := range blocks {
		o, out, errOut := options(t)
		if err := Run(context.Background(), strings.Fields(string(m[1])), o); err != nil {
			t.Fatalf("manydb %s: %v\n%s", m[1], err, errOut)
		}
		if want := out.Bytes(); !bytes.Equal(bytes.TrimSpace(m[2]), bytes.TrimSpace(want)) {
			t.Errorf("%s's generated block differs from what manydb %s prints; replace it with:\n%s", doc, m[1], want)
		}
	}
}
