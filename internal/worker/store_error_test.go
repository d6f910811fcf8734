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
	"manydb/internal/results"
)

// An engine that panics in an open run fails the phase with an error that
// names the store it was opening (the run's third, after the warm-up and
// two stores), and the panic's stack goes to stderr.
func TestPanicNamesTheStore(t *testing.T) {
	job := fakeJob(t, results.PhaseCreate)
	if _, err := RunJob(job, newFake(t, "fake"), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	job.Phase, job.Run, job.Seed = results.PhaseOpen, 1, 1
	var stderr bytes.Buffer
	_, err := RunJob(job, newFake(t, "fake_panic"), &stderr)
	var se *StoreError
	if !errors.As(err, &se) {
		t.Fatalf("open with a panicking engine: err = %v, want a StoreError", err)
	}
	want := Order(job.Stores, job.Seed)[1] // the warm-up was open 1
	if se.Index != want || se.Dir != StoreDir(job.Dir, want) || !strings.Contains(err.Error(), se.Dir) {
		t.Errorf("err = %v; want store %d (%s)", err, want, StoreDir(job.Dir, want))
	}
	if !strings.Contains(stderr.String(), "fake_panic: panicking on purpose") || !strings.Contains(stderr.String(), "goroutine") {
		t.Errorf("stderr has no panic and stack:\n%s", stderr.String())
	}
}

// A store whose file is damaged fails the open run with an error naming
// the store and its directory.
func TestDamagedStoreIsNamed(t *testing.T) {
	job := fakeJob(t, results.PhaseCreate)
	v := newFake(t, "fake")
	if _, err := RunJob(job, v, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(StoreDir(job.Dir, 5), fakeengine.FileName), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	job.Phase, job.Run, job.Seed = results.PhaseOpen, 1, 1
	_, err := RunJob(job, v, &bytes.Buffer{})
	var se *StoreError
	if !errors.As(err, &se) || se.Index != 5 || se.Step != "count" || !strings.Contains(err.Error(), StoreDir(job.Dir, 5)) {
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
