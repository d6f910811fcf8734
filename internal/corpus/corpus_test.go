package corpus

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeNPY writes a rows×cols float32 .npy file of vals (in the order
// given) with the header's fortran_order.
func writeNPY(t *testing.T, path string, rows, cols int, fortran bool, vals []float32) {
	t.Helper()
	order := "False"
	if fortran {
		order = "True"
	}
	head := "{'descr': '<f4', 'fortran_order': " + order + ", 'shape': (" + strconv.Itoa(rows) + ", " + strconv.Itoa(cols) + "), }"
	for (10+len(head)+1)%64 != 0 {
		head += " "
	}
	head += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(head)), byte(len(head)>>8))
	b = append(b, head...)
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadNPYOrders: the same 2×3 matrix stored in C and in Fortran
// order reads back as the same rows.
func TestReadNPYOrders(t *testing.T) {
	dir := t.TempDir()
	c, f := filepath.Join(dir, "c.npy"), filepath.Join(dir, "f.npy")
	writeNPY(t, c, 2, 3, false, []float32{1, 2, 3, 4, 5, 6})
	writeNPY(t, f, 2, 3, true, []float32{1, 4, 2, 5, 3, 6})
	for _, path := range []string{c, f} {
		v, rows, cols, err := ReadNPY(path)
		if err != nil || rows != 2 || cols != 3 || !equal(v, []float32{1, 2, 3, 4, 5, 6}) {
			t.Errorf("%s: %v %d×%d, %v; want rows 1 2 3 / 4 5 6", filepath.Base(path), v, rows, cols, err)
		}
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestReadNPYBad: a cut file, a longer one, another dtype, a file that is
// not .npy: each an error naming the file.
func TestReadNPYBad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.npy")
	writeNPY(t, good, 2, 3, false, []float32{1, 2, 3, 4, 5, 6})
	b, _ := os.ReadFile(good)
	cases := map[string][]byte{
		"cut.npy":    b[:len(b)-3],
		"longer.npy": append(append([]byte{}, b...), 0, 0, 0, 0),
		"f8.npy":     []byte(strings.Replace(string(b), "<f4", "<f8", 1)),
		"text.npy":   []byte("word 0.1 0.2\n"),
	}
	for name, content := range cases {
		path := filepath.Join(dir, name)
		os.WriteFile(path, content, 0o644)
		if _, _, _, err := ReadNPY(path); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
}

func writeFvecs(t *testing.T, path string, rows ...[]float32) {
	t.Helper()
	var b []byte
	for _, r := range rows {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(r)))
		for _, v := range r {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadFvecs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.fvecs")
	writeFvecs(t, path, []float32{1, 2}, []float32{3, 4})
	v, rows, dims, err := ReadFvecs(path)
	if err != nil || rows != 2 || dims != 2 || !equal(v, []float32{1, 2, 3, 4}) {
		t.Fatalf("ReadFvecs = %v %d×%d, %v", v, rows, dims, err)
	}
	writeFvecs(t, path, []float32{1, 2}, []float32{3, 4, 5})
	if _, _, _, err := ReadFvecs(path); err == nil || !strings.Contains(err.Error(), "vector 2 has dimension 3") {
		t.Errorf("mixed dimensions: %v", err)
	}
	b, _ := os.ReadFile(path)
	os.WriteFile(path, b[:10], 0o644)
	if _, _, _, err := ReadFvecs(path); err == nil || !strings.Contains(err.Error(), "vector 1") {
		t.Errorf("a cut file: %v", err)
	}
}

// TestNormalize: unit length, and NaN, infinite and zero rows refused by
// row.
func TestNormalize(t *testing.T) {
	v := []float32{3, 4, 0, 2}
	if err := Normalize(v, 2); err != nil || !equal(v, []float32{0.6, 0.8, 0, 1}) {
		t.Errorf("Normalize = %v, %v", v, err)
	}
	for _, c := range []struct {
		v    []float32
		want string
	}{
		{[]float32{1, 1, float32(math.NaN()), 1}, "vector 2 holds NaN"},
		{[]float32{float32(math.Inf(1)), 1}, "vector 1 holds +Inf"},
		{[]float32{1, 1, 0, 0}, "vector 2 is all zeros"},
	} {
		if err := Normalize(c.v, 2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Normalize(%v) = %v, want %q", c.v, err, c.want)
		}
	}
}

func TestParseSynset(t *testing.T) {
	line := "00002137 03 n 02 abstraction 0 abstract_entity 0 010 @ 00001740 n 0000 | a general concept formed by extracting common features from specific examples  "
	topic, gloss, err := parseSynset(line)
	if err != nil || lexNames[topic] != "noun.Tops" || gloss != "a general concept formed by extracting common features from specific examples" {
		t.Errorf("parseSynset = %d (%s), %q, %v", topic, lexNames[topic], gloss, err)
	}
	for _, bad := range []string{"00002137 99 n 02 x 0 000 | a gloss", "00002137 03 n 02 x 0 000", "no"} {
		if _, _, err := parseSynset(bad); err == nil {
			t.Errorf("parseSynset(%q): no error", bad)
		}
	}
}

func TestReadJSONL(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "notes.jsonl")
	os.WriteFile(path, []byte(`{"text": "a cat", "agent": "ann"}
{"text": "a dog", "agent": "bob"}

{"text": "café", "agent": "ann"}
`), 0o644)
	c, byAgent, err := ReadJSONL(path)
	if err != nil || !byAgent || c.Len() != 3 || !slicesEqual(c.TopicNames, []string{"ann", "bob"}) || c.Topics[2] != 0 {
		t.Fatalf("ReadJSONL = %+v, %v, %v", c, byAgent, err)
	}
	for content, want := range map[string]string{
		`{"text": "a", "topic": "x"}` + "\n" + `{"text": "b", "agent": "y"}`: "notes.jsonl:2",
		`{"text": "a"}`:                           "notes.jsonl:1: want one of",
		`{"text": "", "topic": "x"}`:              "empty",
		`{"text": "a", "topic": "x", "vec": [1]}`: "unknown field",
		"": "no texts",
	} {
		os.WriteFile(path, []byte(content), 0o644)
		if _, _, err := ReadJSONL(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", content, err, want)
		}
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// TestCache: a saved corpus loads back as it was under its key, and is
// stale under another key or when cut.
func TestCache(t *testing.T) {
	c := &Corpus{Texts: []string{"a", "bé"}, Topics: []int32{1, 0}, TopicNames: []string{"x", "y"}, Dims: 2, Vecs: []float32{1, 0, 0, 1}}
	path := filepath.Join(t.TempDir(), "c.corpus")
	if err := Save(path, "k1", c, true); err != nil {
		t.Fatal(err)
	}
	got, byAgent, err := Load(path, "k1")
	if err != nil || !byAgent || !slicesEqual(got.Texts, c.Texts) || got.Topics[0] != 1 || !equal(got.Vecs, c.Vecs) || got.Dims != 2 {
		t.Fatalf("Load = %+v, %v, %v", got, byAgent, err)
	}
	if _, _, err := Load(path, "k2"); !errors.Is(err, ErrStale) {
		t.Errorf("another key: %v, want ErrStale", err)
	}
	b, _ := os.ReadFile(path)
	os.WriteFile(path, b[:len(b)-2], 0o644)
	if _, _, err := Load(path, "k1"); err == nil {
		t.Error("a cut file loaded")
	}
}

// TestKMeans: two well-separated groups end in two topics, each group in
// one.
func TestKMeans(t *testing.T) {
	c := &Corpus{Dims: 2}
	for i := range 40 {
		v := []float32{1, float32(i%5) * 0.01}
		if i%2 == 1 {
			v = []float32{float32(i%5) * 0.01, 1}
		}
		c.Texts, c.Vecs = append(c.Texts, "t"), append(c.Vecs, v...)
	}
	c.Topics = make([]int32, 40)
	if err := Normalize(c.Vecs, 2); err != nil {
		t.Fatal(err)
	}
	if err := KMeans(c, 2, 5, 7); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if (c.Topics[i] == c.Topics[0]) != (i%2 == 0) {
			t.Fatalf("item %d in topic %d, item 0 in %d: the groups are mixed", i, c.Topics[i], c.Topics[0])
		}
	}
	if err := KMeans(c, 41, 1, 1); err == nil {
		t.Error("41 clusters of 40 items: no error")
	}
}
