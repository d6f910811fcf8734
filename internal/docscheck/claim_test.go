package docscheck

import "testing"

// TestClaimError: a claim holds when the doc has its words and they hold
// the recomputed figure; a figure written at 1,000 KB a MB, one that is
// only the tail of a longer number, or words gone from the doc fail.
func TestClaimError(t *testing.T) {
	const doc = "their workers peak at 2.9–4.0 GB, and 24.6 GB of files"
	for _, c := range []struct {
		words, fig string
		ok         bool
	}{
		{"peak at 2.9–4.0 GB", "2.9–4.0 GB", true},
		{"peak at 2.9–4.0 GB", "2.9–4.1 GB", false}, // the peaks at 1,000 KB a MB
		{"and 24.6 GB of files", "4.6 GB", false},
		{"peak at 3.0 GB", "3.0 GB", false}, // not what the doc says
	} {
		err := claimError(doc, "doc.md", c.words, c.fig)
		if (err == nil) != c.ok {
			t.Errorf("words %q, figure %q: error %v, want ok %v", c.words, c.fig, err, c.ok)
		}
	}
}
