package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"manydb/internal/job"
	"manydb/internal/orchestrate"
	"manydb/internal/pgserver"
	"manydb/internal/results"

	"github.com/jackc/pgx/v5"
)

// pgStudy is the study of the PostgreSQL cases: both layouts;
// pgUserStudy, on a user's server, the layout per agent alone (the
// default, whose databases manydb must make and drop as well).
var (
	pgStudy     = shared(study{Engines: "postgres", Stores: 150, Objects: 20, TextLen: 50, Runs: 2, Hold: 50})
	pgUserStudy = study{Engines: "postgres", Stores: 150, Objects: 20, TextLen: 50, Runs: 2, Hold: 50}
)

// pgReady skips the case when the server is not installed beside the
// binaries, and opens the case's directory to the server's user (it
// runs as another user under root; a test's temporary directory is
// 0700).
func pgReady(c *fcase) {
	if _, ok := pgserver.Find(binDir); !ok {
		c.skip("PostgreSQL is not installed (make build runs scripts/fetch-postgres.sh)")
	}
	for _, d := range []string{c.dir, filepath.Dir(c.dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			c.fatal("open %s to the server's user: %v", d, err)
		}
	}
}

// serverDir is the directory of the study's server in c's root.
func (c *fcase) serverDir() string { return filepath.Join(c.root, orchestrate.ServerDirName) }

// serverProcesses lists the processes of the server in c's root: the
// postmaster (its command line names its data directory) and its
// backends (their working directory is the data directory).
func (c *fcase) serverProcesses() []int {
	data := filepath.Join(c.serverDir(), "data")
	return processesWhere(func(prog, cmdline, cwd string) bool {
		return strings.Contains(cmdline, data) || strings.HasPrefix(cwd, data)
	})
}

// processesWhere lists the processes for which match holds of their
// program, command line and working directory.
func processesWhere(match func(prog, cmdline, cwd string) bool) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		cwd, _ := os.Readlink("/proc/" + e.Name() + "/cwd")
		prog, _, _ := strings.Cut(string(cmdline), "\x00")
		if match(prog, string(cmdline), cwd) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// noServerLeft checks that no process of the server is left (given a
// few seconds to end) and that its directory is gone.
func (c *fcase) noServerLeft(when string) {
	c.noneLeft("PostgreSQL", c.serverProcesses, c.serverDir(), when)
}

// noneLeft checks that list finds no process of server what (given a few
// seconds to end) and that its directory dir is gone.
func (c *fcase) noneLeft(what string, list func() []int, dir, when string) {
	var left []int
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if left = list(); len(left) == 0 || time.Now().After(end) {
			break
		}
	}
	c.expect(len(left) == 0, "no %s process left %s (%d found)", what, when, len(left))
	_, err := os.Stat(dir)
	c.expect(os.IsNotExist(err), "no %s directory left %s", what, when)
}

// SIGKILL of manydb while a postgres open run's worker runs: the server
// quits with it; the same command starts one server again, makes the
// stores again and completes the study; nothing is left after it.
func pgKillManydb(c *fcase) {
	pgReady(c)
	p := c.start(pgStudy.args(c.root, c.out)...)
	c.caught(p.waitWorker("open") != 0, "the open run ended before it was seen")
	p.kill(syscall.SIGKILL)
	p.wait()
	c.snapshot()
	var left []int
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if left = c.serverProcesses(); len(left) == 0 || time.Now().After(end) {
			break
		}
	}
	c.expect(len(left) == 0, "the server quits with a killed manydb (%d processes left)", len(left))
	res := c.run(pgStudy.args(c.root, c.out)...)
	c.message(res, 0, false, "resum")
	c.expect(strings.Count(res.stderr, "postgres: PostgreSQL") == 1, "the rerun starts one server")
	c.completes(res)
	c.audit()
	c.noServerLeft("after the rerun")
}

// SIGKILL of the PostgreSQL server during an open run: that run fails
// naming PostgreSQL, the phases after it fail saying the server exited,
// none is recorded ok; the same command starts a new server and
// completes the study.
func pgKillServer(c *fcase) {
	pgReady(c)
	p, pid := pgStartInOpen(c)
	syscall.Kill(pid, syscall.SIGKILL)
	res := p.wait()
	c.message(res, 3, false, "failed")
	var failedOpen, exited, okAfter bool
	for _, r := range c.snapshot() {
		switch {
		case r.Phase == job.PhaseOpen && r.Status == results.StatusFailed && strings.Contains(r.Error, "PostgreSQL"):
			failedOpen = true
		case r.Status == results.StatusFailed && strings.Contains(r.Error, "the server exited"):
			exited = true
		}
	}
	okAfter = c.okAfterFailure()
	c.expect(failedOpen, "the open run fails, naming PostgreSQL")
	c.expect(exited, "the phases after it fail: the server exited")
	c.expect(!okAfter, "no phase after the server's death is recorded ok")
	c.completes(c.run(pgStudy.args(c.root, c.out)...))
	c.audit()
	c.noServerLeft("after the rerun")
}

