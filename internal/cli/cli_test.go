package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"manydb/internal/datasource"
	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/orchestrate"
	"manydb/internal/results"
)

func options(t *testing.T) (Options, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return Options{Stdout: &out, Stderr: &errOut, BinDir: workerDir, Version: "test", Environ: os.Environ()}, &out, &errOut
}

// TestSQLiteEndToEnd runs a real study with the real SQLite worker on 20
// stores and checks the records and the printed table.
func TestSQLiteEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a study with the real SQLite worker")
	}
	needWorkers(t)
	o, out, errOut := options(t)
	dir := t.TempDir()
	resultsFile := filepath.Join(dir, "r.jsonl")
	err := Run(context.Background(), []string{"run", "--engines", "sqlite", "--stores", "20", "--runs", "2", "--hold", "10",
		"--root", filepath.Join(dir, "root"), "--out", resultsFile}, o)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, errOut)
	}
	recs, err := results.ReadFile(resultsFile)
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	for _, r := range recs {
		phases = append(phases, string(r.Phase))
		if r.Status != results.StatusOK {
			t.Errorf("%s failed: %s", r.Phase, r.Error)
		}
		switch r.Phase {
		case job.PhaseEnv:
			if r.Env["manydb"] != "test" || r.Env["kernel"] == "" {
				t.Errorf("env = %v", r.Env)
			}
		case job.PhaseCreate:
			if len(r.CreateMs) != 20 || r.Versions["sqlite"] == "" || r.Versions["github.com/mattn/go-sqlite3"] != "v1.14.53" {
				t.Errorf("create: %d samples, versions %v", len(r.CreateMs), r.Versions)
			}
		case job.PhaseOpen:
			if len(r.TotalMs) != 20 {
				t.Errorf("open run %d: %d samples", r.Run, len(r.TotalMs))
			}
		case job.PhaseHold:
			// 10 open SQLite stores with 1,000 notes each hold their pages.
			if r.Hold.Held != 10 || r.Hold.RssAfterKB <= r.Hold.RssBeforeKB {
				t.Errorf("hold = %+v", r.Hold)
			}
		case job.PhaseSpace:
			if len(r.Files) != 1 || r.Files[0] != "notes.db" || r.Bytes[0] < 300*1000 {
				t.Errorf("space: files %v, bytes %v; want notes.db of more than 1,000 × 300 bytes", r.Files, r.Bytes[:1])
			}
		}
	}
	if got := strings.Join(phases, ","); got != "env,create,open,open,hold,space,end" {
		t.Errorf("phases = %s", got)
	}
	for _, want := range []string{"| | sqlite |", "| Create, write 1,000 objects, close (median) | ", "| Memory per open store (10 open), resident | ", " KB |", " ms |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("tables lack %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "root", "default", "sqlite")); !os.IsNotExist(err) {
		t.Error("stores not removed after the study")
	}

	// manydb tables prints the same table from the file.
	o2, out2, _ := options(t)
	if err := Run(context.Background(), []string{"tables", resultsFile}, o2); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), strings.TrimSpace(out2.String())) {
		t.Errorf("manydb tables printed\n%s\nbut the run printed\n%s", out2, out)
	}
}

