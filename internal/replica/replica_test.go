package replica

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeWorker writes a shell script standing in for worker-sqld (a fake,
// to test the harness only): it checks its argument, reads its stdin
// into in and prints out.
func fakeWorker(t *testing.T, out string, code int) (worker, in string) {
	dir := t.TempDir()
	worker, in = filepath.Join(dir, "worker-sqld"), filepath.Join(dir, "in.json")
	script := "#!/bin/sh\n[ \"$1\" = " + WorkerArg + " ] || exit 9\ncat > " + in + "\necho '" + out + "'\nexit " + string(rune('0'+code)) + "\n"
	if err := os.WriteFile(worker, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return worker, in
}

// TestExec: the configuration reaches the worker as JSON, its result
// comes back and reads as text with every figure's median; a worker that
// fails, or prints no result, is an error.
func TestExec(t *testing.T) {
	out := `{"sqld":"0.24.32","config":{"agents":2,"notes":5,"text_len":64},"delay_ms":[1.5,2.5,3.5],"polls":[1,2,2],` +
		`"memory":{"replica_before":{"RssKB":1000},"replica_after":{"RssKB":1200}},"primary_lost":{"reads_served":true,"write_error":"no answer within 1s"}}`
	worker, in := fakeWorker(t, out, 0)
	res, err := Exec(context.Background(), worker, Config{Agents: 2, Notes: 5, TextLen: 64, Appends: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(in); !strings.Contains(string(b), `"appends":3`) {
		t.Errorf("the worker was given %s", b)
	}
	var text strings.Builder
	if err := WriteText(&text, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 agents of 5 notes", "append → visible on the replica        3   2.500", "replica: resident 100.0", "no answer within 1s"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	failing, _ := fakeWorker(t, out, 1)
	if _, err := Exec(context.Background(), failing, Config{}, nil); err == nil {
		t.Error("a worker that exits 1: no error")
	}
	silent, _ := fakeWorker(t, "not json", 0)
	if _, err := Exec(context.Background(), silent, Config{}, nil); err == nil {
		t.Error("a worker that prints no result: no error")
	}
}
