// Package minilm embeds text with the all-MiniLM-L6-v2 sentence-embedding
// model in Go: WordPiece tokenisation as the model's tokenizer.json says,
// the 6-layer BERT encoder from model.safetensors, mean pooling over the
// tokens and L2 normalisation, as its 1_Pooling and modules.json say.
// The result matches sentence-transformers' encode (384 float32s a text).
//
// scripts/fetch-minilm.sh puts the model's files in third_party/minilm.
// The matrix products run in an AVX2+FMA kernel (kernel_amd64.s) where
// the CPU has it, in plain Go loops elsewhere: pure Go, so manydb still
// builds without cgo, and about 8 times gonum's pure-Go Sgemm and 15
// times plain Go loops per CPU-second (BenchmarkMulT). The texts are
// split into batches that run on several goroutines; BenchmarkEmbed
// reports texts per second and per CPU-second.
package minilm

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"unicode/utf8"
)

// DefaultBatch is how many texts a worker embeds at once.
const DefaultBatch = 32

// Options sets how Embed runs.
type Options struct {
	Workers  int             // goroutines; 0 means GOMAXPROCS
	Batch    int             // texts a worker embeds at once; 0 means DefaultBatch
	Progress func(texts int) // if set, told of each batch done; called from the workers at once
}

// Model is a loaded all-MiniLM-L6-v2; Embed may be called from several
// goroutines.
type Model struct {
	cfg  config
	tok  *Tokenizer
	w    weights
	opts Options
	fast bool // dot4x3 can run here
}

// Load reads the model from dir (config.json, sentence_bert_config.json,
// 1_Pooling/config.json, modules.json, tokenizer.json, model.safetensors).
// A missing or damaged file, or a tensor of another shape or dtype, is an
// error naming the file.
func Load(dir string, opts Options) (*Model, error) {
	cfg, err := readConfig(dir)
	if err != nil {
		return nil, err
	}
	if err := checkPipeline(dir, cfg.Hidden); err != nil {
		return nil, err
	}
	tok, err := readTokenizer(dir, cfg.MaxSeq)
	if err != nil {
		return nil, err
	}
	if err := tok.checkIDs(cfg.Vocab); err != nil {
		return nil, fmt.Errorf("minilm: %s: %w (%s says vocab_size %d)", filepath.Join(dir, tokenizerFile), err, filepath.Join(dir, configFile), cfg.Vocab)
	}
	w, err := loadWeights(filepath.Join(dir, weightsFile), cfg)
	if err != nil {
		return nil, err
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Batch <= 0 {
		opts.Batch = DefaultBatch
	}
	return &Model{cfg: cfg, tok: tok, w: w, opts: opts, fast: hasKernel()}, nil
}

// Dims is the length of an embedding (384).
func (m *Model) Dims() int { return m.cfg.Hidden }

// Tokenize returns text's token ids as Embed sees them: [CLS], word
// pieces, [SEP], at most sentence_bert_config.json's max_seq_length.
func (m *Model) Tokenize(text string) []int { return m.tok.Encode(text) }

// Embed returns one unit-length embedding per text, in order. A text
// that is not valid UTF-8 is an error.
func (m *Model) Embed(texts []string) ([][]float32, error) {
	for i, t := range texts {
		if !utf8.ValidString(t) {
			return nil, fmt.Errorf("minilm: text %d is not valid UTF-8", i)
		}
	}
	out := make([][]float32, len(texts))
	starts := make(chan int)
	var wg sync.WaitGroup
	for range m.opts.Workers {
		wg.Go(func() { m.work(texts, starts, out) })
	}
	for start := 0; start < len(texts); start += m.opts.Batch {
		starts <- start
	}
	close(starts)
	wg.Wait()
	return out, nil
}

// work embeds the batches that start at the indices it receives.
func (m *Model) work(texts []string, starts <-chan int, out [][]float32) {
	var s scratch
	for start := range starts {
		end := min(len(texts), start+m.opts.Batch)
		seqs := make([][]int, 0, end-start)
		for _, t := range texts[start:end] {
			seqs = append(seqs, m.tok.Encode(t))
		}
		m.forward(seqs, &s, out[start:end])
		if m.opts.Progress != nil {
			m.opts.Progress(end - start)
		}
	}
}