// SIGKILL of one PostgreSQL backend (not the postmaster) during an open
// run: PostgreSQL ends the others and recovers; the run that saw the
// crash fails, the phases after it wait for the recovery (saying so) and
// are recorded ok, and the same command completes the study.
func pgKillBackend(c *fcase) {
	pgReady(c)
	p, postmaster := pgStartInOpen(c)
	killed := false
	for _, pid := range c.serverProcesses() {
		if pid != postmaster && !killed {
			killed = syscall.Kill(pid, syscall.SIGKILL) == nil
		}
	}
	c.caught(killed, "no backend to kill")
	res := p.wait()
	c.message(res, 3, false, "failed")
	failed := 0
	for _, r := range c.records() {
		if r.Status == results.StatusFailed {
			failed++
		}
	}
	c.expect(failed == 1, "only the run that saw the crash fails (%d failed)", failed)
	c.expect(c.okAfterFailure(), "a phase after the crash is recorded ok: it waited for the recovery")
	c.completes(c.run(pgStudy.args(c.root, c.out)...))
	c.audit()
	c.noServerLeft("after the rerun")
}

// SIGSTOP of the server's postmaster during an open run: the run fails
// at once naming the stopped postmaster (not after the stall limit, with
// "no progress"), as do the phases after it; the study's end continues
// and stops the server, and the same command completes the study.
func pgStopServer(c *fcase) {
	pgReady(c)
	p, pid := pgStartInOpen(c)
	syscall.Kill(pid, syscall.SIGSTOP)
	res := p.wait()
	c.message(res, 3, false, "open run", "postmaster", "is stopped")
	named, stalled := false, false
	for _, r := range c.snapshot() {
		named = named || r.Phase == job.PhaseOpen && r.Status == results.StatusFailed && strings.Contains(r.Error, "is stopped")
		stalled = stalled || strings.Contains(r.Error, "no progress")
	}
	c.expect(named, "the open run's failed record names the stopped postmaster")
	c.expect(!stalled, "no record waited for the stall limit (no progress)")
	c.expect(!c.okAfterFailure(), "no phase after the stop is recorded ok")
	c.noServerLeft("after the stopped run")
	c.completes(c.run(pgStudy.args(c.root, c.out)...))
	c.audit()
	c.noServerLeft("after the rerun")
}

