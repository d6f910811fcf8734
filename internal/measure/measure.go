// Package measure reads what the operating system says about this process
// (memory, threads, open files, transparent huge pages), about the machine
// (kernel, CPU, memory, load average, mounts) and about the space a store's
// files take on disk. It is Linux-only: it reads /proc or calls stat.
package measure

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Memory is a process' memory in KiB, as the kernel accounts it.
type Memory struct {
	RssKB  int64 // Rss: resident pages, file-backed and anonymous
	AnonKB int64 // Anonymous: the process' own memory (heap, stacks, private maps)
	PssKB  int64 // Pss: Rss with each page shared by n processes counted 1/n
}

// ProcessesMemory sums the memory of the processes pids
// (/proc/PID/smaps_rollup of each; a process gone meanwhile is left out)
// and returns how many it read.
func ProcessesMemory(pids []int) (Memory, int, error) {
	var sum Memory
	n := 0
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			continue
		}
		if err != nil {
			return Memory{}, 0, fmt.Errorf("read the memory of process %d: %w", pid, err)
		}
		m, err := parseSmapsRollup(b)
		if err != nil {
			return Memory{}, 0, fmt.Errorf("process %d: %w", pid, err)
		}
		sum.RssKB, sum.AnonKB, sum.PssKB = sum.RssKB+m.RssKB, sum.AnonKB+m.AnonKB, sum.PssKB+m.PssKB
		n++
	}
	return sum, n, nil
}

// ReadMemory reads /proc/self/smaps_rollup.
func ReadMemory() (Memory, error) {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return Memory{}, fmt.Errorf("read memory: %w", err)
	}
	return parseSmapsRollup(b)
}

func parseSmapsRollup(b []byte) (Memory, error) {
	var m Memory
	var haveRss, haveAnon bool
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "Rss:":
			m.RssKB, haveRss = v, true
		case "Anonymous:":
			m.AnonKB, haveAnon = v, true
		case "Pss:":
			m.PssKB = v
		}
	}
	if !haveRss || !haveAnon {
		return Memory{}, fmt.Errorf("smaps_rollup has no Rss or Anonymous line")
	}
	return m, nil
}

// Threads counts the threads of this process.
func Threads() (int, error) { return countDir("/proc/self/task") }

// OpenFiles counts the open file descriptors of this process.
func OpenFiles() (int, error) {
	n, err := countDir("/proc/self/fd")
	return n - 1, err // the descriptor reading the directory
}

// OpenFilesUnder returns the paths this process has open that start with
// prefix (the targets of /proc/self/fd), in descriptor order.
func OpenFilesUnder(prefix string) ([]string, error) {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, fmt.Errorf("list open files: %w", err)
	}
	var out []string
	for _, e := range entries {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out, nil
}

// THPEnabled reads THP_enabled from /proc/self/status: "1" when transparent
// huge pages may back this process' memory, "0" when they are disabled for
// it (prctl PR_SET_THP_DISABLE). Kernels before 5.0 have no such line.
func THPEnabled() (string, error) {
	return procFileField("/proc/self/status", "THP_enabled")
}

func countDir(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("count %s: %w", dir, err)
	}
	return len(entries), nil
}

// Load1 reads the 1-minute load average from /proc/loadavg.
func Load1() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, fmt.Errorf("read load average: %w", err)
	}
	return parseLoadavg(b)
}

func parseLoadavg(b []byte) (float64, error) {
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("empty /proc/loadavg")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, fmt.Errorf("parse load average %q: %w", f[0], err)
	}
	return v, nil
}

// Space is what one store takes on disk.
type Space struct {
	Bytes         int64    // allocated: st_blocks × 512, summed over files
	ApparentBytes int64    // sum of file sizes
	Files         []string // paths relative to the store, sorted
}

// DirSpace walks dir and sums its regular files (directories themselves
// are not counted, as their size depends on the filesystem only).
func DirSpace(dir string) (Space, error) { return FilesSpace(DirFiles(dir)) }

// FilesSpace sums the files fs, named relative to fs.Dir.
func FilesSpace(fs Files) (Space, error) {
	var s Space
	err := fs.each(func(path string, _ int, st *unix.Stat_t) error {
		s.Bytes += st.Blocks * 512
		s.ApparentBytes += st.Size
		rel, err := filepath.Rel(fs.Dir, path)
		if err != nil {
			return err
		}
		s.Files = append(s.Files, rel)
		return nil
	})
	if err != nil {
		return Space{}, fmt.Errorf("measure space of %s: %w", fs.Dir, err)
	}
	sort.Strings(s.Files)
	return s, nil
}
