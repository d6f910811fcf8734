package corpus

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// cacheMagic begins a prepared corpus file; a new layout of the file
// changes it.
const cacheMagic = "manydb corpus 1\n"

// cacheHeader follows the magic string: what the file holds.
type cacheHeader struct {
	Key        string   `json:"key"` // the hash of the inputs it was made from
	Items      int      `json:"items"`
	Dims       int      `json:"dims"`
	TopicNames []string `json:"topic_names"`
	ByAgent    bool     `json:"by_agent,omitempty"`
}

// Save writes c to path, keyed by key (the hash of what it was made
// from), through a temporary file renamed into place: a reader never
// sees half a file.
func Save(path, key string, c *Corpus, byAgent bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".corpus-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	if err := writeCorpus(w, key, c, byAgent); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", tmp.Name(), err)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func writeCorpus(w io.Writer, key string, c *Corpus, byAgent bool) error {
	head, err := json.Marshal(cacheHeader{Key: key, Items: c.Len(), Dims: c.Dims, TopicNames: c.TopicNames, ByAgent: byAgent})
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, cacheMagic); err != nil {
		return err
	}
	le := binary.LittleEndian
	if err := binary.Write(w, le, uint32(len(head))); err != nil {
		return err
	}
	if _, err := w.Write(head); err != nil {
		return err
	}
	for _, t := range c.Texts {
		if err := binary.Write(w, le, uint32(len(t))); err != nil {
			return err
		}
		if _, err := io.WriteString(w, t); err != nil {
			return err
		}
	}
	if err := binary.Write(w, le, c.Topics); err != nil {
		return err
	}
	return binary.Write(w, le, c.Vecs)
}

// ErrStale is returned by Load for a file made from other inputs than
// key names (or of another layout): it is to be made again, not used.
var ErrStale = fmt.Errorf("a prepared corpus of other inputs")

// Load reads the corpus Save wrote to path, if it was made from the
// inputs key names; otherwise an error that is ErrStale.
func Load(path, key string) (c *Corpus, byAgent bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	h, err := readCacheHeader(r)
	if err != nil || h.Key != key {
		return nil, false, fmt.Errorf("%s: %w", path, ErrStale)
	}
	c, err = readCorpusBody(r, h)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	if err := c.Check(); err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return c, h.ByAgent, nil
}

func readCacheHeader(r io.Reader) (cacheHeader, error) {
	var h cacheHeader
	magic := make([]byte, len(cacheMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != cacheMagic {
		return h, ErrStale
	}
	var n uint32
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil || n > 1<<24 {
		return h, ErrStale
	}
	head := make([]byte, n)
	if _, err := io.ReadFull(r, head); err != nil {
		return h, ErrStale
	}
	err := json.Unmarshal(head, &h)
	return h, err
}

func readCorpusBody(r io.Reader, h cacheHeader) (*Corpus, error) {
	c := &Corpus{Texts: make([]string, h.Items), Topics: make([]int32, h.Items), TopicNames: h.TopicNames,
		Dims: h.Dims, Vecs: make([]float32, h.Items*h.Dims)}
	le := binary.LittleEndian
	for i := range c.Texts {
		var n uint32
		if err := binary.Read(r, le, &n); err != nil || n > 1<<24 {
			return nil, fmt.Errorf("text %d: cut short", i+1)
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, fmt.Errorf("text %d: cut short", i+1)
		}
		c.Texts[i] = string(b)
	}
	if err := binary.Read(r, le, c.Topics); err != nil {
		return nil, fmt.Errorf("topics: cut short")
	}
	if err := binary.Read(r, le, c.Vecs); err != nil {
		return nil, fmt.Errorf("vectors: cut short")
	}
	return c, nil
}
