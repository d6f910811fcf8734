package measure

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// KernelRelease reads the kernel's release from /proc/sys/kernel/osrelease.
func KernelRelease() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "", fmt.Errorf("read kernel release: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// CPUModel reads the first "model name" of /proc/cpuinfo.
func CPUModel() (string, error) { return procFileField("/proc/cpuinfo", "model name") }

// MemTotalKB reads the machine's memory, MemTotal in /proc/meminfo, in KiB.
func MemTotalKB() (int64, error) { return meminfoKB("MemTotal") }

// MemAvailableKB reads the memory available for new work, MemAvailable in
// /proc/meminfo, in KiB.
func MemAvailableKB() (int64, error) { return meminfoKB("MemAvailable") }

func meminfoKB(field string) (int64, error) {
	v, err := procFileField("/proc/meminfo", field)
	if err != nil {
		return 0, err
	}
	kb, err := strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/meminfo: %s %q: %w", field, v, err)
	}
	return kb, nil
}

// FSType returns the type of the filesystem holding path (symbolic links
// followed): that of the longest mount point in /proc/self/mounts that
// contains it.
func FSType(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("filesystem of %s: %w", path, err)
	}
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return "", fmt.Errorf("filesystem of %s: %w", path, err)
	}
	fsType, ok := mountFSType(b, abs)
	if !ok {
		return "", fmt.Errorf("filesystem of %s: no mount point in /proc/self/mounts holds it", path)
	}
	return fsType, nil
}

// mountFSType returns the type of the longest mount point in mounts (the
// text of /proc/self/mounts) that contains the absolute path abs.
func mountFSType(mounts []byte, abs string) (string, bool) {
	best, fsType := -1, ""
	for _, line := range strings.Split(strings.TrimSpace(string(mounts)), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		mp := f[1]
		if (abs == mp || strings.HasPrefix(abs, strings.TrimSuffix(mp, "/")+"/")) && len(mp) > best {
			best, fsType = len(mp), f[2]
		}
	}
	return fsType, best >= 0
}

// procFileField returns the value after "key:" on the first matching line
// of a /proc file.
func procFileField(path, key string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	v, ok := procField(b, key)
	if !ok {
		return "", fmt.Errorf("%s has no %s line", path, key)
	}
	return v, nil
}

// procField returns the value after "key:" on the first matching line of
// b, spaces trimmed.
func procField(b []byte, key string) (string, bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// FreeBytes is the space an unprivileged user may still write on the
// filesystem holding path (statfs: available blocks times block size).
func FreeBytes(path string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, fmt.Errorf("free space of %s: %w", path, err)
	}
	return st.Bavail * uint64(st.Bsize), nil
}
