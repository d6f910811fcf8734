package pgserver

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// CheckReach tells, before anything is made, whether the server's user
// (name, or DefaultUser; manydb's own user needs no check) can reach the
// server's directory dir: enter every folder above it, those that exist
// as they are, those manydb will make (os.MkdirAll, mode 0755 under the
// process' umask) as root owns them. Its error names the first folder
// that stops the user and the fix. A user that does not exist is left to
// Start to name.
func CheckReach(dir, name string) error {
	cred, user, err := serverUser(name)
	if err != nil || cred == nil {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	return reach(filepath.Dir(abs), user, cred, umask())
}

// reach checks that the user (its credential cred) can enter folder and
// every folder above it (searchable), taking the folders that do not
// exist yet as made by root with mode 0755 under mask.
func reach(folder, user string, cred *syscall.Credential, mask fs.FileMode) error {
	var parts []string
	for d := folder; ; d = filepath.Dir(d) {
		parts = append(parts, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i := len(parts) - 1; i >= 0; i-- {
		d := parts[i]
		mode, uid, gid := fs.FileMode(0o755)&^mask, uint32(0), uint32(0)
		st, err := os.Stat(d)
		switch {
		case err == nil:
			sys, ok := st.Sys().(*syscall.Stat_t)
			if !ok {
				return nil
			}
			mode, uid, gid = st.Mode().Perm(), sys.Uid, sys.Gid
		case !errors.Is(err, fs.ErrNotExist):
			return nil // CheckRoot names what cannot be read
		}
		if searchable(mode, uid, gid, cred) {
			continue
		}
		if err != nil {
			return fmt.Errorf("the PostgreSQL server runs as user %s, which could not enter %s: manydb would make it with mode %04o (umask %04o); run with umask 022, or make --root's folders first with o+x", user, d, mode, mask)
		}
		return fmt.Errorf("the PostgreSQL server runs as user %s, which cannot enter %s (mode %04o, owner uid %d): give a --root below folders it can enter, or chmod o+x %s", user, d, mode, uid, d)
	}
	return nil
}

// searchable tells whether cred may enter a folder of mode, owned by uid
// and gid (the server runs without supplementary groups).
func searchable(mode fs.FileMode, uid, gid uint32, cred *syscall.Credential) bool {
	switch {
	case cred.Uid == uid:
		return mode&0o100 != 0
	case cred.Gid == gid:
		return mode&0o010 != 0
	}
	return mode&0o001 != 0
}

// umask is the process' file mode creation mask, from /proc/self/status
// (reading it with umask(2) would change it); 022 when that cannot be
// read.
func umask() fs.FileMode {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0o022
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Umask:"); ok {
			if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
				return fs.FileMode(m)
			}
		}
	}
	return 0o022
}
