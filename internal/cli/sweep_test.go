package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
)

// TestSweepBadInput: each bad sweep is one line, an input error (exit
// 2), and makes nothing: no results directory.
func TestSweepBadInput(t *testing.T) {
	dir := t.TempDir()
	vecs := filepath.Join(dir, "mine.fvecs")
	writeVectors(t, vecs, 200, 16, 0.5)
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no run flags", []string{"--dir", out}, "give the studies' run flags after --"},
		{"quick and total", []string{"--quick", "--total", "500", "--dir", out, "--", "--dims", "16"}, "--quick is --total"},
		{"a flag the sweep sets", []string{"--dir", out, "--", "--dims", "16", "--stores", "5", "--objects", "3"}, "--objects, --stores: set by the sweep"},
		{"no agents", []string{"--agents", "0", "--total", "100", "--dir", out, "--", "--dims", "16"}, "--agents 0 with --total 100"},
		{"more agents than notes", []string{"--agents", "10,500", "--total", "400", "--dir", out, "--", "--dims", "16"}, "--agents 500 with --total 400"},
		{"no embeddings", []string{"--total", "100", "--dir", out, "--", "--engines", "bbolt"}, "give --dims"},
		{"a file without a total", []string{"--dir", out, "--", "--data", vecs, "--dims", "16"}, "has no default total"},
		{"a bad run flag", []string{"--dir", out, "--", "--dims", "16", "--nope"}, "flag provided but not defined: -nope"},
		{"a bad agent list", []string{"--agents", "10,x", "--dir", out, "--", "--dims", "16"}, "--agents:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, _, _ := options(t)
			err := Run(context.Background(), append([]string{"sweep"}, c.args...), o)
			var in *job.InputError
			if !errors.As(err, &in) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v, want one line of bad input with %q", err, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("the bad sweep made %s", out)
			}
		})
	}
}

// TestSweepEndToEnd runs a sweep of the real bbolt worker in both layouts
// over a file of the user's vectors: one study per agent count, the notes
// divided (100 and 10 per agent), enough warm runs for the queries, no
// delete phase, every answer exact; run again, it resumes and records
// nothing new.
func TestSweepEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two studies with the real bbolt worker")
	}
	needWorkers(t)
	dir := t.TempDir()
	t.Setenv("MANYDB_CACHE", filepath.Join(dir, "cache"))
	vecs := filepath.Join(dir, "mine.fvecs")
	writeVectors(t, vecs, 2000, 16, 0.5)
	out := filepath.Join(dir, "out")
	args := []string{"sweep", "--total", "400", "--agents", "40,4", "--queries", "20", "--dir", out,
		"--", "--engines", "bbolt", "--layout", "per-agent,shared", "--data", vecs, "--dims", "16", "--root", filepath.Join(dir, "root")}
	o, stdout, errOut := options(t)
	if err := Run(context.Background(), args, o); err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, errOut)
	}
	for agents, want := range map[int]struct{ objects, runs int }{4: {100, 5}, 40: {10, 1}} {
		checkSweepStudy(t, filepath.Join(out, fmt.Sprintf("agents-%d.jsonl", agents)), agents, want.objects, want.runs)
	}
	if s := stdout.String(); !strings.Contains(s, "4 agents × 100 | 40 agents × 10") || !strings.Contains(s, "| bbolt shared | 100.0 % | 100.0 % |") {
		t.Errorf("the sweep's tables lack the two counts or bbolt's exact recall:\n%s", s)
	}
	before := countRecords(t, out)
	o, _, errOut = options(t)
	if err := Run(context.Background(), args, o); err != nil {
		t.Fatalf("the same sweep again: %v\nstderr:\n%s", err, errOut)
	}
	if after := countRecords(t, out); after != before {
		t.Errorf("the same sweep again measured %d records more", after-before)
	}
}

// checkSweepStudy checks the records of a sweep's study of agents agents.
func checkSweepStudy(t *testing.T, file string, agents, objects, runs int) {
	t.Helper()
	recs, err := results.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	opens := map[string]int{}
	for _, r := range recs {
		switch {
		case r.Phase == job.PhaseEnv:
			if c := r.Config.AgentSweep; c == nil || c.Total != 400 || !r.Config.NoDelete || r.Config.Workload.Objects != objects || !r.Config.Workload.Split {
				t.Errorf("%s: env config %+v, want the sweep of 400 notes, %d each, split, no delete", file, r.Config, objects)
			}
		case !r.Workload.Split:
			t.Errorf("%s: the worker of %s did not divide the notes among the stores (workload %+v)", file, r.Phase, r.Workload)
		case r.Phase == job.PhaseDelete:
			t.Errorf("%s: a delete phase ran", file)
		case r.Status != results.StatusOK:
			t.Errorf("%s: %s %s: %s", file, r.Phase, r.Status, r.Error)
		case r.Phase == job.PhaseOpen:
			opens[r.Layout.Mark(r.Variant, " ")]++
			for _, x := range r.Recall {
				if x != 1 {
					t.Errorf("%s: an exact search's recall %v", file, r.Recall)
					break
				}
			}
		}
	}
	for _, col := range []string{"bbolt", "bbolt shared"} {
		if opens[col] != runs {
			t.Errorf("%s: %s made %d warm runs, want %d (%d agents, 20 queries)", file, col, opens[col], runs, agents)
		}
	}
}

// countRecords counts the measured records (not a session's env and end)
// of every results file in dir.
func countRecords(t *testing.T, dir string) int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	n := 0
	for _, f := range files {
		recs, err := results.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if r.Phase != job.PhaseEnv && r.Phase != job.PhaseEnd {
				n++
			}
		}
	}
	return n
}
