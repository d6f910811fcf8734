package pgserver

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReach: a server's user that another user's folder of mode 0700
// stops (as mktemp -d makes one) is named with that folder before
// anything is made; a folder it may enter, or one manydb makes under
// umask 022, passes; one manydb would make under umask 077 is named too.
func TestReach(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getuid() == 65534 {
		t.Fatal("the test's user is the server's user of the test (65534)")
	}
	server := &syscall.Credential{Uid: 65534, Gid: 65534}
	private, open := filepath.Join(base, "private"), filepath.Join(base, "open")
	os.Mkdir(private, 0o700)
	os.Mkdir(open, 0o711)
	for _, tt := range []struct {
		folder string
		mask   fs.FileMode
		want   string
	}{
		{filepath.Join(private, "root"), 0o022, "which cannot enter " + private + " (mode 0700, owner uid "},
		{filepath.Join(open, "root"), 0o022, ""},
		{filepath.Join(open, "new", "root"), 0o022, ""},
		{filepath.Join(open, "new", "root"), 0o077, "which could not enter " + filepath.Join(open, "new") + ": manydb would make it with mode 0700 (umask 0077)"},
	} {
		err := reach(tt.folder, "nobody", server, tt.mask)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("reach(%s, umask %04o) = %v, want %q", tt.folder, tt.mask, err, tt.want)
		}
	}
}
