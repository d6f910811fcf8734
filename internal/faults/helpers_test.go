package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"manydb/internal/job"
	"manydb/internal/results"
)

// study is the command line of one tiny manydb run.
type study struct {
	Engines  string // default sqlite
	Workload string // --workload; "" leaves manydb's default
	Stores   int
	Objects  int // --objects; 0 leaves the workload's
	TextLen  int // --text-len; 0 leaves the workload's
	Runs     int
	Hold     int
	Extra    []string // more flags (--keep, --skip-space-check, …)
}

// small is the study of most cases: phases long enough to be caught, a
// few seconds in all.
var small = study{Stores: 200, Objects: 20, TextLen: 50, Runs: 2, Hold: 100}

// args is the manydb command line of s on root and out.
func (s study) args(root, out string) []string {
	engines := s.Engines
	if engines == "" {
		engines = "sqlite"
	}
	a := []string{"run", "--engines", engines, "--stores", strconv.Itoa(s.Stores),
		"--runs", strconv.Itoa(s.Runs), "--hold", strconv.Itoa(s.Hold)}
	if s.Workload != "" {
		a = append(a, "--workload", s.Workload)
	}
	if s.Objects != 0 {
		a = append(a, "--objects", strconv.Itoa(s.Objects))
	}
	if s.TextLen != 0 {
		a = append(a, "--text-len", strconv.Itoa(s.TextLen))
	}
	a = append(a, s.Extra...)
	return append(a, "--root", root, "--out", out)
}

// fcase is one running case: its directory, the root and results file of
// its current attempt, and the row it fills.
type fcase struct {
	t         *testing.T
	row       *row
	dir       string
	root, out string
	attempt   int
	seen      map[string]bool // every record seen at a snapshot, by its JSON
	extra     int             // wrong figures found by the case itself
	mu        sync.Mutex      // guards row.Hangs and row.Panics, counted as processes end
}

// missed is the panic of a case that did not catch the moment it waited
// for (the phase ended first); the case is tried again in a fresh
// directory.
type missed struct{ what string }

// caught stops the attempt when ok is false: the moment was missed.
func (c *fcase) caught(ok bool, what string) {
	if !ok {
		panic(missed{what})
	}
}

// fresh starts an attempt: a new root and results file, nothing seen.
func (c *fcase) fresh() {
	c.attempt++
	d := filepath.Join(c.dir, fmt.Sprintf("try%d", c.attempt))
	if err := os.MkdirAll(d, 0o755); err != nil {
		c.t.Fatal(err)
	}
	c.root, c.out = filepath.Join(d, "root"), filepath.Join(d, "results.jsonl")
	c.seen = map[string]bool{}
	c.extra = 0
	*c.row = row{Case: c.row.Case}
}

// skip skips the case, saying why in its row.
func (c *fcase) skip(why string) {
	c.row.Skipped = why
	c.t.Skip(why)
}

// fatal stops the case on a failure of its own set-up.
func (c *fcase) fatal(format string, args ...any) {
	msg := c.tidy(fmt.Sprintf(format, args...))
	c.row.Checks = append(c.row.Checks, "FAILED: "+msg)
	c.t.Fatal(msg)
}

// tidy shortens the paths of the attempt's folder and of the binaries in
// a line for the table: DIR/root, BIN/manydb.
func (c *fcase) tidy(s string) string {
	s = strings.ReplaceAll(s, filepath.Dir(c.root), "DIR")
	return strings.ReplaceAll(s, binDir, "BIN")
}

// expect records a check of the case in its row; a failed one fails the
// test.
func (c *fcase) expect(ok bool, what string, args ...any) {
	msg := c.tidy(fmt.Sprintf(what, args...))
	if ok {
		c.row.Checks = append(c.row.Checks, msg)
		return
	}
	c.row.Checks = append(c.row.Checks, "FAILED: "+msg)
	c.t.Errorf("%s: %s", c.row.Case, msg)
}

// result is how a manydb process ended.
type result struct {
	pid            int
	code           int    // exit code; -1 when killed
	signal         string // the signal that killed it
	stdout, stderr string
}

func (r result) String() string {
	if r.signal != "" {
		return "killed by " + r.signal
	}
	return fmt.Sprintf("exit %d", r.code)
}

