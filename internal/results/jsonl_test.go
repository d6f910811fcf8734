package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manydb/internal/job"
)

func TestReaderReportsFileAndLine(t *testing.T) {
	input := `{"schema":1,"study":"s","variant":"fake","phase":"create","status":"ok","workload":{"name":"large","objects":1000,"text_len":300},"load1":0.5,"started":"2026-12-02T10:00:00Z","create_ms":[1.5,2]}

{"schema":1,"study":"s","phase":"open", oops}
`
	r := NewReader(strings.NewReader(input), "r.jsonl")
	if !r.Next() {
		t.Fatalf("first record not read: %v", r.Err())
	}
	if got := r.Record(); got.Phase != "create" || len(got.CreateMs) != 2 || got.Load1 != 0.5 {
		t.Errorf("record = %+v", got)
	}
	if r.Next() {
		t.Fatal("a malformed line was read as a record")
	}
	var syn *SyntaxError
	if !errors.As(r.Err(), &syn) || syn.File != "r.jsonl" || syn.Line != 3 {
		t.Fatalf("err = %v, want a SyntaxError at r.jsonl:3", r.Err())
	}
	if !strings.HasPrefix(syn.Error(), "r.jsonl:3: ") {
		t.Errorf("message %q does not start with file:line", syn.Error())
	}
}

func TestReaderRejectsOtherSchemasAndUnknownFields(t *testing.T) {
	for _, line := range []string{
		`{"schema":3,"study":"s","phase":"create","status":"ok","workload":{},"load1":0,"started":"2026-12-02T10:00:00Z"}`,
		`{"schema":0,"study":"s","phase":"create","status":"ok","workload":{},"load1":0,"started":"2026-12-02T10:00:00Z"}`,
		`{"schema":1,"study":"s","phase":"create","status":"ok","workload":{},"load1":0,"started":"2026-12-02T10:00:00Z","colour":"red"}`,
	} {
		r := NewReader(strings.NewReader(line+"\n"), "f")
		if r.Next() || r.Err() == nil {
			t.Errorf("%s: read without error", line)
		}
	}
}

