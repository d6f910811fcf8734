package results

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"manydb/internal/job"
)

// writeSample writes a plain results file of three records and returns its
// name and bytes.
func writeSample(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	name := filepath.Join(dir, "r.jsonl")
	w, err := OpenWriter(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Record{
		{Study: "a", Variant: "fake", Phase: job.PhaseCreate, Status: StatusOK, CreateMs: []float64{1, 2.5}},
		{Study: "a", Variant: "fake", Phase: job.PhaseOpen, Status: StatusOK, Run: 1, OpenMs: []float64{0.25}},
		{Study: "a", Variant: "fake", Phase: job.PhaseServe, Status: StatusOK, PoolStep: 1, Serve: &Serve{Pool: 3, Requests: 10, RssKB: []int64{100}, AnonKB: []int64{50}, Threads: []int{3}, FDs: []int{9}}},
	} {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return name, b
}

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// TestReadFileGzip: a gzip-compressed results file reads as the same
// records as the plain file it was made from.
func TestReadFileGzip(t *testing.T) {
	dir := t.TempDir()
	plain, b := writeSample(t, dir)
	gz := plain + ".gz"
	if err := os.WriteFile(gz, gzipBytes(t, b), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(gz)
	if err != nil {
		t.Fatalf("ReadFile(%s): %v", gz, err)
	}
	for i := range got {
		if got[i].File != gz || want[i].File != plain {
			t.Errorf("record %d read from %q and %q, want each its own file", i, got[i].File, want[i].File)
		}
		got[i].File, want[i].File = "", "" // the files differ, the records not
	}
	if len(got) != 3 || !reflect.DeepEqual(got, want) {
		t.Fatalf("records of the .gz = %+v\nwant %+v", got, want)
	}
}

// TestReadFileCorruptGzip: a cut or damaged .gz gives one CorruptError
// naming the file, not a syntax error of some line.
func TestReadFileCorruptGzip(t *testing.T) {
	dir := t.TempDir()
	_, b := writeSample(t, dir)
	z := gzipBytes(t, b)
	flipped := bytes.Clone(z)
	flipped[len(flipped)-6] ^= 0xff // in the CRC-32 trailer
	for name, data := range map[string][]byte{
		"cut.jsonl.gz":     z[:len(z)/2],
		"flipped.jsonl.gz": flipped,
		"header.jsonl.gz":  z[:5], // the magic, then nothing of the header
	} {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(file)
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.File != file {
			t.Errorf("%s: err = %v, want a CorruptError naming the file", name, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), file+": ") || !strings.Contains(err.Error(), "gzip") {
			t.Errorf("%s: message %q does not name the file and gzip", name, err)
		}
	}
}

// TestWriterRefusesGzip: manydb never appends plain lines to a compressed
// results file (a study resumed with --out results.jsonl.gz).
func TestWriterRefusesGzip(t *testing.T) {
	dir := t.TempDir()
	_, b := writeSample(t, dir)
	gz := filepath.Join(dir, "r.jsonl.gz")
	z := gzipBytes(t, b)
	if err := os.WriteFile(gz, z, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckAppendable(gz); !errors.Is(err, ErrCompressed) {
		t.Errorf("CheckAppendable err = %v, want ErrCompressed", err)
	}
	w, err := OpenWriter(gz)
	if !errors.Is(err, ErrCompressed) {
		t.Errorf("OpenWriter err = %v, want ErrCompressed", err)
	}
	if err == nil {
		w.Close()
	}
	if after, _ := os.ReadFile(gz); !bytes.Equal(after, z) {
		t.Error("the compressed file changed")
	}
}

// TestReadFileCutGzipAnywhere: a compressed results file cut at any byte
// is damage, never read as whole: manydb never appends to one, so a last
// line cut in the middle is not a write cut by a crash.
func TestReadFileCutGzipAnywhere(t *testing.T) {
	dir := t.TempDir()
	_, b := writeSample(t, dir)
	var many []byte
	for range 50 {
		many = append(many, b...)
	}
	z := gzipBytes(t, many)
	file := filepath.Join(dir, "cut.jsonl.gz")
	for n := 20; n < len(z); n += 7 {
		if err := os.WriteFile(file, z[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(file)
		var ce *CorruptError
		if !errors.As(err, &ce) {
			t.Fatalf("cut after %d of %d bytes: err = %v, want a CorruptError", n, len(z), err)
		}
	}
}
