package corpus

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// ReadFvecs reads a .fvecs file (each vector a little-endian int32
// dimension followed by that many float32 values, as the ANN test sets
// are stored) and returns its vectors one after another, with their
// count and dimension. Vectors of different dimensions or a cut vector
// are an error naming the file and the vector.
func ReadFvecs(path string) (vecs []float32, rows, dims int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		var d int32
		if err := binary.Read(r, binary.LittleEndian, &d); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, 0, 0, fmt.Errorf("%s: vector %d: a cut dimension", path, rows+1)
		}
		if d < 1 || d > 1<<16 || (rows > 0 && int(d) != dims) {
			return nil, 0, 0, fmt.Errorf("%s: vector %d has dimension %d, want %s", path, rows+1, d, fvecsWant(dims))
		}
		dims = int(d)
		row := make([]float32, dims)
		if err := binary.Read(r, binary.LittleEndian, row); err != nil {
			return nil, 0, 0, fmt.Errorf("%s: vector %d: cut short (%w)", path, rows+1, err)
		}
		vecs = append(vecs, row...)
		rows++
	}
	if rows == 0 {
		return nil, 0, 0, fmt.Errorf("%s: no vectors", path)
	}
	return vecs, rows, dims, nil
}

func fvecsWant(dims int) string {
	if dims == 0 {
		return "1 to 65536"
	}
	return fmt.Sprint(dims, " as the vectors before it")
}
