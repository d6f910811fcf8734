package docscheck

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// machineHeading starts docs/capacity.md's table of the open stores a
// machine like the record's holds by memory, arithmetic on the figures
// of its own columns.
const machineHeading = "### Agents per 24 GiB machine, by memory (arithmetic)"

// availableKB is the memory that table divides: 22.6 GB at 1,024 KB a
// MB and 1,024 MB a GB, as the text above the table says.
const availableKB = 22.6 * kbPerMB * kbPerMB

// TestMachineTable checks that each count of the table follows from the
// figures of its row at 1,024 KB a MB: stores = available memory /
// (memory per store + a process' Pss / stores a process), to three
// figures, and processes = stores / stores a process, rounded up. The
// row's figures are rounded, so a count may lie anywhere their rounding
// allows; a count taken at 1,000 KB a MB (4.6 % lower) does not.
func TestMachineTable(t *testing.T) {
	rows := machineRows(t, "docs/capacity.md")
	if len(rows) < 10 {
		t.Fatalf("docs/capacity.md: %d rows under %q, want the table's", len(rows), machineHeading)
	}
	for _, r := range rows {
		for i, col := range []string{"by anonymous memory", "with every store's files cached"} {
			if err := r.check(r.perStore[i], r.counts[i]); err != nil {
				t.Errorf("docs/capacity.md, %s (%s), %s: %v", r.variant, r.setting, col, err)
			}
		}
	}
}

// figure is a rounded number of a doc: its value and how far its
// rounding may be from the true one.
type figure struct{ value, half float64 }

// parseFigure reads a number as a doc writes it ("9.7", "17,989"); its
// half is half a unit of its last digit.
func parseFigure(s string) (figure, error) {
	s = strings.ReplaceAll(s, ",", "")
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return figure{}, fmt.Errorf("%q is no number: %w", s, err)
	}
	decimals := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		decimals = len(s) - i - 1
	}
	return figure{v, 0.5 * math.Pow(10, -float64(decimals))}, nil
}

// machineRow is a row of the table: its memory per store (anonymous,
// container) in KB, stores a process, a process' Pss in MB (zero where
// none is measured), and its two counts, "N in P".
type machineRow struct {
	variant, setting string
	perStore         [2]figure
	perProc          float64
	pss              figure
	counts           [2][2]float64 // stores, processes
}

// check says whether count (stores, processes) lies within what the
// row's rounded figures give for memory per store mem.
func (r machineRow) check(mem figure, count [2]float64) error {
	stores := func(m, pss float64) float64 { return availableKB / (m + pss*kbPerMB/r.perProc) }
	lo := stores(mem.value+mem.half, r.pss.value+r.pss.half)
	hi := stores(mem.value-mem.half, max(r.pss.value-r.pss.half, 0))
	if count[0] < round3(lo) || count[0] > round3(hi) {
		return fmt.Errorf("%s stores, but its figures give %s–%s", grouped(count[0]), grouped(round3(lo)), grouped(round3(hi)))
	}
	if pLo, pHi := math.Ceil(lo/r.perProc), math.Ceil(hi/r.perProc); count[1] < pLo || count[1] > pHi {
		return fmt.Errorf("%.0f processes, but its figures give %.0f–%.0f", count[1], pLo, pHi)
	}
	return nil
}

// machineRows reads the table under machineHeading in doc: each line
// that starts with a variant ("| `sqlite` | lean | 26 / 374 KB | …").
func machineRows(t *testing.T, doc string) []machineRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), doc))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), machineHeading)
	if !ok {
		t.Fatalf("%s: no heading %q", doc, machineHeading)
	}
	var rows []machineRow
	for _, line := range strings.Split(table, "\n") {
		if line == "" && len(rows) > 0 {
			break // the table's end
		}
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		r, err := parseMachineRow(line)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		rows = append(rows, r)
	}
	return rows
}

// parseMachineRow reads one row of the table.
func parseMachineRow(line string) (machineRow, error) {
	cells := strings.Split(strings.Trim(line, "| "), " | ")
	if len(cells) != 8 {
		return machineRow{}, fmt.Errorf("%d cells in %q, want 8", len(cells), line)
	}
	r := machineRow{variant: strings.Trim(cells[0], "`"), setting: cells[1]}
	anon, container, _ := strings.Cut(strings.TrimSuffix(cells[2], " KB"), " / ")
	perProc, _, _ := strings.Cut(cells[3], " ")
	var errs [8]error
	r.perStore[0], errs[0] = parseFigure(anon)
	r.perStore[1], errs[1] = parseFigure(container)
	var p figure
	p, errs[2] = parseFigure(perProc)
	r.perProc = p.value
	if pss, measured := strings.CutSuffix(cells[4], " MB"); measured {
		r.pss, errs[3] = parseFigure(pss)
	}
	for i, cell := range cells[5:7] {
		n, procs, _ := strings.Cut(cell, " in ")
		stores, err1 := parseFigure(n)
		ps, err2 := parseFigure(procs)
		r.counts[i] = [2]float64{stores.value, ps.value}
		errs[4+2*i], errs[5+2*i] = err1, err2
	}
	if err := errors.Join(errs[:]...); err != nil {
		return machineRow{}, fmt.Errorf("row %q: %w", line, err)
	}
	return r, nil
}

// round3 rounds x to three significant figures.
func round3(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x))-2)
	return math.Round(x/p) * p
}

// TestMachineRowCheck: a row of the table as it is passes; the same row
// with its counts taken at 1,000 KB a MB fails.
func TestMachineRowCheck(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   [2]bool
	}{
		{"| `sqlite_capi` | default | 429 / 775 KB | 17,989 (open files) | 9.7 MB | 55,100 in 4 | 30,500 in 2 | 36,000 in 3 |", [2]bool{true, true}},
		{"| `sqlite_capi` | default | 429 / 775 KB | 17,989 (open files) | 9.9 MB | 53,000 in 3 | 29,000 in 2 | 36,000 in 3 |", [2]bool{false, false}},
		{"| `sqlite` | lean | 26 / 374 KB | 17,989 (open files) | 9.9 MB | 851,000 in 48 | 63,300 in 4 | 100,000 in 6 |", [2]bool{false, true}},
		{"| `sqlite` | lean | 26 / 374 KB | 17,989 (open files) | 9.7 MB | 877,000 in 45 | 63,300 in 4 | 100,000 in 6 |", [2]bool{false, true}}, // processes wrong
	} {
		r, err := parseMachineRow(c.line)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if err := r.check(r.perStore[i], r.counts[i]); (err == nil) != c.ok[i] {
				t.Errorf("%s, column %d: error %v, want ok %v", c.line, i, err, c.ok[i])
			}
		}
	}
}
