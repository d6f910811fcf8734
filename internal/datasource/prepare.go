package datasource

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"manydb/internal/corpus"
	"manydb/internal/workload"
)

// Prep is what preparing a data source read from files needs.
type Prep struct {
	Spec       workload.Spec // the study's workload; Spec.Data names the source
	Stores     int           // stores the study makes: each must be fillable
	ThirdParty string        // where make build puts downloaded data (third_party)
	Progress   io.Writer     // told of long work (embedding), a line every few seconds
}

// files is how a source read from files is prepared: the files it reads,
// what it is called in a record, and how its corpus is made from them.
type files struct {
	version string
	inputs  func(p Prep) ([]string, error)             // the files whose content the corpus depends on
	make    func(p Prep) (*corpus.Corpus, bool, error) // the corpus, and whether it names agents
}

// CacheDir is where prepared corpora are kept: $MANYDB_CACHE, or manydb
// under the user's cache directory.
func CacheDir() (string, error) {
	if d := os.Getenv("MANYDB_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for prepared data (set MANYDB_CACHE): %w", err)
	}
	return filepath.Join(d, "manydb"), nil
}

// cachePath is the file that holds the corpus of data d.
func cachePath(d workload.Data) (string, error) {
	dir, err := CacheDir()
	if err != nil {
		return "", err
	}
	if len(d.SHA256) < 16 {
		return "", fmt.Errorf("data source %s names no prepared corpus (no SHA-256)", d.Name)
	}
	return filepath.Join(dir, d.Name+"-"+d.SHA256[:16]+".corpus"), nil
}

// prepare makes the corpus of f once: its key is the hash of its inputs'
// content and of how it is made (version), and a cached corpus of that
// key is used as it is. It returns the Data a job names the source by,
// after checking that p's stores can be filled from it.
func (f files) prepare(name string, p Prep) (workload.Data, error) {
	start := time.Now() // hashing the inputs included
	inputs, err := f.inputs(p)
	if err != nil {
		return workload.Data{}, err
	}
	key, err := hashInputs(f.version, inputs)
	if err != nil {
		return workload.Data{}, err
	}
	d := workload.Data{Name: name, Version: f.version, SHA256: key}
	path, err := cachePath(d)
	if err != nil {
		return d, err
	}
	how := "read from"
	c, byAgent, err := corpus.Load(path, key)
	if err != nil {
		if c, byAgent, err = f.make(p); err != nil {
			return d, err
		}
		if err := corpus.Save(path, key, c, byAgent); err != nil {
			return d, fmt.Errorf("keeping the prepared corpus: %w", err)
		}
		how = "made and kept in"
	}
	if p.Progress != nil {
		fmt.Fprintf(p.Progress, "data source %s: %d items of %d dims in %d topics, %s %s in %s\n",
			name, c.Len(), c.Dims, len(c.TopicNames), how, path, time.Since(start).Round(time.Millisecond))
	}
	src, err := newCorpusSource(p.Spec, d, c, byAgent)
	if err == nil {
		err = src.CheckStores(p.Stores)
	}
	return d, err
}

// hashInputs is the SHA-256 of version and of each input file's content.
func hashInputs(version string, inputs []string) (string, error) {
	h := sha256.New()
	io.WriteString(h, version+"\n")
	for _, in := range inputs {
		f, err := os.Open(in)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("%s: %w", in, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// openPrepared opens the corpus a job names, which the study prepared
// before it started its workers.
func openPrepared(s workload.Spec) (Source, error) {
	path, err := cachePath(s.Data)
	if err != nil {
		return nil, err
	}
	c, byAgent, err := corpus.Load(path, s.Data.SHA256)
	if err != nil {
		return nil, fmt.Errorf("the prepared corpus: %w (manydb run prepares it)", err)
	}
	return newCorpusSource(s, s.Data, c, byAgent)
}
