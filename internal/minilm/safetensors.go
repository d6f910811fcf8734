package minilm

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
)

// maxHeaderBytes bounds the JSON header of a safetensors file; a larger
// length prefix means the file is not safetensors (or is damaged).
const maxHeaderBytes = 100 << 20

// tensorFile is a safetensors file read whole: 8 bytes of little-endian
// header length, the JSON header naming each tensor's dtype, shape and
// byte range, then the raw tensors.
type tensorFile struct {
	path    string
	tensors map[string]tensorInfo
	data    []byte // the bytes after the header; offsets count from here
}

// tensorInfo is one tensor's entry in the header.
type tensorInfo struct {
	DType   string   `json:"dtype"`
	Shape   []int    `json:"shape"`
	Offsets [2]int64 `json:"data_offsets"`
}

// readTensorFile reads path and parses its header.
func readTensorFile(path string) (*tensorFile, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("minilm: %w", err)
	}
	if len(raw) < 8 {
		return nil, fmt.Errorf("minilm: %s: truncated: %d bytes, no header length", path, len(raw))
	}
	n := binary.LittleEndian.Uint64(raw[:8])
	if n > maxHeaderBytes || n > uint64(len(raw)-8) {
		return nil, fmt.Errorf("minilm: %s: truncated or not safetensors: header of %d bytes in a file of %d", path, n, len(raw))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw[8:8+n], &fields); err != nil {
		return nil, fmt.Errorf("minilm: %s: header: %w", path, err)
	}
	f := &tensorFile{path: path, tensors: map[string]tensorInfo{}, data: raw[8+n:]}
	for name, field := range fields {
		if name == "__metadata__" {
			continue
		}
		var info tensorInfo
		if err := json.Unmarshal(field, &info); err != nil {
			return nil, fmt.Errorf("minilm: %s: header entry %s: %w", path, name, err)
		}
		f.tensors[name] = info
	}
	return f, nil
}

// float32s returns the tensor name as float32s after checking that it
// is there, is F32, has exactly the shape want and lies inside the file.
func (f *tensorFile) float32s(name string, want ...int) ([]float32, error) {
	info, ok := f.tensors[name]
	if !ok {
		return nil, fmt.Errorf("minilm: %s: no tensor %s", f.path, name)
	}
	if info.DType != "F32" {
		return nil, fmt.Errorf("minilm: %s: tensor %s has dtype %s, want F32", f.path, name, info.DType)
	}
	if !slices.Equal(info.Shape, want) {
		return nil, fmt.Errorf("minilm: %s: tensor %s has shape %v, want %v", f.path, name, info.Shape, want)
	}
	count := 1
	for _, d := range want {
		count *= d
	}
	start, end := info.Offsets[0], info.Offsets[1]
	if start < 0 || end != start+4*int64(count) || end > int64(len(f.data)) {
		return nil, fmt.Errorf("minilm: %s: tensor %s: bytes [%d, %d) do not hold %d float32s inside the %d bytes of data (truncated?)",
			f.path, name, start, end, count, len(f.data))
	}
	out := make([]float32, count)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(f.data[start+4*int64(i):]))
	}
	return out, nil
}
