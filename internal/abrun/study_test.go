package abrun

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestSettleBeforeEachSide: a side's study starts only after settle (the
// sync that writes back the side before's dirty pages): a stand-in for
// manydb that writes its results file only when settle's mark is there.
func TestSettleBeforeEachSide(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "settled")
	fake := filepath.Join(dir, "manydb")
	script := "#!/bin/sh\ntest -f " + mark + " || exit 3\nfor out; do :; done\n: > \"$out\"\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	settles := 0
	s := &studyRunner{dir: filepath.Join(dir, "ab"), runArgs: []string{"--stores", "1"}, settle: func() {
		settles++
		if err := os.WriteFile(mark, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}}
	if err := s.makeDir(); err != nil {
		t.Fatal(err)
	}
	for n, side := range []Side{{Name: "A", Manydb: fake}, {Name: "B", Manydb: fake}} {
		if _, err := s.measure(context.Background(), n+1, side); err != nil {
			t.Fatalf("side %s: %v", side.Name, err)
		}
		if settles != n+1 {
			t.Errorf("after side %s: %d settles, want %d", side.Name, settles, n+1)
		}
		if err := os.Remove(mark); err != nil {
			t.Fatal(err)
		}
	}
}
