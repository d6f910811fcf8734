package results

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"manydb/internal/job"
)

// SyntaxError reports a line of a results file that is not a record.
type SyntaxError struct {
	File string
	Line int
	Err  error
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d: not a manydb record: %v", e.File, e.Line, e.Err)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// CorruptError reports a compressed results file whose compression is
// damaged (a cut or corrupted .gz): the records before Line were read.
type CorruptError struct {
	File string
	Line int // the line being read when the damage was met
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s: the gzip file is damaged at line %d (%v): the records before it are intact; recompress it from the plain file if you have it", e.File, e.Line, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// gzipMagic starts every gzip file (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// isGzip tells whether the data starting with head is gzip-compressed.
func isGzip(head []byte) bool { return bytes.HasPrefix(head, gzipMagic) }

// maxLine bounds one record's line: 10,000 stores × 4 samples fit easily.
const maxLine = 256 << 20

// Reader reads records from a results file, like bufio.Scanner: call Next
// until it returns false, then Err.
type Reader struct {
	file string
	sc   *bufio.Scanner
	line int
	rec  Record
	err  error
	// cut is set when the last line had no newline: a record cut by a
	// crash in the middle of a write, or a file cut short.
	cut bool
	// gzip is set when the input is gzip-compressed: then an error of the
	// input is a CorruptError.
	gzip bool
}

// NewReader reads records from r, plain or gzip-compressed (told by the
// data's first bytes, not by the name, so a results.jsonl.gz is read as
// it is); file names it in errors.
func NewReader(r io.Reader, file string) *Reader {
	rd := &Reader{file: file}
	br := bufio.NewReader(r)
	if head, _ := br.Peek(len(gzipMagic)); isGzip(head) {
		rd.gzip = true
		zr, err := gzip.NewReader(br)
		if err != nil {
			rd.err = &CorruptError{File: file, Line: 1, Err: err}
		} else {
			r = zr
		}
	} else {
		r = br
	}
	rd.sc = bufio.NewScanner(r)
	rd.sc.Buffer(make([]byte, 0, 1<<20), maxLine)
	rd.sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		adv, tok, err := bufio.ScanLines(data, atEOF)
		rd.cut = atEOF && tok != nil && adv > 0 && data[adv-1] != '\n'
		return adv, tok, err
	})
	return rd
}

// Next reads the next record; blank lines are skipped.
func (r *Reader) Next() bool {
	if r.err != nil {
		return false
	}
	for r.sc.Scan() {
		r.line++
		b := bytes.TrimSpace(r.sc.Bytes())
		if len(b) == 0 {
			continue
		}
		r.rec = Record{}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r.rec); err != nil {
			if r.cut && r.gzip {
				// manydb never appends to a compressed file: a cut
				// one is damage, not a write cut by a crash.
				r.err = &CorruptError{File: r.file, Line: r.line, Err: cmp.Or(r.sc.Err(), io.ErrUnexpectedEOF)}
				return false
			}
			if r.cut {
				r.err = &SyntaxError{File: r.file, Line: r.line, Err: ErrCutLine}
				return false
			}
			r.err = &SyntaxError{File: r.file, Line: r.line, Err: err}
			return false
		}
		if r.rec.Schema < 1 || r.rec.Schema > Schema {
			r.err = &SyntaxError{File: r.file, Line: r.line, Err: fmt.Errorf("schema %d, this manydb reads schemas 1 to %d", r.rec.Schema, Schema)}
			return false
		}
		if err := r.rec.check(); err != nil {
			r.err = &SyntaxError{File: r.file, Line: r.line, Err: err}
			return false
		}
		r.rec.moveOldRun()
		r.rec.Line, r.rec.File = r.line, r.file
		return true
	}
	if err := r.sc.Err(); err != nil {
		switch {
		case r.gzip && !errors.Is(err, bufio.ErrTooLong):
			r.err = &CorruptError{File: r.file, Line: r.line + 1, Err: err}
		default:
			r.err = &SyntaxError{File: r.file, Line: r.line + 1, Err: err}
		}
	}
	return false
}

// Record returns the record read by the last Next.
func (r *Reader) Record() Record { return r.rec }

// Err returns the first error met, nil at a clean end of input.
func (r *Reader) Err() error { return r.err }

// ReadFile reads every record of a results file, plain or gzip-compressed
// (see NewReader and ReadAll).
func ReadFile(name string) ([]Record, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	return ReadAll(f, name)
}

// ReadAll reads every record from r (see NewReader; file names it in
// errors) and checks what records say of each other: a delete gives back
// no more space than its stores took (checkFreed).
func ReadAll(r io.Reader, file string) ([]Record, error) {
	var recs []Record
	rd := NewReader(r, file)
	for rd.Next() {
		recs = append(recs, rd.Record())
	}
	if err := rd.Err(); err != nil {
		return recs, err
	}
	return recs, checkFreed(recs)
}

// freedFactor bounds the space one delete gives back: at most this times
// the largest store the space phase measured (turn runs after it append
// notes, and an engine may double a file to fit one).
const freedFactor = 2