// proc is a manydb process started by a case.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	res            result
	cancel         context.CancelFunc
}

// timeout bounds one manydb process of the suite.
const timeout = 2 * time.Minute

// start starts manydb with args.
func (c *fcase) start(args ...string) *proc {
	return c.startCmd(filepath.Join(binDir, "manydb"), args...)
}

// startCmd starts a program (manydb, or sh running manydb).
func (c *fcase) startCmd(name string, args ...string) *proc {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	p := &proc{done: make(chan struct{}), cancel: cancel}
	p.cmd = exec.CommandContext(ctx, name, args...)
	p.cmd.Dir = c.dir
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		cancel()
		c.fatal("start %s: %v", name, err)
	}
	p.res.pid = p.cmd.Process.Pid
	go func() {
		p.cmd.Wait()
		hung := ctx.Err() == context.DeadlineExceeded
		st := p.cmd.ProcessState
		p.res.code = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.res.signal = ws.Signal().String()
		}
		p.res.stdout, p.res.stderr = p.stdout.String(), p.stderr.String()
		c.countHangOrPanic(hung, p.res.stderr)
		cancel()
		close(p.done)
	}()
	c.t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// countHangOrPanic counts into the row a process that ran into the
// timeout, or whose stderr holds a Go panic or fatal error (manydb's own:
// a worker's crash, e.g. in a fault case that kills it, is reported by
// manydb inside a failed record, not as a panic of manydb).
func (c *fcase) countHangOrPanic(hung bool, stderr string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if hung {
		c.row.Hangs++
	}
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
			c.row.Panics++
			return
		}
	}
}

// run runs manydb with args to its end.
func (c *fcase) run(args ...string) result { return c.start(args...).wait() }

func (p *proc) wait() result {
	<-p.done
	return p.res
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) kill(sig syscall.Signal) { syscall.Kill(p.res.pid, sig) }

// pollEvery is how often a case looks for the moment it waits for.
const pollEvery = 100 * time.Microsecond

// waitWorker waits until manydb runs a worker for phase and returns the
// worker's pid, or 0 when manydb ended first.
func (p *proc) waitWorker(phase string) int {
	for !p.exited() {
		for _, kid := range children(p.res.pid) {
			if workerPhase(kid) == phase {
				return kid
			}
		}
		time.Sleep(pollEvery)
	}
	return 0
}

