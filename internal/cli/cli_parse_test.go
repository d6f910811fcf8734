package cli

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestFlagsAnywhere: flags are read wherever they stand among the other
// arguments, which keep their order; "--" ends the flags.
func TestFlagsAnywhere(t *testing.T) {
	for _, tt := range []struct {
		args, out string
		others    []string
	}{
		{"r.jsonl -o page.html", "page.html", []string{"r.jsonl"}},
		{"-o page.html a b", "page.html", []string{"a", "b"}},
		{"a -o page.html b", "page.html", []string{"a", "b"}},
		{"a -- -o b", "", []string{"a", "-o", "b"}},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		out := fs.String("o", "", "")
		if err := parseAnywhere(fs, strings.Fields(tt.args)); err != nil || *out != tt.out || !slices.Equal(fs.Args(), tt.others) {
			t.Errorf("%s: -o %q, others %q, err %v; want -o %q, others %q", tt.args, *out, fs.Args(), err, tt.out, tt.others)
		}
	}
}
