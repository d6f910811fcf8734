package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
)

// fuzzFiles are the records the fuzz test mutates: every results file of
// testdata.
func fuzzFiles(f *testing.F) [][]results.Record {
	f.Helper()
	names, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(names) == 0 {
		f.Fatalf("no testdata records: %v", err)
	}
	var files [][]results.Record
	for _, name := range names {
		recs, err := results.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, recs)
	}
	return files
}

// FuzzRecords changes one value of one record of a real results file (a
// number set to any float, or a list emptied; with label, its variant set
// to one of the catalog's and its layout to shared or per agent), writes
// the file, cut short by cut bytes when cut is not 0, and reads it back as
// every command does, and renders what the reader accepts in every format
// and the HTML report: no renderer may panic or print a number that is not
// finite. A record the reader refuses is fine; a last line cut in its
// middle must be refused.
// Run long with: go test -run '^$' -fuzz FuzzRecords -fuzztime 60s ./internal/report/
func FuzzRecords(f *testing.F) {
	files := fuzzFiles(f)
	for _, v := range []float64{0, -1, 2, 1e308, math.Inf(1), math.NaN(), 0.5, -5, 1e15} {
		for i := range files {
			f.Add(uint8(i), uint16(3), uint16(7), false, v, uint16(0), uint8(0))
			f.Add(uint8(i), uint16(1), uint16(40), true, v, uint16(0), uint8(0))
		}
	}
	for i := range files {
		f.Add(uint8(i), uint16(2), uint16(0), false, 0.0, uint16(0), uint8(7))
		f.Add(uint8(i), uint16(2), uint16(0), false, 0.0, uint16(30), uint8(0))
	}
	f.Fuzz(func(t *testing.T, file uint8, rec, leaf uint16, empty bool, v float64, cut uint16, label uint8) {
		recs := mutated(files[int(file)%len(files)], int(rec), int(leaf), empty, v)
		relabel(&recs[int(rec)%len(recs)], label)
		var b bytes.Buffer
		for _, r := range recs {
			line, err := json.Marshal(r)
			if err != nil {
				return // a non-finite float: JSON cannot write it, no file holds it
			}
			b.Write(append(line, '\n'))
		}
		whole := bytes.Clone(b.Bytes())
		n := len(whole) - int(cut)%len(whole)
		b.Truncate(n)
		read, err := results.ReadAll(&b, "fuzz.jsonl")
		var syn *results.SyntaxError
		if errors.As(err, &syn) {
			return // refused at its line: what the reader is for
		}
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if n < len(whole) && whole[n-1] != '\n' && whole[n] != '\n' {
			t.Fatalf("a file cut in the middle of its last line (at byte %d of %d) read without error", n, len(whole))
		}
		renderAll(t, read)
	})
}

// relabel sets, for a label other than 0, r's variant to one of the
// catalog's and its layout to shared (odd label) or per agent.
func relabel(r *results.Record, label uint8) {
	if label == 0 {
		return
	}
	vs := engine.AllVariants()
	r.Variant, r.Layout = vs[int(label)%len(vs)], job.LayoutPerAgent
	if label%2 == 1 {
		r.Layout = job.LayoutShared
	}
}

// mutated returns a copy of recs whose rec-th record has its leaf-th
// number set to v, or its leaf-th list emptied.
func mutated(recs []results.Record, rec, leaf int, empty bool, v float64) []results.Record {
	out := make([]results.Record, len(recs))
	for i, r := range recs {
		// A deep copy through JSON: the mutation must not reach files.
		b, _ := json.Marshal(r)
		json.Unmarshal(b, &out[i])
	}
	target := reflect.ValueOf(&out[rec%len(out)]).Elem()
	var leaves []reflect.Value
	collectLeaves(target, empty, &leaves)
	if len(leaves) == 0 {
		return out
	}
	l := leaves[leaf%len(leaves)]
	switch {
	case empty:
		l.Set(reflect.Zero(l.Type()))
	case l.CanFloat():
		l.SetFloat(v)
	case l.CanInt() && !math.IsNaN(v):
		l.SetInt(int64(math.Max(-1e18, math.Min(1e18, v))))
	}
	return out
}

// collectLeaves gathers the settable numbers below v, or with lists its
// slices and pointers.
func collectLeaves(v reflect.Value, lists bool, out *[]reflect.Value) {
	switch v.Kind() {
	case reflect.Float64, reflect.Int, reflect.Int64:
		if !lists && v.CanSet() {
			*out = append(*out, v)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			if lists && v.CanSet() {
				*out = append(*out, v)
			}
			collectLeaves(v.Elem(), lists, out)
		}
	case reflect.Slice:
		if lists && v.CanSet() && v.Len() > 0 {
			*out = append(*out, v)
		}
		for i := range v.Len() {
			collectLeaves(v.Index(i), lists, out)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				collectLeaves(v.Field(i), lists, out)
			}
		}
	}
}

// notFinite finds a number that is not finite as Go or JSON prints it.
var notFinite = regexp.MustCompile(`NaN|[+-]Inf`)

// renderAll renders recs in every format and the report, and fails t on a
// non-finite number in any output or error (a panic fails it by itself).
func renderAll(t *testing.T, recs []results.Record) {
	for name, render := range map[string]func(io.Writer, []results.Record) error{
		"md": Tables, "overview": WriteOverview, "csv": WriteCSV, "json": WriteJSON, "gobench": WriteGobench, "html": HTML,
	} {
		var out bytes.Buffer
		// An error is a message about what the records hold (no study,
		// only serve studies), unless it is about a number.
		if err := render(&out, recs); err != nil && notFinite.MatchString(err.Error()) {
			t.Errorf("%s: %v", name, err)
		}
		if m := notFinite.FindString(out.String()); m != "" {
			i := strings.Index(out.String(), m)
			t.Errorf("%s prints %q: …%s…", name, m, out.String()[max(0, i-80):min(out.Len(), i+20)])
		}
	}
}
