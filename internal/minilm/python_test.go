package minilm

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// runPython runs scripts/SCRIPT with args, JSON in and out, or skips when
// python3 or the module it needs is not installed: those checks are for
// machines that have them (the test says which is missing).
func runPython(t *testing.T, script, module string, args []string, in, out any) {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the independent check needs it")
	}
	if err := exec.Command(python, "-c", "import "+module).Run(); err != nil {
		t.Skipf("python3 has no %s module (pip install %s): the independent check needs it", module, module)
	}
	input, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, append([]string{"../../scripts/" + script}, args...)...)
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = bytes.NewReader(input), &stderr
	output, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v: %s", script, err, stderr.String())
	}
	if err := json.Unmarshal(output, out); err != nil {
		t.Fatalf("%s: %v", script, err)
	}
}

// sampleTexts are texts that exercise the tokeniser: punctuation,
// accents, other scripts, CJK, control and zero-width characters,
// special tokens written out, a word over 100 characters and a text over
// the 256-token limit; each in a few variants (upper case, joined to the
// next, wrapped in punctuation), 200 and more in all.
func sampleTexts() []string {
	base := []string{
		"The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium.",
		"Café, naïve résumé — déjà vu; coöperate.", "Ångström, Øresund, straße & Œuvre",
		"Crème brûlée costs $4.50 (or €4,20)?!", "e-mail: someone@example.com; see http://x.y/z?a=1&b=2",
		"\"Quoted\" 'single' «guillemets» „low“ ‘curly’", "a...b---c___d~~~e|||f^^^g```h",
		"東京は日本の首都です。", "我爱北京天安门", "한국어 문장입니다.", "ひらがなとカタカナ",
		"Ελληνικά: Σίσυφος ΣΊΣΥΦΟΣ", "Русский текст, ёлка Ёлка.", "العربية نص", "עברית טקסט",
		"ﬁne ﬂour (ligatures) and ½ ² ™ ℃", "Tab\tand\nnewline\r\nand\u00a0nbsp\u2003em space",
		"zero\u200bwidth\u200djoiner\ufeffbom", "control\u0007bell\u001bescape\u0000nul",
		"emoji 😀👍🏽 and ❤️ hearts", "[MASK] is a [CLS] token, [SEP] ends and [UNK] [PAD]",
		"[mask] lower case is not special", "unaffable, unbelievable, antidisestablishmentarianism",
		strings.Repeat("a", 101) + " short", strings.Repeat("b", 100), "İstanbul ıi Iİ",
		"1,234.56 + 7 = 1241.56; 3/4 ≈ 0.75", "C++ and C# and F# are languages.",
		"dog's (canine's) owner: Mr. O'Neil, Jr.", "naïvely-hyphenated well-known co-operative",
		"ŻÓŁĆ gęślą jaźń", "Việt Nam Tiếng Việt", "Dvořák, Janáček, Smetana",
		"a combining e\u0301 and precomposed é", "Ω ohm Å angstrom K kelvin",
		"the quick brown fox jumps over the lazy dog",
		"an expression of greeting; \"every morning they exchanged polite hellos\"",
		"(botany) a plant having leaves; of the genus Rosa",
	}
	base = append(base, strings.Repeat("Longer text with many words, punctuation; and more. ", 40))
	var texts []string
	for i, b := range base {
		texts = append(texts, b, strings.ToUpper(b), b+" "+base[(i+1)%len(base)], "("+b+")...", "¿"+b+"?")
	}
	return texts
}

// TestTokensMatchTokenizers checks the Go tokeniser against Hugging
// Face's tokenizers reading the same tokenizer.json.
func TestTokensMatchTokenizers(t *testing.T) {
	m := loadModel(t, Options{})
	texts := sampleTexts()
	var want [][]int
	runPython(t, "minilm_tokens.py", "tokenizers", []string{modelDir, "256"}, texts, &want)
	if len(want) != len(texts) {
		t.Fatalf("%d texts, %d token lists", len(texts), len(want))
	}
	for i, text := range texts {
		if got := m.Tokenize(text); !slices.Equal(got, want[i]) {
			t.Errorf("text %d %q:\n got %v\nwant %v", i, text, got, want[i])
		}
	}
	t.Logf("%d texts, token ids identical", len(texts))
}

// TestEmbeddingsMatchNumpy checks the Go forward pass against numpy's
// over the same safetensors and token ids: cosine 0.9999 or more, on 41
// of the sample texts (numpy's float64 GELU, one math.erf a value, is
// slow), one over the 256-token limit among them.
func TestEmbeddingsMatchNumpy(t *testing.T) {
	m := loadModel(t, Options{Batch: 7})
	all := sampleTexts()
	texts := append(all[:40:40], all[len(all)-1]) // the last is over 256 tokens
	var ids [][]int
	for _, text := range texts {
		ids = append(ids, m.Tokenize(text))
	}
	var want [][]float64
	runPython(t, "minilm_numpy.py", "numpy", []string{modelDir}, ids, &want)
	got, err := m.Embed(texts)
	if err != nil {
		t.Fatal(err)
	}
	worst := 1.0
	for i := range texts {
		w := make([]float32, len(want[i]))
		for e, v := range want[i] {
			w[e] = float32(v)
		}
		c := cosine(got[i], w)
		worst = min(worst, c)
		if c < 0.9999 {
			t.Errorf("text %d %q: cosine %.6f to numpy's, want >= 0.9999", i, texts[i], c)
		}
	}
	t.Logf("%d texts, lowest cosine to numpy's %.7f", len(texts), worst)
}
