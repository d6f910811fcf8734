package datasource

import (
	"fmt"
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
}

// Entries is the registry: every data source, the default first.
func Entries() []Entry {
	return []Entry{
		{Name: Synthetic, About: "generated notes of Lorem ipsum and, with --dims, clustered embeddings", Open: openSynthetic},
	}
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
	return "where the notes come from: " + strings.Join(parts, "; ")
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
	e, err := Lookup(Name(s.Data))
	if err != nil {
		return nil, err
	}
	return e.load(s)
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
