package faults

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"manydb/internal/job"
	"manydb/internal/results"
)

// The cases of issue 31: what lies outside manydb's files, hostile or
// edited input, and the turn and cgroup state a kill leaves.

// tiny is a study of a second or two, for cases that need records.
var tiny = study{Stores: 5, Objects: 20, TextLen: 50, Runs: 1, Hold: 2}

// A symbolic link in the root's trash, pointing outside the root: the next
// run removes the link, never what it points to.
func trashLink(c *fcase) {
	if res := c.run(tiny.args(c.root, c.out)...); res.code != 0 {
		c.fatal("the first study: %s: %s", res, lastLine(res.stderr))
	}
	outside := filepath.Join(filepath.Dir(c.root), "outside")
	os.MkdirAll(outside, 0o755)
	precious := filepath.Join(outside, "precious.txt")
	os.WriteFile(precious, []byte("mine"), 0o644)
	trash := filepath.Join(c.root, ".manydb-trash")
	os.MkdirAll(trash, 0o755)
	if err := os.Symlink(outside, filepath.Join(trash, "link")); err != nil {
		c.fatal("%v", err)
	}
	c.out = filepath.Join(filepath.Dir(c.out), "r2.jsonl") // a second study
	res := c.run(tiny.args(c.root, c.out)...)
	c.message(res, 0, false, "")
	c.expect(exists(precious), "the file the link points to is still there")
	c.expect(!exists(filepath.Join(trash, "link")), "the link itself is removed")
	c.audit()
}

// --out names a file that is not a results file (one line, no final
// newline): refused with exit 2, the file unchanged, nothing created.
func outForeignFile(c *fcase) {
	os.WriteFile(c.out, []byte("important"), 0o644)
	res := c.run(tiny.args(c.root, c.out)...)
	c.message(res, 2, true, "--out")
	b, _ := os.ReadFile(c.out)
	c.expect(string(b) == "important", "the file is unchanged (%q)", b)
	c.expect(!exists(c.root), "no data root created")
}

// report -o naming its own input: refused, the results kept.
func reportOverInput(c *fcase) {
	if res := c.run(tiny.args(c.root, c.out)...); res.code != 0 {
		c.fatal("the study: %s: %s", res, lastLine(res.stderr))
	}
	c.snapshot()
	res := c.run("report", "-o", c.out, c.out)
	c.message(res, 2, true, "-o")
	c.audit()
}

// A hold record edited to "hold": null: tables and report refuse the file
// in one line naming it and the line, with exit 2 and no panic.
func nullObject(c *fcase) {
	if res := c.run(tiny.args(c.root, c.out)...); res.code != 0 {
		c.fatal("the study: %s: %s", res, lastLine(res.stderr))
	}
	edited := filepath.Join(filepath.Dir(c.out), "edited.jsonl")
	line := editLines(c, c.out, edited, func(l string) string {
		if !strings.Contains(l, `"phase":"hold"`) {
			return l
		}
		i := strings.Index(l, `"hold":{`)
		end := strings.Index(l[i:], "}")
		return l[:i] + `"hold":null` + l[i+end+1:]
	})
	for _, args := range [][]string{{"tables", edited}, {"report", "-o", filepath.Join(filepath.Dir(c.out), "r.html"), edited}} {
		res := c.run(args...)
		c.message(res, 2, true, fmt.Sprintf("edited.jsonl:%d:", line))
		c.expect(!strings.Contains(res.stderr, "panic"), "%s does not panic", args[0])
	}
}