func TestBadCommandLines(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign")
	os.Mkdir(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "thesis.tex"), []byte("mine"), 0o644)
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"schema\":1,\"study\":\"s\",\"variant\":\"v\",\"phase\":\"create\",\"status\":\"n/a\"}\nnot json\n"), 0o644)
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	t.Setenv("MANYDB_CACHE", filepath.Join(dir, "cache"))
	vecs8 := filepath.Join(dir, "eight.fvecs")
	writeVectors(t, vecs8, 300, 8, 1)
	nanVecs := filepath.Join(dir, "nan.fvecs")
	writeVectors(t, nanVecs, 300, 8, float32(math.NaN()))
	cutNPY := filepath.Join(dir, "cut.npy")
	os.WriteFile(cutNPY, []byte("\x93NUMPY\x01\x00"), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"run", "--engines", "oracle"}, `unknown engine "oracle"`},
		{[]string{"run", "--stores", "many"}, `invalid value "many" for flag -stores: "many": give a number or a comma-separated list`},
		{[]string{"run", "--engines", "sqlite", "--stores", "100,x"}, `invalid value "100,x" for flag -stores: "x": give a number`},
		{[]string{"run", "--engines", "sqlite", "--stores", "10,20,10", "--root", filepath.Join(dir, "r")}, "invalid value \"10,20,10\" for flag -stores: 10 is listed twice"},
		{[]string{"run", "--engines", "sqlite", "--stores", "10,20", "--hold", "1,30", "--root", filepath.Join(dir, "r")}, "--hold 30"},
		{[]string{"run", "--engines", "sqlite", "--stores", "10,20", "--turns", "1", "--root", filepath.Join(dir, "r")}, "--turns with several --stores counts"},
		{[]string{"run", "--engines", "sqlite", "--stores", "10", "--fanout", "4", "--root", filepath.Join(dir, "r")}, "--fanout 4"},
		{[]string{"run", "--engines", "sqlite", "--workload", "huge"}, `unknown workload "huge"`},
		{[]string{"run", "--engines", "sqlite", "--data", "glove", "--root", filepath.Join(dir, "r")}, `run: --data "glove": use synthetic`},
		{[]string{"serve", "--engines", "sqlite", "--data", "glove", "--root", filepath.Join(dir, "r")}, `serve: --data "glove": use synthetic`},
		{[]string{"profile", "--engine", "sqlite", "--data", "glove", "--root", filepath.Join(dir, "r")}, `profile: --data "glove": use synthetic`},
		{[]string{"run", "--engines", "sqlite", "--stores", "5", "--hold", "6", "--root", filepath.Join(dir, "r")}, "--hold 6"},
		{[]string{"run", "--engines", "sqlite", "--data", "glove50", "--dims", "50", "--root", filepath.Join(dir, "r"), "--bin", dir}, "is missing: run 'make build'"},
		{[]string{"run", "--engines", "sqlite", "--data", "glove50", "--dims", "50", "--topic-pool", "5", "--root", filepath.Join(dir, "r")}, "--data glove50 has its own"},
		{[]string{"run", "--engines", "sqlite", "--data", vecs8, "--dims", "16", "--stores", "5", "--root", filepath.Join(dir, "r")}, "8 dims, --dims asks for 16"},
		{[]string{"run", "--engines", "sqlite", "--data", vecs8, "--dims", "8", "--stores", "5", "--objects", "400", "--root", filepath.Join(dir, "r")}, "--objects asks for 400"},
		{[]string{"run", "--engines", "sqlite", "--data", nanVecs, "--dims", "8", "--stores", "5", "--root", filepath.Join(dir, "r")}, "nan.fvecs: vector 1 holds NaN"},
		{[]string{"run", "--engines", "sqlite", "--data", cutNPY, "--dims", "8", "--stores", "5", "--root", filepath.Join(dir, "r")}, "cut.npy: a cut .npy header"},
		{[]string{"profile", "--engine", "sqlite", "--data", vecs8, "--root", filepath.Join(dir, "r")}, "profile: data source file: store 1's topics hold"},
		{[]string{"run", "--engines", "sqlite", "--data", filepath.Join(dir, "none.npy"), "--root", filepath.Join(dir, "r")}, "none.npy"},
		{[]string{"run", "--engines", "sqlite", "--stores", "5", "--root", foreign}, "not empty and has no .manydb-root marker"},
		{[]string{"run", "--engines", "sqlite", "--stores", "5", "--root", filepath.Join(dir, "r"), "--bin", dir}, "worker binary"},
		{[]string{"env", "extra"}, `env: unexpected argument "extra"`},
		{[]string{"env", "--cache-check", "-3"}, "env: --cache-check -3 --cache-wait 2m0s: give a positive size in MB and a positive duration"},
		{[]string{"env", "--cache-check", "10", "--cache-wait", "0s"}, "give a positive size in MB and a positive duration"},
		{[]string{"env", "--cache-check", "999999999"}, "more than half the available memory"},
		{[]string{"engines", "extra"}, `engines: unexpected argument "extra"`},
		{[]string{"serve", "--pool-time", "-1s"}, "--pool-time -1s"},
		{[]string{"serve", "--memory-max", "1X"}, `--memory-max "1X": not a size (invalid suffix: 'x')`},
		{[]string{"serve", "--memory-max", "9999999999T"}, `--memory-max "9999999999T": more than 1PiB`},
		{[]string{"serve", "--memory-max", "1e30"}, `--memory-max "1e30": more than 1PiB`},
		{[]string{"serve", "--memory-max", "1M"}, `--memory-max "1M"`},
		{[]string{"serve", "--memory-max", "-1G"}, `--memory-max "-1G"`},
		{[]string{"tables"}, "name at least one results file"},
		{[]string{"tables", bad}, bad + ":2: not a manydb record"},
		{[]string{"tables", filepath.Join(dir, "none.jsonl")}, "no such file"},
		{[]string{"tables", empty}, empty + " holds no manydb records"},
		{[]string{"tables", dir}, dir + " is a directory: name a results file"},
		{[]string{"report", "-o", dir, empty}, "-o " + dir + " is a directory: name an HTML file"},
		{[]string{"report", "-o", filepath.Join(dir, "none", "r.html"), "../report/testdata/study.jsonl"}, "cannot write -o " + filepath.Join(dir, "none", "r.html")},
		{[]string{"run", "--queries", "count,sum"}, `unknown query "sum"`},
		{[]string{"run", "--engines", "sqlite", "--knn-oversample", "4"}, "--knn-oversample 4: it changes the knn query, which needs --dims"},
		{[]string{"run", "--engines", "sqlite", "--dims", "8", "--knn-oversample", "0"}, "--knn-oversample 0: give how many times 10 notes"},
		{[]string{"run", "--engines", "sqlite", "--topic-pool", "5"}, "--topic-pool and --note-spread shape the embeddings: give --dims too"},
		{[]string{"run", "--engines", "sqlite", "--dims", "8", "--topic-pool", "-1"}, "--topic-pool -1: give the number of topic centres"},
		{[]string{"run", "--engines", "sqlite", "--dims", "8", "--note-spread", "0"}, "--note-spread 0: give the noise around a topic's centre, above 0"},
		{[]string{"run", "--queries", "count,count"}, "count is listed twice"},
		{[]string{"run", "--hold", "1,,2"}, `invalid value "1,,2" for flag -hold: "1,,2" has an empty item`},
		{[]string{"serve", "--pool", "0,10%,10%"}, `invalid value "0,10%,10%" for flag -pool: 10% is listed twice`},
		{[]string{"run", "--engines", "sqlite", "--stores", "5", "--deletes", "2", "--root", filepath.Join(dir, "r")}, "--deletes 2: only a study with the shared layout"},
		{[]string{"run", "--engines", "sqlite", "--stores", "5", "--layout", "shared", "--deletes", "5", "--root", filepath.Join(dir, "r")}, "--deletes 5: give how many agents the delete phase exports and deletes, 1 to 4 of the 5 stores"},
		{[]string{"run", "--engines", "sqlite", "--queries", "count,knn"}, "--queries knn needs embeddings: give --dims"},
		{[]string{"run", "--engines", "sqlite", "--stores", "5", "--procs", "0", "--root", filepath.Join(dir, "r")}, `--procs "0": give the worker processes, 1 or more, or auto`},
		{[]string{"run", "--engines", "sqlite", "--stores", "5", "--procs", "NaN", "--root", filepath.Join(dir, "r")}, `--procs "NaN"`},
		{[]string{"run", "--engines", "sqlite", "--stores", "5", "--hold", "4", "--procs", "5", "--root", filepath.Join(dir, "r")}, "--procs 5: split the 4 held stores over 1 to 4 processes"},
		{[]string{"run", "--engines", "sqlite", "--stores", "5", "--procs", "auto", "--layout", "shared", "--root", filepath.Join(dir, "r")}, "with --layout shared"},
		{[]string{"run", "--engines", "sqlite", "--stores", "5", "--root", filepath.Join(dir, "r"), "--cache", "lukewarm"}, `unknown mode "lukewarm"`},
		{[]string{"run", "--engines", "sqlite", "--stores", "5", "--root", filepath.Join(dir, "r"), "--turns", "-1"}, "--turns -1"},
		{[]string{"tables", "--format", "xml", empty}, `unknown --format "xml"`},
		{[]string{"compare", bad}, "name two results files"},
		{[]string{"report", bad}, "name the output and at least one results file"},
		{[]string{"report", "-o", filepath.Join(dir, "r.html"), empty}, empty + " holds no manydb records"},
		{[]string{"compare", bad, empty}, bad + ":2: not a manydb record"},
		{[]string{"compare", filepath.Join(dir, "none.jsonl") + ":obx", empty}, "no such file"},
		{[]string{"compare", "../report/testdata/study.jsonl:sqlite sideways", "../report/testdata/study.jsonl"}, `study.jsonl:sqlite sideways: a variant's layout is one of per-agent, shared`},
		{[]string{"compare", "../report/testdata/study.jsonl:nosuch", "../report/testdata/study.jsonl"}, "study.jsonl:nosuch: no variant nosuch in the records (they have "},
		{[]string{"run", "--engines", "sqlite", "--root", filepath.Join(dir, "r"), "--out", filepath.Join(dir, "r")}, "--out " + filepath.Join(dir, "r") + " is also --root"},
		{[]string{"run", "--engines", "all,sqlite"}, "cannot be listed with others"},
		{[]string{"run", "--engines", "sqlite,all"}, "cannot be listed with others"},
		{[]string{"run", "--engines", "sqlite", "--root", filepath.Join(dir, "r"), "--out", dir}, "is a directory"},
		{[]string{"run", "--engines", "sqlite", "--root", filepath.Join(dir, "r"), "--out", filepath.Join(dir, "r", "x.jsonl")}, "inside the data root"},
		{[]string{"run", "--engines", "sqlite", "--root", filepath.Join(dir, "r"), "--objects", "9223372036854775807"}, "more than half of this machine's"},
		{[]string{"replica", "--agents", "0", "--root", filepath.Join(dir, "r")}, "replica: --agents 0: give at least 1"},
		{[]string{"replica", "--text-len", "10", "--root", filepath.Join(dir, "r")}, "--text-len 10"},
		{[]string{"replica", "--root", foreign}, "replica: " + foreign + " exists"},
		{[]string{"replica", "--root", filepath.Join(dir, "r"), "--out", bad}, "bad.jsonl exists"},
		{[]string{"replica", "--root", filepath.Join(dir, "r"), "stray"}, `unexpected argument "stray"`},
	}
	for _, tt := range tests {
		o, _, _ := options(t)
		err := Run(context.Background(), tt.args, o)
		var in *job.InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want an InputError with %q", tt.args, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: error is not one line: %q", tt.args, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, "thesis.tex")); string(b) != "mine" {
		t.Error("a foreign root was touched")
	}
	if _, err := os.Stat(filepath.Join(dir, "r")); !os.IsNotExist(err) {
		t.Errorf("bad input created the data root %s (%v)", filepath.Join(dir, "r"), err)
	}
}

