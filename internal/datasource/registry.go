package datasource

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"manydb/internal/workload"
)

// Synthetic is the default source's name (--data). A workload names it
// with the zero workload.Data, so that its records are those made before
// data sources had names.
const Synthetic = "synthetic"

// Entry is one data source of the registry.
type Entry struct {
	Name  string // what --data takes and a record names
	About string // one line for --data's help
	// Open loads the source for workload s, once per process; an error
	// names what could not be read.
	Open func(s workload.Spec) (Source, error)
	// Prepare, for a source read from files, makes its corpus once (it
	// may embed texts for minutes) before a study starts its workers,
	// and returns the Data the study's jobs name it by; nil for a source
	// that needs nothing prepared.
	Prepare func(p Prep) (workload.Data, error)
	// SweepTotal is the notes manydb sweep divides among the agents
	// unless told (--total); 0 for a user's file, whose size is its own.
	SweepTotal int
}

// Entries is the registry: every data source, the default first.
func Entries() []Entry {
	return []Entry{
		{Name: Synthetic, About: "generated notes of Lorem ipsum and, with --dims, clustered embeddings", Open: openSynthetic, SweepTotal: 200_000},
		{Name: GloVe50, About: "GloVe 6B's words and their 50-dim vectors, in 100 k-means topics", Open: openPrepared,
			Prepare: func(p Prep) (workload.Data, error) { return glove.prepare(GloVe50, p) }, SweepTotal: 200_000},
		// 100,000 of the glosses not held out as queries (one in 20 is)
		{Name: MiniLMWordNet, About: "WordNet 3.0's 117,659 glosses, embedded by all-MiniLM-L6-v2 (384 dims), in its 45 lexicographer files as topics", Open: openPrepared,
			Prepare: func(p Prep) (workload.Data, error) { return wordNet.prepare(MiniLMWordNet, p) }, SweepTotal: 100_000},
	}
}

// fileEntry is the entry of a user's file, which --data names by its
// path (Data.Version holds it).
func fileEntry(path string) Entry {
	return Entry{Name: fileSource, About: "a user's file", Open: openPrepared,
		Prepare: func(p Prep) (workload.Data, error) { return userFile(path).prepare(fileSource, p) }}
}

// SweepTotal is the notes manydb sweep divides among the agents of the
// source d names unless told: 0 when it has no default (a user's file).
func SweepTotal(d workload.Data) int {
	e, err := entryOf(d)
	if err != nil {
		return 0
	}
	return e.SweepTotal
}

// Names returns the registry's names, in its order.
func Names() []string {
	var names []string
	for _, e := range Entries() {
		names = append(names, e.Name)
	}
	return names
}

// Help describes the registry's sources for --data's help.
func Help() string {
	var parts []string
	for _, e := range Entries() {
		parts = append(parts, e.Name+" ("+e.About+")")
	}
	return "where the notes come from: " + strings.Join(parts, "; ") +
		"; or a file of your own: texts as .jsonl ({\"text\": …, \"topic\" or \"agent\": …} a line, embedded by all-MiniLM-L6-v2), vectors as .npy (float32) or .fvecs"
}

// Name is the name of the source d names: Synthetic for the zero Data.
func Name(d workload.Data) string {
	if d.Name == "" {
		return Synthetic
	}
	return d.Name
}

// Lookup returns the entry named name, or an error listing the
// registry's names.
func Lookup(name string) (Entry, error) {
	for _, e := range Entries() {
		if e.Name == name {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("--data %q: use %s", name, strings.Join(Names(), ", "))
}

// Choose returns what a workload holds (workload.Spec.Data) for the
// source named name: the zero Data for Synthetic.
func Choose(name string) (workload.Data, error) {
	if IsFile(name) {
		abs, err := filepath.Abs(name)
		if err != nil {
			return workload.Data{}, fmt.Errorf("--data %q: %w", name, err)
		}
		if _, err := os.Stat(abs); err != nil {
			return workload.Data{}, fmt.Errorf("--data %q: %w", name, err)
		}
		return workload.Data{Name: fileSource, Version: abs}, nil
	}
	if _, err := Lookup(name); err != nil {
		return workload.Data{}, err
	}
	if name == Synthetic {
		return workload.Data{}, nil
	}
	return workload.Data{Name: name}, nil
}

// Open loads the source workload s names. A workload with embeddings
// (Dims > 0) needs a source with them (Vectors).
func Open(s workload.Spec) (Source, error) {
	e, err := entryOf(s.Data)
	if err != nil {
		return nil, err
	}
	return e.load(s)
}

// entryOf returns the entry of the source d names.
func entryOf(d workload.Data) (Entry, error) {
	if d.Name == fileSource {
		return fileEntry(d.Version), nil
	}
	return Lookup(Name(d))
}

// Prepare makes the corpus of the source p.Spec.Data names, if it has
// one to make, and returns the Data the study's jobs are to name it by
// (with its version and the SHA-256 of its inputs); for the synthetic
// source, p.Spec.Data as it is.
func Prepare(p Prep) (workload.Data, error) {
	e, err := entryOf(p.Spec.Data)
	if err != nil || e.Prepare == nil {
		return p.Spec.Data, err
	}
	d, err := e.Prepare(p)
	if err != nil {
		return d, fmt.Errorf("data source %s: %w", Name(p.Spec.Data), err)
	}
	return d, nil
}

// VectorsOf returns src as a source with embeddings, or an error saying
// it has none.
func VectorsOf(src Source) (Vectors, error) {
	v, ok := src.(Vectors)
	if !ok {
		return nil, fmt.Errorf("data source %s has no embeddings: run it without --dims", Name(src.Info()))
	}
	return v, nil
}

// load opens entry e's source for workload s and checks that it has
// embeddings if s does, and the version and content s names, if it names
// them (the stores were made with those).
func (e Entry) load(s workload.Spec) (Source, error) {
	src, err := e.Open(s)
	if err != nil {
		return nil, fmt.Errorf("data source %s: %w", e.Name, err)
	}
	if s.Dims > 0 {
		if _, err := VectorsOf(src); err != nil {
			return nil, err
		}
	}
	want, got := s.Data, src.Info()
	if (want.Version != "" && want.Version != got.Version) || (want.SHA256 != "" && want.SHA256 != got.SHA256) {
		return nil, fmt.Errorf("data source %s: loaded version %q (SHA-256 %s), but the stores were made with version %q (SHA-256 %s)",
			e.Name, got.Version, got.SHA256, want.Version, want.SHA256)
	}
	return src, nil
}
