// Package memcg puts a process in a fresh memory cgroup and reads what the
// kernel charges to it: the figure a container's memory limit enforces,
// with its page cache (file) and anonymous parts. It supports the v1
// memory controller (/sys/fs/cgroup/memory) and the v2 unified hierarchy
// (/sys/fs/cgroup with the memory controller); it needs root to create a
// cgroup. manydb removes only the cgroups it created.
//
// memory.stat lags: the kernel folds its per-CPU counts in about every
// 2 s, and on a read only when much has changed. ReadSettled waits until
// the figures change (a fold after the call) and hold still, or StatDelay.
package memcg

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"manydb/internal/results"
)

// ErrUnavailable is wrapped when no memory cgroup can be made here.
var ErrUnavailable = errors.New("no memory cgroup available")

// Group is one memory cgroup.
type Group struct {
	Path string // its directory
	V2   bool   // in the unified (v2) hierarchy
}

// Charge is what a cgroup is charged, in bytes.
type Charge struct {
	Bytes int64 `json:"bytes"` // v2 memory.current, v1 memory.usage_in_bytes
	File  int64 `json:"file"`  // page cache: v2 "file", v1 "total_cache"
	Anon  int64 `json:"anon"`  // v2 "anon", v1 "total_rss"
}

// Roots, as variables of a Hierarchy so tests can point them elsewhere.
type Hierarchy struct {
	V1 string // the v1 memory controller's mount
	V2 string // the unified hierarchy's mount
	// Self is /proc/self/cgroup.
	Self string
}

// Default returns the usual mount points.
func Default() Hierarchy {
	return Hierarchy{V1: "/sys/fs/cgroup/memory", V2: "/sys/fs/cgroup", Self: "/proc/self/cgroup"}
}

// New creates a fresh cgroup named prefix-<pid>-<random> (see IsStale): under this
// process' own v1 memory cgroup (so it nests as a container's would), or
// under the v2 root with the memory controller enabled for its children.
func (h Hierarchy) New(prefix string) (Group, error) {
	b := make([]byte, 4)
	rand.Read(b)
	name := fmt.Sprintf("%s-%d-%s", prefix, os.Getpid(), hex.EncodeToString(b))
	if parent, ok := h.v1Parent(); ok {
		g := Group{Path: filepath.Join(parent, name)}
		if err := os.Mkdir(g.Path, 0o755); err != nil {
			return Group{}, fmt.Errorf("%w: %v (needs root)", ErrUnavailable, err)
		}
		return g, nil
	}
	ctrl, err := os.ReadFile(filepath.Join(h.V2, "cgroup.controllers"))
	if err != nil || !hasWord(string(ctrl), "memory") {
		return Group{}, fmt.Errorf("%w: neither a v1 memory controller at %s nor a v2 hierarchy with the memory controller at %s", ErrUnavailable, h.V1, h.V2)
	}
	sub := filepath.Join(h.V2, "cgroup.subtree_control")
	if cur, _ := os.ReadFile(sub); !hasWord(string(cur), "memory") {
		if err := os.WriteFile(sub, []byte("+memory"), 0o644); err != nil {
			return Group{}, fmt.Errorf("%w: enable the memory controller in %s: %v (needs root)", ErrUnavailable, sub, err)
		}
	}
	g := Group{Path: filepath.Join(h.V2, name), V2: true}
	if err := os.Mkdir(g.Path, 0o755); err != nil {
		return Group{}, fmt.Errorf("%w: %v (needs root)", ErrUnavailable, err)
	}
	return g, nil
}

// RemoveStale removes the cgroups that New made for processes that are
// gone: those named prefix-<pid>-<8 hex digits> in the folder where New
// makes them, whose pid runs no process. A cgroup that still holds a
// process (a worker that outlived a killed manydb) cannot be removed and
// is left. It returns the paths removed and why others could not be.
func (h Hierarchy) RemoveStale(prefix string) (removed []string, err error) {
	parent, ok := h.v1Parent()
	if !ok {
		parent = h.V2
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil, nil // no hierarchy here: nothing of ours to remove
	}
	var errs []error
	for _, e := range entries {
		pid, ok := madeBy(e.Name(), prefix)
		if !ok || !e.IsDir() || processExists(pid) {
			continue
		}
		path := filepath.Join(parent, e.Name())
		if err := os.Remove(path); err != nil {
			errs = append(errs, fmt.Errorf("remove stale memory cgroup: %w", err))
			continue
		}
		removed = append(removed, path)
	}
	return removed, errors.Join(errs...)
}

