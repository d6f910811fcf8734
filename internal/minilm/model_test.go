package minilm

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// modelDir is where scripts/fetch-minilm.sh installs the model.
const modelDir = "../../third_party/minilm"

// loadModel loads the installed model, or skips: a clone without
// third_party/minilm (a bare clone) has nothing to check these against.
func loadModel(t testing.TB, opts Options) *Model {
	t.Helper()
	if testing.Short() {
		t.Skip("long test: loads the 90 MB model")
	}
	if _, err := os.Stat(filepath.Join(modelDir, weightsFile)); err != nil {
		t.Skipf("no model in %s (a bare clone; scripts/fetch-minilm.sh installs it): %v", modelDir, err)
	}
	m, err := Load(modelDir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// TestKnownAnswer checks the cosines sentence-transformers' documentation
// gives for this model (its quickstart's similarity matrix).
func TestKnownAnswer(t *testing.T) {
	m := loadModel(t, Options{})
	v, err := m.Embed([]string{"The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		i, j int
		want float64
	}{{0, 1, 0.6660}, {0, 2, 0.1046}} {
		got := cosine(v[c.i], v[c.j])
		if math.Abs(got-c.want) > 0.001 {
			t.Errorf("cosine(text %d, text %d) = %.4f, want %.4f", c.i, c.j, got, c.want)
		}
		t.Logf("cosine(text %d, text %d) = %.4f (documented %.4f)", c.i, c.j, got, c.want)
	}
	for i, e := range v {
		if len(e) != 384 {
			t.Errorf("embedding %d: %d values, want 384", i, len(e))
		}
		var norm float64
		for _, x := range e {
			norm += float64(x) * float64(x)
		}
		if math.Abs(norm-1) > 1e-5 {
			t.Errorf("embedding %d: squared length %v, want 1", i, norm)
		}
	}
}

// TestLoadDamaged checks Load on a copy of the model whose safetensors
// file is cut short, and on one whose config asks for another shape.
func TestLoadDamaged(t *testing.T) {
	loadModel(t, Options{}) // skips without the model
	for _, c := range []struct {
		name   string
		damage func(dir string) error
		want   string
	}{
		{"truncated", func(dir string) error {
			raw, err := os.ReadFile(filepath.Join(modelDir, weightsFile))
			if err != nil {
				return err
			}
			return replaceFile(filepath.Join(dir, weightsFile), raw[:len(raw)/2])
		}, weightsFile + ": tensor"},
		{"other shape", func(dir string) error {
			raw, err := os.ReadFile(filepath.Join(modelDir, configFile))
			if err != nil {
				return err
			}
			raw = []byte(strings.Replace(string(raw), `"intermediate_size": 1536`, `"intermediate_size": 1024`, 1))
			return replaceFile(filepath.Join(dir, configFile), raw)
		}, "has shape [1536 384], want [1024 384]"},
	} {
		dir := linkModel(t)
		if err := c.damage(dir); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir, Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Load error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

// linkModel links the model's files into a temporary directory, so that
// a test can replace one of them (with replaceFile: writing through a
// link would damage the model itself).
func linkModel(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{configFile, sbertFile, poolingFile, modulesFile, tokenizerFile, weightsFile} {
		target, err := filepath.Abs(filepath.Join(modelDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// replaceFile removes the link at path and writes a file there instead.
func replaceFile(path string, raw []byte) error {
	if err := os.Remove(path); err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o644)
}
