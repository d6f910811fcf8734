package minilm

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTensorFile writes a safetensors file whose header is header and
// whose data is n zero bytes.
func writeTensorFile(t *testing.T, header string, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.safetensors")
	raw := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	raw = append(append(raw, header...), make([]byte, n)...)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTensorFileErrors checks that each kind of damage is an error that
// names the file and the problem.
func TestTensorFileErrors(t *testing.T) {
	const good = `{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},` +
		`"i":{"dtype":"I64","shape":[2],"data_offsets":[24,40]}}`
	for _, c := range []struct {
		name, header, tensor string
		shape                []int
		data                 int
		want                 string
	}{
		{"truncated data", good, "w", []int{2, 3}, 20, "truncated"},
		{"wrong shape", good, "w", []int{3, 2}, 40, "has shape [2 3], want [3 2]"},
		{"wrong dtype", good, "i", []int{2}, 40, "has dtype I64, want F32"},
		{"missing tensor", good, "x", []int{2}, 40, "no tensor x"},
		{"offsets not the shape's", `{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, "w", []int{2}, 8, "do not hold 2 float32s"},
	} {
		path := writeTensorFile(t, c.header, c.data)
		f, err := readTensorFile(path)
		if err == nil {
			_, err = f.float32s(c.tensor, c.shape...)
		}
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %s and saying %q", c.name, err, path, c.want)
		}
	}
	path := writeTensorFile(t, good, 40)
	if v, err := readTensorFile(path); err != nil {
		t.Errorf("good file: %v", err)
	} else if w, err := v.float32s("w", 2, 3); err != nil || len(w) != 6 {
		t.Errorf("good file: tensor w: %v, %d values", err, len(w))
	}
}

// TestHeaderErrors checks files too short to hold their header.
func TestHeaderErrors(t *testing.T) {
	dir := t.TempDir()
	for name, raw := range map[string][]byte{
		"short":       {1, 2, 3},
		"long-header": binary.LittleEndian.AppendUint64(nil, 1000),
		"not-json":    append(binary.LittleEndian.AppendUint64(nil, 3), "{x}"...),
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readTensorFile(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming %s", name, err, path)
		}
	}
}

// TestLoadMissing checks that a directory without the model is an error
// naming the file it looked for.
func TestLoadMissing(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, configFile)) {
		t.Errorf("Load(empty dir) error %v, want one naming %s", err, filepath.Join(dir, configFile))
	}
}
