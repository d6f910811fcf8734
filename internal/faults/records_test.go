package faults

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Records no manydb run writes: a value edited out of its domain, a
// compressed file cut short, a line that is no record. Every command
// refuses them in one line naming the file (and line), exit 2, no panic.

// editedRecord edits, with re → repl, the first line of a tiny study's
// results that re matches, and runs tables in each format and report on
// the copy: each must refuse it at that line, saying want.
func editedRecord(re, repl, want string) func(*fcase) {
	return func(c *fcase) {
		if res := c.run(tiny.args(c.root, c.out)...); res.code != 0 {
			c.fatal("the study: %s: %s", res, lastLine(res.stderr))
		}
		edited := filepath.Join(filepath.Dir(c.out), "edited.jsonl")
		pattern, done := regexp.MustCompile(re), false
		line := editLines(c, c.out, edited, func(l string) string {
			if done || !pattern.MatchString(l) {
				return l
			}
			done = true
			return pattern.ReplaceAllString(l, repl)
		})
		refusedEverywhere(c, edited, fmt.Sprintf("edited.jsonl:%d:", line), want)
	}
}

// refusedEverywhere runs tables in every format and report on file: each
// exits 2 with one line holding the wants, and none panics.
func refusedEverywhere(c *fcase, file string, wants ...string) {
	for _, args := range [][]string{{"tables", file}, {"tables", "--format", "csv", file}, {"tables", "--format", "json", file},
		{"tables", "--format", "gobench", file}, {"tables", "--format", "overview", file},
		{"report", "-o", filepath.Join(filepath.Dir(c.out), "r.html"), file}} {
		res := c.run(args...)
		c.message(res, 2, true, wants...)
		c.expect(!strings.Contains(res.stderr, "panic"), "%s does not panic", strings.Join(args[:min(3, len(args))], " "))
	}
	c.expect(!exists(filepath.Join(filepath.Dir(c.out), "r.html")), "no report written")
}

// cutGzip compresses a tiny study's results, cuts the file in the middle
// of a line and reads it: damage, not a whole file.
func cutGzip(c *fcase) {
	if res := c.run(tiny.args(c.root, c.out)...); res.code != 0 {
		c.fatal("the study: %s: %s", res, lastLine(res.stderr))
	}
	plain, err := os.ReadFile(c.out)
	if err != nil {
		c.fatal("%v", err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(plain)
	zw.Close()
	cut := filepath.Join(filepath.Dir(c.out), "cut.jsonl.gz")
	os.WriteFile(cut, z.Bytes()[:z.Len()*2/3], 0o644)
	refusedEverywhere(c, cut, "cut.jsonl.gz", "gzip file is damaged")
}

// cutPlain cuts a tiny study's plain results in the middle of their last
// line and reads them: a cut line, refused at its line as a cut gzip file
// is.
func cutPlain(c *fcase) {
	if res := c.run(tiny.args(c.root, c.out)...); res.code != 0 {
		c.fatal("the study: %s: %s", res, lastLine(res.stderr))
	}
	plain, err := os.ReadFile(c.out)
	if err != nil || len(plain) < 100 {
		c.fatal("read %s: %v", c.out, err)
	}
	kept := plain[:len(plain)-40]
	cut := filepath.Join(filepath.Dir(c.out), "cut.jsonl")
	os.WriteFile(cut, kept, 0o644)
	refusedEverywhere(c, cut, fmt.Sprintf("cut.jsonl:%d:", bytes.Count(kept, []byte("\n"))+1), "cut short")
}

// notARecord reads a file whose one line is JSON with a schema but no
// record in it.
func notARecord(c *fcase) {
	file := filepath.Join(filepath.Dir(c.out), "g.jsonl")
	os.WriteFile(file, []byte(`{"schema":2}`+"\n"), 0o644)
	refusedEverywhere(c, file, "g.jsonl:1:", `no "study"`)
}