// madeBy returns the pid in a name New made with prefix:
// prefix-<pid>-<8 hex digits>.
func madeBy(name, prefix string) (pid int, ok bool) {
	rest, ok := strings.CutPrefix(name, prefix+"-")
	if !ok {
		return 0, false
	}
	pidText, suffix, ok := strings.Cut(rest, "-")
	if !ok || len(suffix) != 8 {
		return 0, false
	}
	if _, err := hex.DecodeString(suffix); err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// processExists says whether a process with this pid runs (kill with
// signal 0: EPERM means it runs under another user).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// v1Parent returns this process' v1 memory cgroup directory, if there is
// a v1 memory controller.
func (h Hierarchy) v1Parent() (string, bool) {
	if _, err := os.Stat(filepath.Join(h.V1, "memory.usage_in_bytes")); err != nil {
		return "", false
	}
	b, err := os.ReadFile(h.Self)
	if err != nil {
		return h.V1, true
	}
	for _, line := range strings.Split(string(b), "\n") {
		// hierarchy-id:controllers:path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) == 3 && hasWord(strings.ReplaceAll(parts[1], ",", " "), "memory") {
			dir := filepath.Join(h.V1, parts[2])
			if _, err := os.Stat(dir); err == nil {
				return dir, true
			}
		}
	}
	return h.V1, true
}

// Open returns the cgroup at path (made by New, perhaps in another
// process).
func Open(path string) Group {
	_, err := os.Stat(filepath.Join(path, "memory.current"))
	return Group{Path: path, V2: err == nil}
}

// Join moves process pid into g (its whole thread group).
func (g Group) Join(pid int) error {
	if err := os.WriteFile(filepath.Join(g.Path, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return fmt.Errorf("join memory cgroup %s: %w", g.Path, err)
	}
	return nil
}

// StatDelay is the longest a change takes to show in memory.stat: the
// kernel folds its per-CPU counts in about every 2 s.
const StatDelay = 2100 * time.Millisecond

// statPoll is how often ReadSettled reads the group.
const statPoll = 50 * time.Millisecond

// ReadSettled returns what g is charged, including every change made
// before the call. memory.stat's figures change only when the kernel folds
// its per-CPU counts in, so once a reading differs from the call's first
// one, a fold happened after the call; it is returned when the next
// reading, a poll later, agrees (a fold is not caught half done). Where
// nothing changes (the first reading was folded already, or nothing was
// pending), the reading after StatDelay.
func (g Group) ReadSettled() (Charge, error) {
	start := time.Now()
	first, err := g.Read()
	if err != nil {
		return first, err
	}
	prev, changed := first, false
	for {
		time.Sleep(statPoll)
		bounded := time.Since(start) >= StatDelay
		c, err := g.Read()
		if err != nil || bounded || (changed && sameStat(c, prev)) {
			return c, err
		}
		changed = changed || !sameStat(c, first)
		prev = c
	}
}

// sameStat tells whether two readings have the same memory.stat figures
// (memory.current changes on its own, as pages are charged).
func sameStat(a, b Charge) bool { return a.File == b.File && a.Anon == b.Anon }

// Read returns what g is charged now; its memory.stat figures may lag
// (see ReadSettled).
func (g Group) Read() (Charge, error) {
	usage, fileKey, anonKey := "memory.usage_in_bytes", "total_cache", "total_rss"
	if g.V2 {
		usage, fileKey, anonKey = "memory.current", "file", "anon"
	}
	var c Charge
	b, err := os.ReadFile(filepath.Join(g.Path, usage))
	if err != nil {
		return c, fmt.Errorf("read memory cgroup: %w", err)
	}
	if c.Bytes, err = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err != nil {
		return c, fmt.Errorf("read memory cgroup %s: %w", usage, err)
	}
	f, err := os.Open(filepath.Join(g.Path, "memory.stat"))
	if err != nil {
		return c, fmt.Errorf("read memory cgroup: %w", err)
	}
	defer f.Close()
	found := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if !ok || (k != fileKey && k != anonKey) {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return c, fmt.Errorf("memory.stat %s: %w", k, err)
		}
		if k == fileKey {
			c.File = n
		} else {
			c.Anon = n
		}
		found++
	}
	if err := sc.Err(); err != nil {
		return c, err
	}
	if found != 2 {
		return c, fmt.Errorf("memory.stat of %s has no %s and %s", g.Path, fileKey, anonKey)
	}
	return c, nil
}

