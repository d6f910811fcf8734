package orchestrate

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"manydb/internal/results"
)

// Environment describes the machine a study runs on, with the data root's
// filesystem. Values that cannot be read are "unknown".
func Environment(root, version string) map[string]string {
	env := map[string]string{
		"manydb":      version,
		"go":          runtime.Version(),
		"goos_goarch": runtime.GOOS + "/" + runtime.GOARCH,
		"cores":       fmt.Sprint(runtime.NumCPU()),
		"kernel":      readTrim("/proc/sys/kernel/osrelease"),
		"distro":      osRelease(),
		"cpu":         cpuModel(),
		"memory_kb":   memTotal(),
		"thp":         thpMode(),
		"glibc":       glibcVersion(),
	}
	fsType, free := filesystem(root)
	env["root"] = root
	env["root_fs"] = fsType
	env["root_free_bytes"] = free
	return env
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

func osRelease() string {
	for _, line := range strings.Split(readTrim("/etc/os-release"), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return "unknown"
}

// procField returns the value after "key:" on the first matching line.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func cpuModel() string { return procField("/proc/cpuinfo", "model name") }

func memTotal() string {
	return strings.TrimSuffix(procField("/proc/meminfo", "MemTotal"), " kB")
}

// thpMode returns the bracketed mode of transparent huge pages, e.g. "madvise".
func thpMode() string {
	s := readTrim("/sys/kernel/mm/transparent_hugepage/enabled")
	if i := strings.Index(s, "["); i >= 0 {
		if j := strings.Index(s[i:], "]"); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}

// glibcVersion asks getconf, which every glibc system has.
func glibcVersion() string {
	out, err := exec.Command("getconf", "GNU_LIBC_VERSION").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// filesystem returns the type of the filesystem holding path (from
// /proc/self/mounts, longest matching mount point) and its free bytes.
func filesystem(path string) (fsType, free string) {
	fsType, free = "unknown", "unknown"
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err == nil {
		free = fmt.Sprint(st.Bavail * uint64(st.Bsize))
	}
	abs, err := realPath(path)
	if err != nil {
		return fsType, free
	}
	best := -1
	for _, line := range strings.Split(readTrim("/proc/self/mounts"), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		mp := f[1]
		if (abs == mp || strings.HasPrefix(abs, strings.TrimSuffix(mp, "/")+"/")) && len(mp) > best {
			best, fsType = len(mp), f[2]
		}
	}
	return fsType, free
}

func (s *study) writeEnv() error {
	return s.w.Append(results.Record{
		Study:    s.id,
		Phase:    results.PhaseEnv,
		Status:   results.StatusOK,
		Setting:  s.Setting,
		Env:      Environment(s.Root, s.Version),
		Workload: s.Workload,
		Stores:   s.Stores,
	})
}