// children lists the child processes of pid (of all its threads).
func children(pid int) []int {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var kids []int
	for _, task := range tasks {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids
}

// workerPhase returns the --phase of a running worker process, "" when pid
// is not a worker (or not yet: a child is manydb until it execs).
func workerPhase(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	if !strings.HasPrefix(filepath.Base(args[0]), "worker-") {
		return ""
	}
	for i, a := range args[:len(args)-1] {
		if a == "--phase" || a == "-phase" {
			return args[i+1]
		}
	}
	return ""
}

// waitRecord waits until the results file holds a record that match
// accepts; false when manydb ended first.
func (c *fcase) waitRecord(p *proc, match func(results.Record) bool) bool {
	var size int64 = -1
	for {
		ended := p.exited()
		if st, err := os.Stat(c.out); err == nil && st.Size() != size {
			size = st.Size()
			recs, _ := results.ReadFile(c.out) // a line being written is skipped
			for _, r := range recs {
				if match(r) {
					return true
				}
			}
		}
		if ended {
			return false
		}
		time.Sleep(pollEvery)
	}
}

// phaseIs matches the ok record of one phase.
func phaseIs(phase job.Phase) func(results.Record) bool {
	return func(r results.Record) bool { return r.Phase == phase && r.Status == results.StatusOK }
}

// records reads the results file; nil when it does not exist.
func (c *fcase) records() []results.Record {
	recs, err := results.ReadFile(c.out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		c.expect(false, "results file readable (%v)", err)
	}
	return recs
}

// snapshot remembers every record now in the results file: one of them
// missing or changed at the end is a lost record.
func (c *fcase) snapshot() []results.Record {
	recs := c.records()
	for _, r := range recs {
		c.seen[recordKey(r)] = true
	}
	return recs
}

func recordKey(r results.Record) string {
	b, _ := json.Marshal(r)
	return string(b)
}

// audit counts the lost, doubled and wrong records of the results file as
// it is now into the row; any of them fails the test.
func (c *fcase) audit() {
	recs := c.records()
	now := map[string]bool{}
	for _, r := range recs {
		now[recordKey(r)] = true
	}
	lost := 0
	for k := range c.seen {
		if !now[k] {
			lost++
		}
	}
	wrong, why := wrongFigures(recs)
	c.row.Lost, c.row.Doubled, c.row.Wrong = lost, doubled(recs), wrong+c.extra
	if c.row.Lost > 0 {
		c.t.Errorf("%s: %d record(s) lost", c.row.Case, c.row.Lost)
	}
	if c.row.Doubled > 0 {
		c.t.Errorf("%s: %d record(s) doubled", c.row.Case, c.row.Doubled)
	}
	if c.row.Wrong > 0 {
		c.t.Errorf("%s: %d wrong figure(s) recorded as ok: %s", c.row.Case, c.row.Wrong, strings.Join(why, "; "))
	}
}

// measured is true for the phases that are cells of a study (env and end
// are one per session).
func measured(phase job.Phase) bool {
	switch phase {
	case job.PhaseCreate, job.PhaseOpen, job.PhaseHold, job.PhaseSpace, job.PhaseDelete:
		return true
	}
	return false
}

type cell struct {
	study, variant, setting string
	layout                  job.Layout
	phase                   job.Phase
	run                     int
}

func cellOf(r results.Record) cell {
	return cell{r.Study, r.Variant, r.Setting, r.Layout, r.Phase, r.Repeat()}
}

// doubled counts the ok records beyond the first of each cell.
func doubled(recs []results.Record) int {
	n := map[cell]int{}
	extra := 0
	for _, r := range recs {
		if measured(r.Phase) && r.Status == results.StatusOK {
			n[cellOf(r)]++
			if n[cellOf(r)] > 1 {
				extra++
			}
		}
	}
	return extra
}

// configs returns each study's configuration, from its first env record.
func configs(recs []results.Record) map[string]*results.StudyConfig {
	cfg := map[string]*results.StudyConfig{}
	for _, r := range recs {
		if r.Phase == job.PhaseEnv && r.Config != nil && cfg[r.Study] == nil {
			cfg[r.Study] = r.Config
		}
	}
	return cfg
}

// wrongFigures counts the ok records whose figures cannot be the study's:
// a sample count other than its store count (or hold), another workload,
// or a store smaller on disk than the text of its notes.
func wrongFigures(recs []results.Record) (int, []string) {
	cfgs := configs(recs)
	n := 0
	var why []string
	for _, r := range recs {
		if !measured(r.Phase) || r.Status != results.StatusOK {
			continue
		}
		if w := wrongFigure(r, cfgs[r.Study]); w != "" {
			n++
			why = append(why, fmt.Sprintf("%s %s run %d: %s", r.Variant, r.Phase, r.Repeat(), w))
		}
	}
	return n, why
}

func wrongFigure(r results.Record, cfg *results.StudyConfig) string {
	if cfg == nil {
		return "no env record of study " + r.Study
	}
	stores := cfg.Stores
	samples := func(name string, got int) string {
		if got != stores {
			return fmt.Sprintf("%d %s samples for %d stores", got, name, stores)
		}
		return ""
	}
	switch {
	case r.Workload != cfg.Workload:
		return fmt.Sprintf("workload %+v, the study's is %+v", r.Workload, cfg.Workload)
	case r.Stores != 0 && r.Stores != stores:
		return fmt.Sprintf("%d stores, the study has %d", r.Stores, stores)
	}
	switch r.Phase {
	case job.PhaseCreate:
		return samples("create_ms", len(r.CreateMs))
	case job.PhaseOpen:
		for name, s := range map[string][]float64{"open_ms": r.OpenMs, "query_ms": r.QueryMs, "close_ms": r.CloseMs, "total_ms": r.TotalMs} {
			if w := samples(name, len(s)); w != "" {
				return w
			}
		}
	case job.PhaseHold:
		if r.Hold == nil || r.Hold.Held != cfg.Hold {
			return fmt.Sprintf("hold figure not of %d stores held", cfg.Hold)
		}
	case job.PhaseDelete:
		if n := job.DeleteCountOf(cfg.Deletes, stores); len(r.DeleteMs) != n || len(r.ExportMs) != n {
			return fmt.Sprintf("%d delete and %d export samples for %d agents deleted", len(r.DeleteMs), len(r.ExportMs), n)
		}
	case job.PhaseSpace:
		text := int64(cfg.Workload.Objects) * int64(cfg.Workload.TextLen)
		if r.Layout.Shared() {
			if r.SharedBytes == nil || *r.SharedBytes < text*int64(stores) {
				return fmt.Sprintf("the shared store takes %v bytes, less than its %d agents' notes' text", r.SharedBytes, stores)
			}
			return ""
		}
		if w := samples("bytes", len(r.Bytes)); w != "" {
			return w
		}
		for i, b := range r.Bytes {
			if b < text {
				return fmt.Sprintf("store %d takes %d bytes, less than its notes' %d bytes of text", i, b, text)
			}
		}
	}
	return ""
}

// completes checks that res (the same command run again) finished the
// study: exit 0, and every cell of the study recorded once.
func (c *fcase) completes(res result) {
	why := c.incomplete(res)
	if why == "" {
		c.row.Completes = "yes"
		return
	}
	c.row.Completes = "NO"
	c.row.Checks = append(c.row.Checks, c.tidy("FAILED: completes ("+why+")"))
	c.t.Errorf("%s: the same command did not complete the study: %s\n%s", c.row.Case, why, lastLines(res.stderr, 8))
}

func (c *fcase) incomplete(res result) string {
	if res.code != 0 {
		return fmt.Sprintf("%s: %s", res, lastLine(res.stderr))
	}
	recs := c.records()
	var cfg *results.StudyConfig
	id := ""
	for _, r := range recs {
		if r.Phase == job.PhaseEnv && r.Config != nil {
			id, cfg = r.Study, r.Config
		}
	}
	if cfg == nil {
		return "no env record"
	}
	n := map[cell]int{}
	for _, r := range recs {
		if r.Study == id && (r.Status == results.StatusOK || r.Status == results.StatusNotApplicable) {
			n[cellOf(r)]++
		}
	}
	for _, w := range wantCells(id, cfg) {
		if n[w] != 1 {
			return fmt.Sprintf("%s %s (%s) run %d recorded %d times", w.variant, w.phase, w.layout.Name(), w.run, n[w])
		}
	}
	return ""
}

// wantCells are the cells a study of cfg records once each: per variant,
// setting and layout its create, open runs, hold and space, and with the
// shared layout its delete; of a serve study, its create and pool steps.
func wantCells(id string, cfg *results.StudyConfig) []cell {
	layouts := job.DefaultLayouts() // a study of the default alone records none (job.RecordedLayouts)
	if len(cfg.Layouts) > 0 {
		parsed, err := job.ParseLayouts(strings.Join(cfg.Layouts, ","))
		if err == nil {
			layouts = parsed
		}
	}
	var want []cell
	for _, v := range cfg.Variants {
		for _, s := range cfg.Settings {
			for _, l := range layouts {
				want = append(want, cell{id, v, s, l, job.PhaseCreate, 0})
				if cfg.Serve != nil { // manydb serve: its stores, then a step per pool
					for step := range cfg.Serve.Pools {
						want = append(want, cell{id, v, s, l, job.PhaseServe, step + 1})
					}
					continue
				}
				for run := 1; run <= cfg.Runs; run++ {
					want = append(want, cell{id, v, s, l, job.PhaseOpen, run})
				}
				want = append(want, cell{id, v, s, l, job.PhaseHold, 0}, cell{id, v, s, l, job.PhaseSpace, 0})
				if slices.Contains(layouts, job.LayoutShared) {
					want = append(want, cell{id, v, s, l, job.PhaseDelete, 0})
				}
			}
		}
	}
	return want
}

// anyCode accepts any non-zero exit code in message.
const anyCode = -100

// message checks what the user saw: the exit code, and a stderr line that
// holds each of wants (case-insensitive; "a|b" accepts either). With
// oneLine, that line must be all of stderr.
func (c *fcase) message(res result, code int, oneLine bool, wants ...string) {
	lines := nonEmptyLines(res.stderr)
	line := ""
	for _, l := range lines {
		if holdsAll(l, wants) {
			line = l
			break
		}
	}
	shown := line
	if shown == "" {
		shown = lastLine(res.stderr)
	}
	c.row.Saw = c.tidy(fmt.Sprintf("%s: %s", res, shown))
	var bad []string
	switch {
	case code == anyCode && res.code == 0:
		bad = append(bad, "exit 0, want non-zero")
	case code != anyCode && res.code != code:
		bad = append(bad, fmt.Sprintf("%s, want exit %d", res, code))
	}
	if line == "" {
		bad = append(bad, fmt.Sprintf("no stderr line names %q", strings.Join(wants, " + ")))
	}
	if oneLine && len(lines) != 1 {
		bad = append(bad, fmt.Sprintf("%d stderr lines, want one", len(lines)))
	}
	if len(bad) == 0 {
		if c.row.Message == "" {
			c.row.Message = "yes"
		}
		return
	}
	c.row.Message = "NO"
	c.row.Checks = append(c.row.Checks, c.tidy("FAILED: message ("+strings.Join(bad, "; ")+")"))
	c.t.Errorf("%s: message: %s\nstderr:\n%s", c.row.Case, strings.Join(bad, "; "), lastLines(res.stderr, 8))
}

func holdsAll(line string, wants []string) bool {
	l := strings.ToLower(line)
	for _, w := range wants {
		any := false
		for _, alt := range strings.Split(w, "|") {
			any = any || strings.Contains(l, strings.ToLower(alt))
		}
		if !any {
			return false
		}
	}
	return true
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func lastLine(s string) string {
	l := nonEmptyLines(s)
	if len(l) == 0 {
		return "(nothing on stderr)"
	}
	return l[len(l)-1]
}

func lastLines(s string, n int) string {
	l := nonEmptyLines(s)
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// exists tells whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// filesIn lists the regular files under root other than manydb's marker.
func filesIn(root string) []string {
	var files []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != ".manydb-root" {
			files = append(files, path)
		}
		return nil
	})
	return files
}

// storeDirs counts the store folders (000000, …) under root.
func storeDirs(root string) int {
	n := 0
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && len(d.Name()) == 6 && strings.Trim(d.Name(), "0123456789") == "" {
			n++
		}
		return nil
	})
	return n
}