// pgStartInOpen starts pgStudy in c's root and returns it once its open
// run is under way, with the pid of its server's postmaster.
func pgStartInOpen(c *fcase) (*proc, int) {
	p := c.start(pgStudy.args(c.root, c.out)...)
	c.caught(p.waitWorker("open") != 0, "the open run ended before it was seen")
	b, err := os.ReadFile(filepath.Join(c.serverDir(), "data", "postmaster.pid"))
	if err != nil {
		c.fatal("the server's pid: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	return p, pid
}

// okAfterFailure tells whether a phase's record of the results file is
// ok after the first failed one of the same layout.
func (c *fcase) okAfterFailure() bool {
	failed := map[bool]bool{}
	for _, r := range c.records() {
		switch {
		case r.Status == results.StatusFailed:
			failed[r.Layout.Shared()] = true
		case r.Status == results.StatusOK && failed[r.Layout.Shared()] && slices.Contains(job.WorkerPhases(), r.Phase):
			return true
		}
	}
	return false
}

// A root too deep for the server's Unix socket: one line, exit 2, nothing
// created.
func pgLongRoot(c *fcase) {
	if _, ok := pgserver.Find(binDir); !ok {
		c.skip("PostgreSQL is not installed (make build runs scripts/fetch-postgres.sh)")
	}
	root := filepath.Join(c.dir, strings.Repeat("r", 100))
	res := c.run(pgStudy.args(root, c.out)...)
	c.message(res, 2, true, "socket", "--root")
	c.expect(!exists(root) && !exists(c.out), "nothing created")
}

// A root below a folder of mode 0700 (as mktemp -d makes one), which the
// server's user cannot enter when manydb runs as root: refused before the
// study starts, naming that folder and the fix, nothing created.
func pgUnreachableRoot(c *fcase) {
	pgReady(c)
	if os.Geteuid() != 0 {
		c.skip("manydb is not root: the server runs as manydb's own user")
	}
	private, err := os.MkdirTemp("", "manydb-") // as mktemp -d: 0700, and short enough for the socket
	if err != nil {
		c.fatal("%v", err)
	}
	c.t.Cleanup(func() { os.RemoveAll(private) })
	root := filepath.Join(private, "root")
	res := c.run(pgStudy.args(root, c.out)...)
	c.message(res, 2, true, "cannot enter "+private+" ", "chmod o+x")
	c.expect(!exists(root) && !exists(c.out), "nothing created")
}

// A full disk under the server's data: too small for initdb, the server
// does not start and the postgres phases fail with initdb's words while
// sqlite's run; with room for the server but not for the stores, the
// server's own complaint (a full disk) is in the failed record. Each
// time nothing of the server is left, and the same command completes the
// study once the disk has room.
func pgDiskFull(size string, s study, sqliteRuns bool) func(c *fcase) {
	return func(c *fcase) {
		pgReady(c)
		c.mount(c.root, size)
		res := c.run(s.args(c.root, c.out)...)
		c.message(res, 3, false, "No space left on device")
		var pgFailed, sqliteOK bool
		for _, r := range c.snapshot() {
			pgFailed = pgFailed || r.Variant == "postgres" && r.Status == results.StatusFailed && strings.Contains(r.Error, "No space left on device")
			sqliteOK = sqliteOK || r.Variant == "sqlite" && r.Status == results.StatusOK
		}
		c.expect(pgFailed, "a postgres phase fails, naming the full disk")
		if sqliteRuns {
			c.expect(sqliteOK, "sqlite's phases run")
		}
		c.noServerLeft("after the full disk")
		c.remount(c.root, "size=512m")
		c.completes(c.run(s.args(c.root, c.out)...))
		c.audit()
		c.noServerLeft("after the rerun")
	}
}

// The studies of the full-disk cases: one whose stores fit in a few
// megabytes beside sqlite's, and one whose stores do not fit beside the
// server's own files.
var (
	pgInitdbFull = study{Engines: "sqlite,postgres", Workload: "small", Stores: 20, Runs: 1, Hold: 5, Extra: []string{"--skip-space-check"}}
	pgDataFull   = study{Engines: "postgres", Stores: 150, Runs: 1, Hold: 5, Extra: []string{"--skip-space-check"}}
)

// --postgres DSN that cannot be reached: one line, exit 2, nothing made.
func pgUserRefuses(c *fcase) {
	if _, ok := pgserver.Find(binDir); !ok {
		c.skip("PostgreSQL is not installed (make build runs scripts/fetch-postgres.sh)")
	}
	s := pgStudy
	s.Extra = append(slices.Clip(s.Extra), "--postgres", "host="+filepath.Join(c.dir, "nowhere")+" user=me dbname=postgres")
	res := c.run(s.args(c.root, c.out)...)
	c.message(res, 2, true, "--postgres", "cannot connect")
	c.expect(!exists(c.root) && !exists(c.out), "nothing created")
}

// A server of the user's (--postgres): SIGKILL of manydb in an open run,
// then the same command completes the study on it; afterwards the server
// holds the user's databases and no other, the user's data untouched,
// and manydb started no server of its own.
func pgUserServer(c *fcase) {
	pgReady(c)
	dir, err := os.MkdirTemp("", "pgu") // short: the socket's path has 107 bytes
	if err == nil {
		defer os.RemoveAll(dir)
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		c.fatal("the user's server's directory: %v", err)
	}
	srv, err := pgserver.Start(pgserver.Config{Bin: mustFind(c), Dir: filepath.Join(dir, "pg")})
	if err != nil {
		c.fatal("start the user's server: %v", err)
	}
	defer srv.Stop()
	admin := srv.DSN("postgres")
	c.sql(admin, "CREATE DATABASE keepme")
	c.sql(srv.DSN("keepme"), "CREATE TABLE t AS SELECT 42 AS x")
	s := pgUserStudy
	s.Extra = []string{"--postgres", admin}
	p := c.start(s.args(c.root, c.out)...)
	c.caught(p.waitWorker("open") != 0, "the open run ended before it was seen")
	p.kill(syscall.SIGKILL)
	p.wait()
	c.snapshot()
	res := c.run(s.args(c.root, c.out)...)
	c.completes(res)
	c.audit()
	c.expect(!strings.Contains(res.stderr, "started as user"), "manydb starts no server of its own")
	c.expect(c.sql(admin, "SELECT string_agg(datname, ' ' ORDER BY datname) FROM pg_database WHERE NOT datistemplate") == "keepme postgres",
		"the user's server holds the user's databases only")
	c.expect(c.sql(srv.DSN("keepme"), "SELECT x FROM t") == "42", "the user's data is untouched")
}

// mustFind returns the server's programs' directory.
func mustFind(c *fcase) string {
	bin, ok := pgserver.Find(binDir)
	if !ok {
		c.skip("PostgreSQL is not installed (make build runs scripts/fetch-postgres.sh)")
	}
	return bin
}

// sql runs q on the server at dsn and returns its one value as text.
func (c *fcase) sql(dsn, q string) string {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		c.fatal("connect to the user's server: %v", err)
	}
	defer conn.Close(ctx)
	var out any
	if err := conn.QueryRow(ctx, q).Scan(&out); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		c.fatal("%s: %v", q, err)
	}
	if out == nil {
		return ""
	}
	return fmt.Sprint(out)
}
