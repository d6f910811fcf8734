package engine

import (
	"path/filepath"
	"testing"

	"manydb/internal/job"
)

// TestLayoutGaps: each layout's reasons are the catalog's maps of it, and
// a layout the catalog does not know has none.
func TestLayoutGaps(t *testing.T) {
	f := Family{NoPerAgent: why("shared only", "p"), NoShared: why("no shared", "a"),
		NoSharedVectors: why("no shared embeddings", "b"), NoSharedServe: why("one connection", "c")}
	per, shared := f.LayoutGaps(job.LayoutPerAgent), f.LayoutGaps(job.LayoutShared)
	for _, c := range []struct {
		what, got, want string
	}{
		{"per-agent always p", per.Always["p"], "shared only"},
		{"per-agent always a", per.Always["a"], ""},
		{"per-agent vectors b", per.Vectors["b"], ""},
		{"per-agent serve c", per.Serve["c"], ""},
		{"shared always a", shared.Always["a"], "no shared"},
		{"shared always p", shared.Always["p"], ""},
		{"shared vectors b", shared.Vectors["b"], "no shared embeddings"},
		{"shared serve c", shared.Serve["c"], "one connection"},
		{"unknown always a", f.LayoutGaps("other").Always["a"], ""},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.what, c.got, c.want)
		}
	}
}

// TestFolderFiles: every variant of the catalog names the files of its
// store's folder, each a valid pattern, and only a server's are none.
func TestFolderFiles(t *testing.T) {
	for _, f := range Catalog() {
		for _, v := range f.Variants {
			names, ok := f.FolderFiles[v]
			switch {
			case !ok || names == nil:
				t.Errorf("%s: no FolderFiles", v)
			case len(names) == 0 && f.Server == "":
				t.Errorf("%s: no file in its store's folder, though it has no server", v)
			}
			for _, n := range names {
				if _, err := filepath.Match(n, "x"); err != nil {
					t.Errorf("%s: pattern %q: %v", v, n, err)
				}
			}
		}
	}
}