// findStore returns the folder of store i under root, "" if none.
func findStore(root string, i int) string {
	name, found := fmt.Sprintf("%06d", i), ""
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == name {
			found = path
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// mount mounts a tmpfs of size at dir (root only); the case skips when it
// cannot, and unmounts at its end.
func (c *fcase) mount(dir, size string) {
	if os.Geteuid() != 0 {
		c.skip("needs root to mount a tmpfs of " + size + " (run the suite as root)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		c.fatal("%v", err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		c.skip(fmt.Sprintf("cannot mount a tmpfs of %s (%v: %s)", size, err, strings.TrimSpace(string(out))))
	}
	c.t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
}

// remount changes a mounted tmpfs's options (size=…, ro, rw).
func (c *fcase) remount(dir, opts string) {
	if out, err := exec.Command("mount", "-o", "remount,"+opts, dir).CombinedOutput(); err != nil {
		c.fatal("remount %s %s: %v: %s", dir, opts, err, out)
	}
}

// TestCountHangOrPanic: manydb's own panic or fatal error counts, a
// worker's crash that manydb reports inside its line does not.
func TestCountHangOrPanic(t *testing.T) {
	for _, tt := range []struct {
		hung          bool
		stderr        string
		hangs, panics int
	}{
		{false, "panic: runtime error: index out of range\n\ngoroutine 1 [running]:\n", 0, 1},
		{false, "sqlite create: ended\nfatal error: concurrent map writes\n", 0, 1},
		{false, "manydb: sqlite open run 1 failed: worker failed: exit status 2: panic: boom\n", 0, 0},
		{false, "manydb: run: worker failed: fatal error: out of memory\n", 0, 0},
		{true, "", 1, 0},
	} {
		c := &fcase{row: &row{}}
		c.countHangOrPanic(tt.hung, tt.stderr)
		if c.row.Hangs != tt.hangs || c.row.Panics != tt.panics {
			t.Errorf("%q (hung %v): %d hangs, %d panics; want %d, %d", tt.stderr, tt.hung, c.row.Hangs, c.row.Panics, tt.hangs, tt.panics)
		}
	}
}