// checkFreed refuses an ok delete record that gave back more space for
// an agent than freedFactor times the largest store of its study's space
// record (variant, setting and layout alike) in the same file; a delete
// without such a record is not checked. The error is a SyntaxError at
// the delete record's line.
func checkFreed(recs []Record) error {
	type storesKey struct {
		study, variant, setting string
		layout                  job.Layout
	}
	largest := map[storesKey]int64{}
	for _, r := range recs {
		if r.Phase != job.PhaseSpace || r.Status != StatusOK {
			continue
		}
		k := storesKey{r.Study, r.Variant, r.Setting, r.Layout}
		if r.SharedBytes != nil {
			largest[k] = *r.SharedBytes
		}
		for _, b := range r.Bytes {
			largest[k] = max(largest[k], b)
		}
	}
	for _, r := range recs {
		most, ok := largest[storesKey{r.Study, r.Variant, r.Setting, r.Layout}]
		if r.Phase != job.PhaseDelete || r.Status != StatusOK || !ok {
			continue
		}
		for i, b := range r.FreedBytes {
			if b > freedFactor*most {
				return &SyntaxError{File: r.File, Line: r.Line, Err: fmt.Errorf("freed_bytes[%d] is %d, more than %d times the largest store of its space record (%d bytes)", i, b, freedFactor, most)}
			}
		}
	}
	return nil
}

// Writer appends records to a results file and syncs each one to disk
// before Append returns, so a study killed at any moment keeps every
// record that was appended.
type Writer struct {
	f *os.File
}

// OpenWriter opens name for appending, creating it if needed. A last line
// without its newline is either a whole record whose newline was lost
// (it is kept and its newline added) or a record cut by a crash in the
// middle of a write (Append syncs only whole lines), which is cut off; so
// the next record starts on a line of its own and no record is lost.
func OpenWriter(name string) (*Writer, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open results file: %w", err)
	}
	if err := mendLastLine(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("open results file %s: %w", name, err)
	}
	return &Writer{f: f}, nil
}

// mendLastLine ends a last line that has no newline: a record gets its
// newline, a torn record after a record is cut, anything else is
// ErrNotResults (nothing written).
func mendLastLine(f *os.File) error {
	fix, end, err := inspectLastLine(f)
	switch {
	case err != nil || fix == lineComplete:
		return err
	case fix == lineNeedsNewline:
		if _, err := f.Write([]byte{'\n'}); err != nil {
			return err
		}
	case fix == lineTorn:
		if err := f.Truncate(end); err != nil {
			return err
		}
	}
	return f.Sync()
}

// CheckAppendable tells, changing nothing, whether OpenWriter would append
// to the file name: nil for a results file, or one that does not exist;
// ErrNotResults (wrapped) for a file that is not manydb's.
func CheckAppendable(name string) error {
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if _, _, err := inspectLastLine(f); err != nil {
		return fmt.Errorf("results file %s: %w", name, err)
	}
	return nil
}

// lastLine is the state of a results file's last line.
type lastLine int

const (
	lineComplete     lastLine = iota // empty file, or ends in a newline
	lineNeedsNewline                 // a whole record without its newline
	lineTorn                         // a record cut by a crash, after a record
)

// inspectLastLine says what f's last line is and, for a torn one, where
// the line before it ends; ErrNotResults for a last line without a
// newline that is no record and follows no record (not manydb's to cut),
// ErrCompressed for a gzip-compressed file.
func inspectLastLine(f *os.File) (lastLine, int64, error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return lineComplete, 0, err
	}
	head := make([]byte, len(gzipMagic))
	if _, err := f.ReadAt(head, 0); err == nil && isGzip(head) {
		return lineComplete, 0, ErrCompressed
	}
	size := st.Size()
	end, err := lineStart(f, size) // end of the last complete line
	if err != nil || end == size {
		return lineComplete, 0, err
	}
	tail := make([]byte, size-end)
	if _, err := f.ReadAt(tail, end); err != nil {
		return lineComplete, 0, err
	}
	switch {
	case NewReader(bytes.NewReader(tail), f.Name()).Next():
		return lineNeedsNewline, end, nil
	case lineBeforeIsRecord(f, end):
		return lineTorn, end, nil
	}
	return lineComplete, 0, ErrNotResults
}

// Append writes rec as one line and syncs the file.
func (w *Writer) Append(rec Record) error {
	rec.Schema = Schema
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.f.Write(b); err != nil {
		return fmt.Errorf("append record: %w", err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync results file: %w", err)
	}
	return nil
}

// Close closes the file.
func (w *Writer) Close() error {
	if w == nil || w.f == nil {
		return nil
	}
	return w.f.Close()
}

// ErrCutLine is the error of a plain results file whose last line has no
// newline and is no record: a write cut by a crash, or a file cut short.
// The Writer cuts such a line off (after a record), so a study resumes.
var ErrCutLine = errors.New("the last line is cut short (no newline, not a whole record): the records before it are intact; " +
	"running the study's command again cuts it off, or remove that line")

// ErrNotResults is returned by OpenWriter for a file that ends in a line
// without a newline that is no record, after no record: not a results
// file, so manydb writes nothing to it.
var ErrNotResults = errors.New("its last line is not a manydb record and no record comes before it: not a results file")

// ErrCompressed is returned by OpenWriter and CheckAppendable for a
// gzip-compressed results file: manydb reads it, but appends only to a
// plain one.
var ErrCompressed = errors.New("it is gzip-compressed: manydb reads it but appends only to a plain file (gunzip it to resume the study it holds)")

// lineStart returns the offset where the line that ends before offset
// end in f starts: just after the last newline before end, or 0.
func lineStart(f *os.File, end int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end > 0 {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// lineBeforeIsRecord tells whether the complete line that ends at end (a
// newline's offset plus one) in f is a manydb record.
func lineBeforeIsRecord(f *os.File, end int64) bool {
	if end == 0 {
		return false
	}
	start, err := lineStart(f, end-1)
	if err != nil || end-start > maxLine {
		return false
	}
	line := make([]byte, end-start)
	if _, err := f.ReadAt(line, start); err != nil {
		return false
	}
	return NewReader(bytes.NewReader(line), f.Name()).Next()
}