// writeVectors writes n vectors of dims values to a .fvecs file: first
// the value first, then values of their own.
func writeVectors(t *testing.T, path string, n, dims int, first float32) {
	t.Helper()
	var b []byte
	for i := range n {
		b = binary.LittleEndian.AppendUint32(b, uint32(dims))
		for d := range dims {
			v := float32(math.Sin(float64(i*dims + d + 1)))
			if i == 0 && d == 0 {
				v = first
			}
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// --memory-max takes sizes as docker's --memory does: powers of 1,024.
func TestParseMemoryMax(t *testing.T) {
	for in, want := range map[string]int64{"": 0, "1G": 1 << 30, "1g": 1 << 30, "1GiB": 1 << 30, "512M": 512 << 20, "1.5G": 3 << 29, "16M": 16 << 20, "33554432": 32 << 20} {
		got, err := parseMemoryMax(in)
		if err != nil || got != want {
			t.Errorf("parseMemoryMax(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"1X", "15M", "-1G", "0", "G", "1 G B"} {
		if _, err := parseMemoryMax(in); err == nil {
			t.Errorf("parseMemoryMax(%q): no error", in)
		}
	}
}

func TestHelp(t *testing.T) {
	o, out, _ := options(t)
	if err := Run(context.Background(), []string{"run", "--help"}, o); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"-engines", "-stores", "-runs", "-hold", "-root", "-out", "-workload", "-objects", "-text-len", "-keep"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("run --help lacks %s", flag)
		}
	}
}

// TestServeHelpNamesNoSharedServe: serve's help names the variants whose
// shared store the catalog says cannot serve concurrent requests, and no
// other.
func TestServeHelpNamesNoSharedServe(t *testing.T) {
	var ids []string
	for _, f := range engine.Catalog() {
		ids = append(ids, slices.Collect(maps.Keys(f.NoSharedServe))...)
	}
	slices.Sort(ids)
	want := "one connection for all agents (" + strings.Join(ids, ", ") + ")"
	if !strings.Contains(strings.Join(strings.Fields(serveSynopsis), " "), want) {
		t.Errorf("serve --help does not say %q", want)
	}
}

// TestDataHelp: the commands that write stores list the registry's data
// sources in --data's help.
func TestDataHelp(t *testing.T) {
	for _, cmd := range []string{"run", "serve", "profile"} {
		o, out, _ := options(t)
		if err := Run(context.Background(), []string{cmd, "--help"}, o); err != nil {
			t.Fatal(err)
		}
		for _, e := range datasource.Entries() {
			if !strings.Contains(out.String(), "-data") || !strings.Contains(out.String(), e.Name+" ("+e.About) {
				t.Errorf("%s --help does not list data source %s under --data", cmd, e.Name)
			}
		}
	}
}

func TestEnvListsEnvironmentAndEngineVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("asks every worker for its engine versions")
	}
	needWorkers(t)
	o, out, _ := options(t)
	if err := Run(context.Background(), []string{"env", "--root", t.TempDir()}, o); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kernel ", "root_fs ", "thp ", "page_cache_reclaim ", "manydb                                   test", "worker-sqlite sqlite "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("env output lacks %q:\n%s", want, out)
		}
	}
}

// TestEnvCacheCheck: --cache-check writes its files in a directory of its
// own under the root, samples them until the wait and removes it,
// leaving what was there.
func TestEnvCacheCheck(t *testing.T) {
	o, out, _ := options(t)
	root := t.TempDir()
	mine := filepath.Join(root, "mine")
	if err := os.WriteFile(mine, []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), []string{"env", "--root", root, "--cache-check", "2", "--cache-wait", "50ms"}, o); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cache check: 2 MB in files of 344 KB under " + root, "after    0 s: 100.0 % resident", "kept: 100.0 % still resident"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("env --cache-check output lacks %q:\n%s", want, out)
		}
	}
	entries, err := os.ReadDir(root)
	if err != nil || len(entries) != 1 || entries[0].Name() != "mine" {
		t.Errorf("root after the check: %v (%v), want only the file that was there", entries, err)
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{&job.InputError{Msg: "bad flag"}, 2},
		{fmt.Errorf("run: %w", &job.InputError{Msg: "--stores 0: create at least one store"}), 2},
		{fmt.Errorf("run: %w", &orchestrate.Failed{Phases: []string{"libsql open run 2"}}), 3},
		{errors.New("disk on fire"), 1},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
