package corpus

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
)

// npyHeader matches the dictionary of a version 1–3 .npy header.
var npyHeader = regexp.MustCompile(`^\{'descr': '([^']*)', 'fortran_order': (True|False), 'shape': \((\d+), (\d+)\), \}\s*$`)

// ReadNPY reads a two-dimensional float32 array from a .npy file, in C
// or Fortran order (the header says which), and returns its rows one
// after another, with the number of rows and columns. Any other dtype,
// shape or a short file is an error naming the file.
func ReadNPY(path string) (vecs []float32, rows, cols int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	fortran, rows, cols, err := readNPYHeader(r)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	raw := make([]float32, rows*cols)
	if err := binary.Read(r, binary.LittleEndian, raw); err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %d×%d float32 values announced, the file is shorter (%w)", path, rows, cols, err)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return nil, 0, 0, fmt.Errorf("%s: bytes after the %d×%d values its header announces", path, rows, cols)
	}
	if !fortran {
		return raw, rows, cols, nil
	}
	return transpose(raw, rows, cols), rows, cols, nil
}

// readNPYHeader reads the magic string, version and header of a .npy
// file: whether it is in Fortran order, and its shape.
func readNPYHeader(r io.Reader) (fortran bool, rows, cols int, err error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil || string(pre[:6]) != "\x93NUMPY" {
		return false, 0, 0, fmt.Errorf("not a .npy file (no \\x93NUMPY magic string)")
	}
	var n int
	switch pre[6] {
	case 1:
		var l uint16
		err = binary.Read(r, binary.LittleEndian, &l)
		n = int(l)
	case 2, 3:
		var l uint32
		err = binary.Read(r, binary.LittleEndian, &l)
		n = int(l)
	default:
		return false, 0, 0, fmt.Errorf(".npy version %d: want 1, 2 or 3", pre[6])
	}
	head := make([]byte, n)
	if _, err2 := io.ReadFull(r, head); err != nil || err2 != nil || n > 1<<16 {
		return false, 0, 0, fmt.Errorf("a cut .npy header")
	}
	m := npyHeader.FindStringSubmatch(string(head))
	if m == nil {
		return false, 0, 0, fmt.Errorf("header %q: want a two-dimensional array", head)
	}
	if m[1] != "<f4" {
		return false, 0, 0, fmt.Errorf("dtype %s: want little-endian float32 (<f4)", m[1])
	}
	rows, _ = strconv.Atoi(m[3])
	cols, _ = strconv.Atoi(m[4])
	if rows < 1 || cols < 1 || rows > math.MaxInt32/cols {
		return false, 0, 0, fmt.Errorf("shape (%d, %d): want at least one row and one column", rows, cols)
	}
	return m[2] == "True", rows, cols, nil
}

// transpose turns a column-major rows×cols array into row-major order.
func transpose(colMajor []float32, rows, cols int) []float32 {
	out := make([]float32, len(colMajor))
	for c := range cols {
		col := colMajor[c*rows : (c+1)*rows]
		for r, x := range col {
			out[r*cols+c] = x
		}
	}
	return out
}