// editLines copies the results file from to to, changing each line with
// edit; it returns the number of the last line edit changed.
func editLines(c *fcase, from, to string, edit func(string) string) int {
	f, err := os.Open(from)
	if err != nil {
		c.fatal("%v", err)
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	changed, n := 0, 0
	for sc.Scan() {
		n++
		l := edit(sc.Text())
		if l != sc.Text() {
			changed = n
		}
		b.WriteString(l + "\n")
	}
	if changed == 0 {
		c.fatal("no line of %s was edited", from)
	}
	if err := os.WriteFile(to, []byte(b.String()), 0o644); err != nil {
		c.fatal("%v", err)
	}
	return changed
}

// SIGKILL of manydb in turn run 2: the rerun makes the stores again,
// redoes turn run 1 unrecorded, and measures turn run 2 on stores holding
// the note of run 1.
func cutTurn(c *fcase) {
	s := study{Stores: 200, Objects: 20, TextLen: 50, Runs: 1, Hold: 5, Extra: []string{"--turns", "2"}}
	p := c.start(s.args(c.root, c.out)...)
	c.caught(c.waitRecord(p, func(r results.Record) bool { return r.Phase == job.PhaseTurn && r.Turn == 1 }),
		"the study ended before turn run 1 was recorded")
	c.caught(p.waitWorker("turn") != 0, "turn run 2 ended before it was seen")
	p.kill(syscall.SIGKILL)
	p.wait()
	c.snapshot()
	res := c.run(s.args(c.root, c.out)...)
	c.message(res, 0, false, "turn run 1 (redone")
	c.completes(res)
	appended := -1
	for _, r := range c.records() {
		if r.Phase == job.PhaseTurn && r.Turn == 2 && r.Status == results.StatusOK {
			appended = r.Appended
		}
	}
	c.expect(appended == 1, "turn run 2 measured on stores with 1 appended note (%d)", appended)
	c.audit()
}

// NaN in serve's number flags: one line, exit 2, nothing created.
func serveNaN(flag string) func(*fcase) {
	return func(c *fcase) {
		res := c.run("serve", "--engines", "sqlite", "--stores", "10", "--requests", "20", "--pool", "0,5",
			"--root", c.root, "--out", c.out, flag, "NaN")
		c.message(res, 2, true, flag+" NaN")
		c.expect(!exists(c.root) && !exists(c.out), "nothing created")
	}
}

// SIGKILL of manydb in a hold phase leaves the hold worker's memory
// cgroup; the next run removes it and says so.
func cgroupLeak(c *fcase) {
	parent, ok := memoryCgroupDir()
	if !ok || os.Geteuid() != 0 {
		c.skip("needs root and a v1 memory cgroup hierarchy")
	}
	s := study{Stores: 200, Objects: 20, TextLen: 50, Runs: 1, Hold: 100}
	p := c.start(s.args(c.root, c.out)...)
	c.caught(p.waitWorker("hold") != 0, "the hold phase ended before it was seen")
	pattern := filepath.Join(parent, fmt.Sprintf("manydb-%d-*", p.res.pid))
	left, _ := filepath.Glob(pattern)
	c.caught(len(left) == 1, "the hold worker's cgroup was not there yet")
	p.kill(syscall.SIGKILL)
	p.wait()
	for _, w := range children(p.res.pid) { // none: the worker died with its pipe, or is killed here
		syscall.Kill(w, syscall.SIGKILL)
	}
	c.snapshot()
	res := c.run(s.args(c.root, c.out)...)
	c.message(res, 0, false, "memory cgroups left by manydb processes that are gone")
	c.completes(res)
	left, _ = filepath.Glob(pattern)
	c.expect(len(left) == 0, "the killed run's cgroup is removed (%d left)", len(left))
	c.audit()
}

// memoryCgroupDir is this process' v1 memory cgroup, where manydb (its
// child) makes its hold workers' cgroups.
func memoryCgroupDir() (string, bool) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) == 3 && strings.Contains(","+parts[1]+",", ",memory,") {
			dir := filepath.Join("/sys/fs/cgroup/memory", parts[2])
			if _, err := os.Stat(filepath.Join(dir, "memory.usage_in_bytes")); err == nil {
				return dir, true
			}
		}
	}
	return "", false
}

// An open-run record copied by hand (a file edited or joined): tables and
// compare warn that the cell has two records and say which line counts.
func duplicateCell(c *fcase) {
	if res := c.run(tiny.args(c.root, c.out)...); res.code != 0 {
		c.fatal("the study: %s: %s", res, lastLine(res.stderr))
	}
	b, err := os.ReadFile(c.out)
	if err != nil {
		c.fatal("%v", err)
	}
	var open string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"phase":"open"`) && strings.Contains(l, `"status":"ok"`) {
			open = l
			break
		}
	}
	if open == "" {
		c.fatal("no ok open record in %s", c.out)
	}
	edited := filepath.Join(filepath.Dir(c.out), "edited.jsonl")
	os.WriteFile(edited, append(b, []byte(open+"\n")...), 0o644)
	res := c.run("tables", edited)
	res.stderr = res.stdout // the warning is a note of the tables, on stdout
	c.message(res, 0, false, "Warning", "open run 1 has 2 records")
	cmp := c.run("compare", c.out, edited)
	c.expect(strings.Contains(cmp.stdout+cmp.stderr, "has 2 records"), "compare warns of the duplicate too")
}