func TestWriterAppendsAndDropsACutLine(t *testing.T) {
	name := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := OpenWriter(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(Record{Study: "a", Variant: "fake", Phase: job.PhaseCreate, Status: StatusOK, CreateMs: []float64{1}}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// A crash in the middle of the next write leaves half a line.
	f, _ := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"schema":1,"study":"a","phase":"op`)
	f.Close()

	w, err = OpenWriter(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(Record{Study: "a", Variant: "fake", Phase: job.PhaseOpen, Status: StatusOK, Run: 1}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	recs, err := ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Phase != job.PhaseCreate || recs[1].Phase != job.PhaseOpen || recs[1].Schema != Schema {
		t.Fatalf("records = %+v, want create then open", recs)
	}
}

// A record cut by a crash (the last line, without its newline) is refused
// at its line, naming ErrCutLine (a resume leaves it out: the writer cuts
// it off), as a cut gzip file is; the records before it are read.
func TestReaderRefusesACutLastLine(t *testing.T) {
	good := `{"schema":1,"study":"s","variant":"fake","phase":"create","status":"ok","workload":{},"load1":0,"started":"2026-12-02T10:00:00Z"}`
	r := NewReader(strings.NewReader(good+"\n"+`{"schema":1,"study":"s","pha`), "f")
	n := 0
	for r.Next() {
		n++
	}
	var syn *SyntaxError
	if !errors.As(r.Err(), &syn) || syn.Line != 2 || !errors.Is(r.Err(), ErrCutLine) || n != 1 {
		t.Errorf("read %d records, err %v; want 1, then ErrCutLine at f:2", n, r.Err())
	}
	// A complete last record without a newline is still a record.
	r = NewReader(strings.NewReader(good), "f")
	if !r.Next() || r.Err() != nil {
		t.Errorf("a whole record without newline was not read: %v", r.Err())
	}
}

// A whole record whose newline was lost (e.g. truncate -s -1 after a kill)
// is kept: the writer adds its newline instead of cutting the line.
func TestWriterKeepsAWholeLastRecordWithoutNewline(t *testing.T) {
	name := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := OpenWriter(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(Record{Study: "a", Variant: "fake", Phase: job.PhaseCreate, Status: StatusOK}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := os.Truncate(name, fileSize(t, name)-1); err != nil {
		t.Fatal(err)
	}
	w, err = OpenWriter(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(Record{Study: "a", Variant: "fake", Phase: job.PhaseOpen, Status: StatusOK, Run: 1}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	recs, err := ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Phase != job.PhaseCreate || recs[1].Phase != job.PhaseOpen {
		t.Fatalf("records = %+v, want create then open", recs)
	}
}

func fileSize(t *testing.T, name string) int64 {
	t.Helper()
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestReadOldRun: a file written when "run" numbered turns, hold counts
// and pools too reads them into Turn, HoldStep and PoolStep; an open run
// keeps its Run, and a record of today reads back as written.
func TestReadOldRun(t *testing.T) {
	old := `{"schema":1,"study":"s","variant":"v","phase":"open","run":2,"status":"ok","workload":{"name":"small","objects":10,"text_len":40}}
{"schema":1,"study":"s","variant":"v","phase":"turn","run":3,"status":"ok","workload":{"name":"small","objects":10,"text_len":40}}
{"schema":1,"study":"s","variant":"v","phase":"hold","run":4,"status":"ok","hold":{"held":1},"workload":{"name":"small","objects":10,"text_len":40}}
{"schema":1,"study":"s","variant":"v","phase":"serve","run":5,"status":"failed","workload":{"name":"small","objects":10,"text_len":40}}
{"schema":2,"study":"s","variant":"v","phase":"turn","turn":6,"status":"ok","workload":{"name":"small","objects":10,"text_len":40}}
{"schema":2,"study":"s","variant":"v","phase":"open","run":7,"status":"ok","workload":{"name":"small","objects":10,"text_len":40}}
`
	path := filepath.Join(t.TempDir(), "old.jsonl")
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type steps struct{ run, turn, hold, pool int }
	want := []steps{{run: 2}, {turn: 3}, {hold: 4}, {pool: 5}, {turn: 6}, {run: 7}}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, r := range recs {
		if got := (steps{r.Run, r.Turn, r.HoldStep, r.PoolStep}); got != want[i] {
			t.Errorf("record %d (%s): %+v, want %+v", i, r.Phase, got, want[i])
		}
		if r.Repeat() != i+2 {
			t.Errorf("record %d (%s): Repeat() = %d, want %d", i, r.Phase, r.Repeat(), i+2)
		}
	}
}

// TestWriterRefusesAForeignFile: a file whose last line has no newline and
// follows no record (one line of text, or text lines) is not a results
// file: OpenWriter refuses it and leaves it as it was.
func TestWriterRefusesAForeignFile(t *testing.T) {
	for _, text := range []string{"important", "line one\nimportant", strings.Repeat("x", 3<<20)} {
		name := filepath.Join(t.TempDir(), "key.txt")
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		w, err := OpenWriter(name)
		if !errors.Is(err, ErrNotResults) {
			t.Errorf("%.20q: OpenWriter err = %v, want ErrNotResults", text, err)
		}
		if err == nil {
			w.Close()
		}
		if b, _ := os.ReadFile(name); string(b) != text {
			t.Errorf("%.20q: the file changed to %.20q", text, b)
		}
	}
}

// TestReaderRefusesMissingObjects: an ok hold or serve record without its
// object (null or left out) is refused with the file and line, not read.
func TestReaderRefusesMissingObjects(t *testing.T) {
	for _, line := range []string{
		`{"schema":2,"study":"s","variant":"v","phase":"hold","status":"ok","workload":{},"hold":null}`,
		`{"schema":2,"study":"s","variant":"v","phase":"hold","status":"ok","workload":{}}`,
		`{"schema":2,"study":"s","variant":"v","phase":"serve","pool_step":1,"status":"ok","workload":{},"serve":null}`,
	} {
		r := NewReader(strings.NewReader(line+"\n"), "f.jsonl")
		if r.Next() || r.Err() == nil || !strings.Contains(r.Err().Error(), "f.jsonl:1:") {
			t.Errorf("%s: read, err = %v; want a refusal naming f.jsonl:1", line, r.Err())
		}
	}
	failed := `{"schema":2,"study":"s","variant":"v","phase":"hold","status":"failed","workload":{}}`
	if r := NewReader(strings.NewReader(failed+"\n"), "f.jsonl"); !r.Next() {
		t.Errorf("a failed hold record without figures was refused: %v", r.Err())
	}
}

// TestHoldOpenMsOptional: a hold record keeps its open samples (the n-th
// open), and one written before they were recorded still reads, without.
func TestHoldOpenMsOptional(t *testing.T) {
	input := `{"schema":2,"study":"s","variant":"v","phase":"hold","status":"ok","workload":{},"hold":{"held":2,"rss_kb":1,"anon_kb":1,"rss_before_kb":1,"rss_after_kb":2,"anon_before_kb":1,"anon_after_kb":2,"threads_before":1,"threads":1,"fds_before":3,"fds":5,"goroutines_before":1,"goroutines":1,"engine_s":0.001}}
{"schema":2,"study":"s","variant":"v","phase":"hold","status":"ok","workload":{},"hold":{"held":2,"rss_kb":1,"anon_kb":1,"rss_before_kb":1,"rss_after_kb":2,"anon_before_kb":1,"anon_after_kb":2,"threads_before":1,"threads":1,"fds_before":3,"fds":5,"goroutines_before":1,"goroutines":1,"engine_s":0.001,"open_ms":[0.02,0.03]}}
`
	r := NewReader(strings.NewReader(input), "f.jsonl")
	var opens [][]float64
	for r.Next() {
		opens = append(opens, r.Record().Hold.OpenMs)
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	if len(opens) != 2 || opens[0] != nil || len(opens[1]) != 2 || opens[1][1] != 0.03 {
		t.Errorf("open samples of an older and a newer hold = %v, want none and [0.02 0.03]", opens)
	}
}