// Remove removes g, which must hold no process any more.
func (g Group) Remove() error {
	if err := os.Remove(g.Path); err != nil {
		return fmt.Errorf("remove memory cgroup: %w", err)
	}
	return nil
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// SetLimit sets g's memory limit, in bytes: v2 memory.max, v1
// memory.limit_in_bytes. Past it the kernel reclaims the group's page
// cache, and when nothing more can be reclaimed its OOM killer ends a
// process of the group. Where the kernel accounts swap (v2
// memory.swap.max, v1 memory.memsw.limit_in_bytes), the group may not
// swap past the limit either, so anonymous memory meets the OOM killer
// as in a container without swap.
func (g Group) SetLimit(bytes int64) error {
	n := strconv.FormatInt(bytes, 10)
	files := []limitFile{{"memory.limit_in_bytes", n, false}, {"memory.memsw.limit_in_bytes", n, true}}
	if g.V2 {
		files = []limitFile{{"memory.max", n, false}, {"memory.swap.max", "0", true}}
	}
	for _, f := range files {
		path := filepath.Join(g.Path, f.name)
		if _, err := os.Stat(path); err != nil && f.optional {
			continue
		}
		if err := os.WriteFile(path, []byte(f.value), 0o644); err != nil {
			return fmt.Errorf("set the memory limit of %s (%s): %w", g.Path, f.name, err)
		}
	}
	return nil
}

// limitFile is one file SetLimit writes.
type limitFile struct {
	name, value string
	optional    bool // only where the kernel accounts swap
}

// ReadPressure reads g's pressure counts (results.Pressure).
func (g Group) ReadPressure() (results.Pressure, error) {
	p := results.Pressure{ReclaimedPages: -1, RefaultPages: -1}
	read := func(file string) (map[string]int64, error) {
		b, err := os.ReadFile(filepath.Join(g.Path, file))
		if err != nil {
			return nil, fmt.Errorf("read memory cgroup: %w", err)
		}
		return keyedCounts(b), nil
	}
	single := func(file string) (int64, error) {
		b, err := os.ReadFile(filepath.Join(g.Path, file))
		if err != nil {
			return 0, fmt.Errorf("read memory cgroup: %w", err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read memory cgroup %s: %w", file, err)
		}
		return n, nil
	}
	stat, err := read("memory.stat")
	if err != nil {
		return p, err
	}
	if g.V2 {
		events, err := read("memory.events")
		if err != nil {
			return p, err
		}
		p.LimitHits, p.OOMKills = events["max"], events["oom_kill"]
		if n, ok := stat["workingset_refault_file"]; ok {
			p.RefaultPages = n
		}
		if n, ok := stat["pgsteal"]; ok {
			p.ReclaimedPages = n
		}
		if peak, err := single("memory.peak"); err == nil {
			p.PeakBytes = peak
		}
		return p, nil
	}
	oom, err := read("memory.oom_control")
	if err != nil {
		return p, err
	}
	p.OOMKills, p.LimitHits = oom["oom_kill"], -1
	if n, ok := stat["total_workingset_refault_file"]; ok {
		p.RefaultPages = n
	}
	if p.PeakBytes, err = single("memory.max_usage_in_bytes"); err != nil {
		return p, err
	}
	return p, nil
}

// keyedCounts reads "key value" lines (memory.stat, memory.events,
// memory.oom_control); lines that are not are left out.
func keyedCounts(b []byte) map[string]int64 {
	m := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			m[k] = n
		}
	}
	return m
}
