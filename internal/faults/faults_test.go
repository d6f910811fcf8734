package faults

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	tableFile = flag.String("table", "", "write the fault table (Markdown) to this file")
	binFlag   = flag.String("bin", "", "use manydb and the workers in this directory instead of building them")
)

// binDir holds manydb, worker-sqlite, worker-objectbox (built without
// its library, so obx is disabled), worker-postgres and worker-sqld.
var binDir string

// TestMain builds the binaries the cases drive, runs them, then writes the
// table (to -table, and to stdout with -v).
func TestMain(m *testing.M) {
	flag.Parse()
	binDir = *binFlag
	if binDir == "" {
		// Inside the repository's bin directory: the PostgreSQL cases'
		// manydb and worker find the server installed beside them
		// (pgserver.Find).
		if err := os.MkdirAll("../../bin", 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		dir, err := os.MkdirTemp("../../bin", "faults-")
		if err == nil {
			dir, err = filepath.Abs(dir)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer os.RemoveAll(dir)
		build := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
			"../../cmd/manydb", "../../cmd/worker-sqlite", "../../cmd/worker-objectbox", "../../cmd/worker-postgres", "../../cmd/worker-sqld")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
		binDir = dir
	}
	start := time.Now()
	code := m.Run()
	if *tableFile != "" || testing.Verbose() {
		var b strings.Builder
		writeTable(&b, time.Since(start))
		if *tableFile != "" {
			if err := os.WriteFile(*tableFile, []byte(b.String()), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				code = 1
			}
		}
		if testing.Verbose() {
			fmt.Print("\n" + b.String())
		}
	}
	if binDir != *binFlag {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// faultCase is one line of the table: quick ones run under -short too.
type faultCase struct {
	name  string
	quick bool
	run   func(c *fcase)
}

var cases = []faultCase{
	{"1 reused stores of another study", false, reusedStores},
	{"2 second run on the same root and out", false, lock},
	{"3 last newline cut (truncate -s -1)", false, newlineCut},
	{"4 disk full during create", false, diskFull},
	{"5 kill during store removal", false, killDuringRemoval},
	{"6a --out inside a new data root", true, outInsideNewRoot},
	{"6b --out inside a marked data root", true, outInsideMarkedRoot},
	{"7 corrupt store", false, corruptStore},
	{"9 bad input: --stores 0", true, badInput("stores", "--stores", "0")},
	{"9 bad input: --objects -1", true, badInput("objects", "--objects", "-1")},
	{"9 bad input: --text-len -1", true, badInput("text-len", "--text-len", "-1")},
	{"9 bad input: --runs 0", true, badInput("runs", "--runs", "0")},
	{"9 bad input: --hold 300 > --stores", true, badInput("hold", "--hold", "300")},
	{"9 bad input: --engines nosuch", true, badInput("nosuch", "--engines", "nosuch")},
	{"9 bad input: --workload huge", true, badInput("huge", "--workload", "huge")},
	{"9 bad input: --settings bogus", true, badInput("bogus", "--settings", "bogus")},
	{"9 bad input: stray argument", true, badInput("stray", "stray")},
	{"9 bad input: --out is a directory", true, outIsDir},
	{"10 bounds: --objects 2^63-1", true, badInput("objects", "--objects", "9223372036854775807")},
	{"10 bounds: --text-len 2^63-1", true, badInput("text-len", "--text-len", "9223372036854775807")},
	{"10 bounds: --stores 2^63-1", true, badInput("stores", "--stores", "9223372036854775807")},
	{"SIGKILL manydb in create", false, killManydb("create")},
	{"SIGKILL manydb in open", false, killManydb("open")},
	{"SIGKILL manydb in hold", false, killManydb("hold")},
	{"SIGKILL manydb in space", false, killManydb("space")},
	{"SIGKILL worker in create", false, killWorker("create")},
	{"SIGKILL worker in open", false, killWorker("open")},
	{"SIGKILL worker in hold", false, killWorker("hold")},
	{"SIGKILL worker in space", false, killWorker("space")},
	{"stopped worker (SIGSTOP) in open", false, stoppedWorker},
	{"--procs 2: SIGKILL one hold worker", false, killSplitHold},
	{"--procs 2: SIGSTOP one hold worker", false, stopSplitHold},
	{"serve --procs 2: SIGKILL one worker", false, killSplitServe},
	{"SIGINT manydb in open", false, interrupt},
	{"SIGHUP manydb in open", false, hangUp},
	{"read-only root", true, readOnlyRoot},
	{"ulimit -n 40 below --hold", false, fewFiles},
	{"missing engine library (obx)", true, missingLibrary},
	{"31.1 symbolic link in the trash", true, trashLink},
	{"31.2 --out a foreign file", true, outForeignFile},
	{"31.3 report -o its own input", true, reportOverInput},
	{"31.5 hold record edited to null", true, nullObject},
	{"31.6 an open record copied by hand", true, duplicateCell},
	{"31.7 SIGKILL manydb in turn run 2", false, cutTurn},
	{"31.9 bad input: serve --zipf NaN", true, serveNaN("--zipf")},
	{"31.9 bad input: serve --rate NaN", true, serveNaN("--rate")},
	{"31.11 SIGKILL manydb in hold: its cgroup", false, cgroupLeak},
	{"edited record: hold of 0 stores", true, editedRecord(`"held":\d+`, `"held":0`, "hold.held is 0")},
	{"edited record: a negative time", true, editedRecord(`"total_ms":\[`, `"total_ms":[-1,`, "total_ms[0] is -1")},
	{"edited record: open_ms null", true, editedRecord(`"open_ms":\[[^\]]*\]`, `"open_ms":null`, "open_ms holds 0 samples")},
	{"edited record: 1e308 ms", true, editedRecord(`"create_ms":\[`, `"create_ms":[1e308,`, "create_ms[0] is 1e+308")},
	{"edited record: no study", true, editedRecord(`"study":"[^"]*"`, `"study":""`, `no "study"`)},
	{"edited record: hold.fds -100,000", true, editedRecord(`"fds":\d+`, `"fds":-100000`, "hold.fds is -100000")},
	{"edited record: pthread keys free -5", true, editedRecord(`"pthread_keys_free":\d+`, `"pthread_keys_free":-5`, "hold.pthread_keys_free is -5")},
	{"edited record: a layout the variant lacks", true, editedRecord(`"variant":"sqlite",`, `"variant":"sqlite_ncruces","layout":"shared",`, "which it does not have")},
	{"results.jsonl.gz cut in a line", true, cutGzip},
	{"results.jsonl cut in its last line", true, cutPlain},
	{"a line that is no record", true, notARecord},
	{"bad input: --layout one", true, badInput("--layout", "--layout", "one")},
	{"SIGKILL manydb in the shared store's create", false, killSharedCreate},
	{"disk full during the shared store's create", false, sharedDiskFull},
	{"a shared store of another study", false, sharedOfAnotherStudy},
	{"files of one's own in a study's root", false, foreignFilesInRoot},
	{"SIGKILL manydb in an export (per-agent layout)", false, killInDelete("per-agent,shared", true)},
	{"SIGKILL manydb after a delete (per-agent layout)", false, killInDelete("per-agent,shared", false)},
	{"SIGKILL manydb in an export (--layout shared)", false, killInDelete("shared", true)},
	{"SIGKILL manydb after a delete (--layout shared)", false, killInDelete("shared", false)},
	{"SIGKILL manydb in a postgres open run", false, pgKillManydb},
	{"SIGKILL postgres in an open run", false, pgKillServer},
	{"SIGKILL a postgres backend in open", false, pgKillBackend},
	{"SIGSTOP postgres in open", false, pgStopServer},
	{"bad input: a root too deep for postgres' socket", true, pgLongRoot},
	{"SIGKILL sqld in an open run", false, sqldKillServer},
	{"bad input: a root the server's user cannot enter", true, pgUnreachableRoot},
	{"postgres: disk full for initdb", false, pgDiskFull("8m", pgInitdbFull, true)},
	{"postgres: disk full in create", false, pgDiskFull("56m", pgDataFull, false)},
	{"bad input: --postgres that refuses", true, pgUserRefuses},
	{"--postgres: SIGKILL, rerun", false, pgUserServer},
}

// row is what one case measured.
type row struct {
	Case                 string
	Lost, Doubled, Wrong int
	// Hangs counts the processes of the case that ran into the suite's
	// timeout; Panics those that printed a Go panic or fatal error.
	Hangs, Panics      int
	Message, Completes string // "yes", "NO", or "" (not expected of this case)
	Checks             []string
	Saw                string // exit code and the relevant stderr line
	Skipped            string
	Attempts           int
}

var (
	tableMu sync.Mutex
	table   []*row
)

// attempts is how often a case that waits for a moment (a phase, a
// record) is tried when the moment passed before it was seen.
const attempts = 3

func TestFaults(t *testing.T) {
	for _, fc := range cases {
		t.Run(fc.name, func(t *testing.T) {
			if testing.Short() && !fc.quick {
				t.Skip("not a quick case (-short)")
			}
			r := &row{Case: fc.name}
			tableMu.Lock()
			table = append(table, r)
			tableMu.Unlock()
			c := &fcase{t: t, row: r, dir: t.TempDir()}
			t.Cleanup(func() { // after the cases' own cleanups (LIFO): every process has ended
				if r.Hangs > 0 || r.Panics > 0 {
					t.Errorf("%s: %d process(es) hung, %d panicked", r.Case, r.Hangs, r.Panics)
				}
			})
			for {
				c.fresh()
				r.Attempts = c.attempt
				m := tryCase(c, fc.run)
				if m == nil {
					return
				}
				if c.attempt == attempts {
					c.fatal("%s in %d attempts", m.what, attempts)
				}
				t.Logf("attempt %d: %s; trying again", c.attempt, m.what)
			}
		})
	}
}

// tryCase runs one attempt of a case; it returns what was missed, nil when
// the case ran to its end.
func tryCase(c *fcase, run func(*fcase)) (m *missed) {
	defer func() {
		if v := recover(); v != nil {
			mv, ok := v.(missed)
			if !ok {
				panic(v)
			}
			m = &mv
		}
	}()
	run(c)
	return nil
}

// writeTable writes the table of the cases run.
func writeTable(w io.Writer, took time.Duration) {
	fmt.Fprintf(w, "| Case | Lost | Doubled | Wrong as ok | Hangs | Panics | Clear message | Same command completes | Checks | What the user saw |\n")
	fmt.Fprintf(w, "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | --- |\n")
	cell := func(s string) string {
		if s == "" {
			return "—"
		}
		return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
	}
	tableMu.Lock()
	defer tableMu.Unlock()
	for _, r := range table {
		if r.Skipped != "" {
			fmt.Fprintf(w, "| %s | — | — | — | — | — | — | — | skipped: %s | — |\n", cell(r.Case), cell(r.Skipped))
			continue
		}
		checks := strings.Join(r.Checks, "; ")
		if r.Attempts > 1 {
			checks = strings.TrimPrefix(checks+"; "+strconv.Itoa(r.Attempts)+" attempts", "; ")
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %s | %s | %s | %s |\n", cell(r.Case), r.Lost, r.Doubled, r.Wrong,
			r.Hangs, r.Panics, cell(r.Message), cell(r.Completes), cell(checks), cell(shorten(r.Saw, 160)))
	}
	fmt.Fprintf(w, "\n%d cases in %.0f s. Lost: a record present before the fault, gone or changed after it. "+
		"Doubled: ok records beyond one per cell. Wrong as ok: ok records whose samples do not fit the study. "+
		"Hangs: processes still running at the suite's timeout (killed). Panics: processes that printed a Go panic or fatal error. "+
		"—: not expected of the case.\n", len(table), took.Seconds())
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
