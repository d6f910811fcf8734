package worker

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/fakeengine"
	"manydb/internal/job"
)

// An engine that panics in an open run fails the phase with an error that
// names the store it was opening (the run's third, after the warm-up and
// two stores), and the panic's stack goes to stderr.
func TestPanicNamesTheStore(t *testing.T) {
	j := fakeJob(t, job.PhaseCreate)
	if _, err := RunJob(j, newFake(t, "fake"), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	j.Phase, j.Run, j.Seed = job.PhaseOpen, 1, 1
	var stderr bytes.Buffer
	_, err := RunJob(j, newFake(t, "fake_panic"), &stderr)
	var se *StoreError
	if !errors.As(err, &se) {
		t.Fatalf("open with a panicking engine: err = %v, want a StoreError", err)
	}
	want := Order(j.Stores, j.Seed)[1] // the warm-up was open 1
	if se.Index != want || se.Dir != job.StoreDir(j.Dir, want, 0) || !strings.Contains(err.Error(), se.Dir) {
		t.Errorf("err = %v; want store %d (%s)", err, want, job.StoreDir(j.Dir, want, 0))
	}
	if !strings.Contains(stderr.String(), "fake_panic: panicking on purpose") || !strings.Contains(stderr.String(), "goroutine") {
		t.Errorf("stderr has no panic and stack:\n%s", stderr.String())
	}
}

// A store whose file is damaged fails the open run with an error naming
// the store and its directory.
func TestDamagedStoreIsNamed(t *testing.T) {
	j := fakeJob(t, job.PhaseCreate)
	v := newFake(t, "fake")
	if _, err := RunJob(j, v, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(job.StoreDir(j.Dir, 5, 0), fakeengine.FileName), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	j.Phase, j.Run, j.Seed = job.PhaseOpen, 1, 1
	_, err := RunJob(j, v, &bytes.Buffer{})
	var se *StoreError
	if !errors.As(err, &se) || se.Index != 5 || se.Step != "count" || !strings.Contains(err.Error(), job.StoreDir(j.Dir, 5, 0)) {
		t.Fatalf("err = %v; want store 5's count to fail, naming its directory", err)
	}
}

// A factory whose variant answers another id is refused: the catalog and
// the adapter disagree.
func TestRunRefusesAMisnamedVariant(t *testing.T) {
	f := engine.Factory{ID: "fake", New: fakeengine.New("fake_slow")}
	err := Run([]string{"--variant", "fake", "--phase", "versions"}, &bytes.Buffer{}, &bytes.Buffer{}, f)
	if !errors.Is(err, engine.ErrCatalogMismatch) {
		t.Fatalf("Run = %v, want ErrCatalogMismatch", err)
	}
}

// TestRecordChannel runs itself as a child that prints on stdout after
// RecordChannel (as an engine might) and writes a record to the channel:
// the child's stdout holds only the record, stderr the rest.
func TestRecordChannel(t *testing.T) {
	if os.Getenv("MANYDB_RECORD_CHILD") == "1" {
		rec, err := RecordChannel()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("[ERROR] engine noise on stdout")
		os.Stdout.WriteString("more noise\n")
		fmt.Fprintln(rec, `{"record":true}`)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestRecordChannel$")
	cmd.Env = append(os.Environ(), "MANYDB_RECORD_CHILD=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	if got := stdout.String(); got != "{\"record\":true}\n" {
		t.Errorf("child's stdout = %q, want only the record", got)
	}
	if !strings.Contains(stderr.String(), "[ERROR] engine noise on stdout") || !strings.Contains(stderr.String(), "more noise") {
		t.Errorf("child's stderr = %q, want the noise", stderr.String())
	}
}
