package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestABEndToEnd runs three real rounds of a tiny bbolt study, the same
// build on both sides, with every open of side B made 2 ms slower by the
// test-only delay (bbolt opens in well under 1 ms): the rounds' files and
// ab.json are kept, ABBA, and open is judged different.
func TestABEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs six small studies")
	}
	needWorkers(t)
	o, out, errOut := options(t)
	dir := filepath.Join(t.TempDir(), "ab")
	err := Run(context.Background(), []string{"ab", "--dir", dir, "--rounds", "3", "--max-rounds", "3",
		"--figures", "open,create", "--b-env", "MANYDB_TEST_OPEN_DELAY=2ms", "--", "--engines", "bbolt", "--stores", "10", "--runs", "1", "--hold", "0"}, o)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, errOut)
	}
	for _, f := range []string{"round-001-A.jsonl", "round-001-B.jsonl", "round-003-A.jsonl", "round-003-B.jsonl", "ab.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "ab.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Rounds []struct {
			Order string
			A, B  map[string]float64
		}
		Results []struct{ Key, Verdict string }
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Rounds) != 3 || rec.Rounds[0].Order != "AB" || rec.Rounds[1].Order != "BA" || rec.Rounds[2].Order != "AB" || len(rec.Results) != 2 {
		t.Fatalf("ab.json: %d rounds (%+v), %d results", len(rec.Rounds), rec.Rounds, len(rec.Results))
	}
	for _, r := range rec.Results {
		if strings.HasSuffix(r.Key, "/ open") && r.Verdict != "different" {
			t.Errorf("%s: %s, want different (B waits 2 ms in every open)", r.Key, r.Verdict)
		}
	}
	for _, want := range []string{"bbolt@default / open", "bbolt@default / create", "stopped after 3 rounds"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestABBadInput: each bad command line is one line, exit 2, and makes
// no directory.
func TestABBadInput(t *testing.T) {
	tmp := t.TempDir()
	existing := filepath.Join(tmp, "old")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	cal := filepath.Join(tmp, "cal.json")
	if err := os.WriteFile(cal, []byte(`{"floor":0.03,"figures":{"x / open":{"Delta":0}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	newDir := filepath.Join(tmp, "new")
	for _, args := range [][]string{
		{"ab", "--dir", newDir},
		{"ab", "--dir", newDir, "--rounds", "1", "--", "--engines", "bbolt"},
		{"ab", "--dir", newDir, "--floor", "0", "--", "--engines", "bbolt"},
		{"ab", "--dir", newDir, "--", "--engines", "bbolt", "--root", "x"},
		{"ab", "--dir", newDir, "--calibration", cal, "--", "--engines", "bbolt"},
		{"ab", "--dir", newDir, "--calibration", cal, "--calibrate", "--", "--engines", "bbolt"},
		{"ab", "--dir", existing, "--", "--engines", "bbolt"},
		{"ab", "--judge", existing, "--", "--engines", "bbolt"},
		{"ab", "--judge", existing, "--calibrate"},
		{"ab", "--judge", existing, "--b-env", "X=1"},
		{"ab", "--judge", existing, "--max-rounds", "60"},
		{"ab", "--judge", existing},
		{"ab", "--judge", newDir},
		{"ab", "--judge", existing, "--figures", "open,,close"},
	} {
		o, _, _ := options(t)
		err := Run(context.Background(), args, o)
		if ExitCode(err) != 2 || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: exit %d, %v; want one line, exit 2", args, ExitCode(err), err)
		}
		if _, err := os.Stat(newDir); !os.IsNotExist(err) {
			t.Errorf("%v made %s", args, newDir)
		}
	}
}
