// Package corpus reads real data for manydb's notes: a corpus of items,
// each with a text, a topic and an embedding. It reads GloVe's vectors
// (glove.go), WordNet's glosses (wordnet.go), a user's texts as JSONL
// (jsonl.go) and vectors as .npy or .fvecs (npy.go, fvecs.go), finds
// topics by k-means where the data has none (kmeans.go), and keeps a
// prepared corpus in a cache file keyed by its inputs (cache.go).
// internal/datasource turns a corpus into each store's notes.
package corpus

import (
	"fmt"
	"math"
)

// Corpus is a set of items: item i has Texts[i], Topics[i] (an index into
// TopicNames) and the embedding Vecs[i*Dims:(i+1)*Dims], of unit length.
type Corpus struct {
	Texts      []string
	Topics     []int32
	TopicNames []string
	Dims       int
	Vecs       []float32
}

// Len is the number of items.
func (c *Corpus) Len() int { return len(c.Texts) }

// Vec returns item i's embedding.
func (c *Corpus) Vec(i int) []float32 { return c.Vecs[i*c.Dims : (i+1)*c.Dims] }

// Check reports the first thing that makes c unusable: no items, lists
// of other lengths, a topic outside TopicNames, or a vector that is not
// of unit length (Normalize makes them so).
func (c *Corpus) Check() error {
	n := c.Len()
	switch {
	case n == 0:
		return fmt.Errorf("the corpus is empty")
	case len(c.Topics) != n:
		return fmt.Errorf("%d topics for %d texts", len(c.Topics), n)
	case c.Dims < 1 || len(c.Vecs) != n*c.Dims:
		return fmt.Errorf("%d values for %d texts of %d dims", len(c.Vecs), n, c.Dims)
	}
	for i, t := range c.Topics {
		if t < 0 || int(t) >= len(c.TopicNames) {
			return fmt.Errorf("item %d: topic %d of %d", i+1, t, len(c.TopicNames))
		}
	}
	for i := range n {
		if norm := vecNorm(c.Vec(i)); math.Abs(norm-1) > 1e-3 {
			return fmt.Errorf("item %d: an embedding of norm %g, not 1", i+1, norm)
		}
	}
	return nil
}

// Normalize scales vecs, rows of dims values, to unit length. A value
// that is NaN or infinite, or a row of zeros (which has no cosine), is an
// error naming its row (1-based).
func Normalize(vecs []float32, dims int) error {
	for r := 0; r*dims < len(vecs); r++ {
		row := vecs[r*dims : (r+1)*dims]
		for _, x := range row {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("vector %d holds %g", r+1, x)
			}
		}
		norm := vecNorm(row)
		if norm == 0 {
			return fmt.Errorf("vector %d is all zeros: it has no cosine distance", r+1)
		}
		for k := range row {
			row[k] = float32(float64(row[k]) / norm)
		}
	}
	return nil
}

func vecNorm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
