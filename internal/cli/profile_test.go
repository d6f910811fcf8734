package cli

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
)

// TestProfileSQLiteEndToEnd profiles the real SQLite worker on 10 stores,
// on the disk and, where there is one, on /dev/shm; with strace (and
// ptrace allowed) it checks that SQLite's commits sync on both media.
func TestProfileSQLiteEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a profile with the real SQLite worker")
	}
	needWorkers(t)
	o, out, errOut := options(t)
	dir := t.TempDir()
	resultsFile := filepath.Join(dir, "r.jsonl")
	args := []string{"profile", "--engine", "sqlite", "--stores", "10", "--sync-stores", "3",
		"--root", filepath.Join(dir, "root"), "--out", resultsFile}
	media := []string{"disk"}
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		shm, err := os.MkdirTemp("/dev/shm", "manydb-test-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(shm) })
		args = append(args, "--tmpfs", filepath.Join(shm, "root"))
		media = append(media, "tmpfs")
	} else {
		args = append(args, "--tmpfs", "none")
	}
	strace, _ := exec.LookPath("strace")
	if strace != "" && exec.Command(strace, "-o", os.DevNull, "true").Run() != nil {
		strace = "" // ptrace not allowed here
	}
	if err := Run(context.Background(), args, o); err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, errOut)
	}
	recs, err := results.ReadFile(resultsFile)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		if r.Status != results.StatusOK {
			t.Errorf("%s failed: %s\n%s", r.Phase, r.Error, r.StderrTail)
		}
		if r.Phase != job.PhaseProfile {
			continue
		}
		p := r.Profile
		got = append(got, p.Medium)
		if len(p.TotalMs) != 10 || p.MarshalMs != nil || r.Versions["sqlite"] == "" {
			t.Errorf("%s: %d totals, marshal %v, versions %v; want 10, none, sqlite's", p.Medium, len(p.TotalMs), p.MarshalMs, r.Versions)
		}
		for i := range p.TotalMs {
			sum := p.CreateMs[i] + p.FillMs[i] + p.InsertMs[i] + p.CloseMs[i]
			if math.Abs(sum-p.TotalMs[i]) > 1e-6 {
				t.Errorf("%s store %d: steps add up to %v ms, total %v ms", p.Medium, i, sum, p.TotalMs[i])
			}
		}
		if p.Syncs == nil {
			t.Fatalf("%s: no syncs", p.Medium)
		}
		if strace == "" {
			if p.Syncs.NotCounted == "" {
				t.Errorf("%s: no strace here, but syncs %+v", p.Medium, p.Syncs)
			}
			continue
		}
		// _sync=FULL, journal DELETE: the schema's and the notes' commits
		// each sync the journal and the database.
		n := 0
		for _, c := range p.Syncs.Calls {
			n += c
		}
		if p.Syncs.Stores != 3 || n < 2*3 || len(p.Syncs.CallMs) != n {
			t.Errorf("%s: syncs = %+v; want at least 2 per store of 3, each timed", p.Medium, p.Syncs)
		}
	}
	if strings.Join(got, ",") != strings.Join(media, ",") {
		t.Errorf("profile records on %v, want %v", got, media)
	}
	table := out.String()
	for _, want := range []string{"## Where the create time goes: sqlite", "| Create the directory, open the new store", "| Total |", "| Sync calls per store |"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	// manydb tables prints the same table from the file.
	o2, out2, _ := options(t)
	if err := Run(context.Background(), []string{"tables", resultsFile}, o2); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out2.String(), "## Where the create time goes: sqlite") {
		t.Errorf("manydb tables printed no profile table:\n%s", out2)
	}
}

func TestProfileFlags(t *testing.T) {
	o, _, _ := options(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"profile"}, "name the variant to profile"},
		{[]string{"profile", "--engine", "nope"}, `unknown engine "nope"`},
		{[]string{"profile", "--engine", "sqlite", "extra"}, `unexpected argument "extra"`},
		{[]string{"profile", "--engine", "sqlite", "--stores", "0", "--root", t.TempDir()}, "--stores 0"},
	} {
		err := Run(context.Background(), tt.args, o)
		var in *job.InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want an InputError with %q", tt.args, err, tt.want)
		}
	}
}
