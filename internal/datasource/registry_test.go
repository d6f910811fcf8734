package datasource

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"manydb/internal/workload"
)

func TestRegistry(t *testing.T) {
	if names := Names(); len(names) == 0 || names[0] != Synthetic {
		t.Fatalf("Names() = %v, want the default %s first", names, Synthetic)
	}
	seen := map[string]bool{}
	for _, e := range Entries() {
		if e.Name == "" || e.About == "" || e.Open == nil || seen[e.Name] {
			t.Errorf("entry %+v: want a name of its own, a line of help and an Open", e)
		}
		seen[e.Name] = true
		if !strings.Contains(Help(), e.Name+" (") {
			t.Errorf("Help() %q does not list %s", Help(), e.Name)
		}
	}
}

func TestChooseAndName(t *testing.T) {
	d, err := Choose(Synthetic)
	if err != nil || d != (workload.Data{}) {
		t.Fatalf("Choose(%q) = %+v, %v; want the zero Data", Synthetic, d, err)
	}
	if got := Name(d); got != Synthetic {
		t.Errorf("Name of the zero Data = %q, want %q", got, Synthetic)
	}
	if got := Name(workload.Data{Name: "glove"}); got != "glove" {
		t.Errorf("Name = %q, want glove", got)
	}
	for _, bad := range []string{"glove", "", "Synthetic"} {
		_, err := Choose(bad)
		if err == nil || !strings.Contains(err.Error(), Synthetic) {
			t.Errorf("Choose(%q) = %v, want an error listing %s", bad, err, Synthetic)
		}
	}
}

// textsOnly is a source without embeddings: only Source's methods.
type textsOnly struct{ Source }

// versioned is a source read from files, of version 2.
type versioned struct{ Source }

func (versioned) Info() workload.Data {
	return workload.Data{Name: "files", Version: "2", SHA256: "9f86d081"}
}

// TestOpenChecksVersion: a worker refuses a source whose version or
// content differs from those the job names.
func TestOpenChecksVersion(t *testing.T) {
	files := Entry{Name: "files", Open: func(s workload.Spec) (Source, error) { return versioned{synthetic{s}}, nil }}
	for _, c := range []struct {
		named workload.Data
		ok    bool
	}{
		{workload.Data{Name: "files"}, true},
		{workload.Data{Name: "files", Version: "2", SHA256: "9f86d081"}, true},
		{workload.Data{Name: "files", Version: "1"}, false},
		{workload.Data{Name: "files", Version: "2", SHA256: "00000000"}, false},
	} {
		_, err := files.load(workload.Spec{Objects: 1, TextLen: 1, Data: c.named})
		if (err == nil) != c.ok {
			t.Errorf("a job naming %+v, the source loaded %+v: error %v", c.named, versioned{}.Info(), err)
		}
	}
}

func TestOpen(t *testing.T) {
	s := workload.Spec{Objects: 3, TextLen: 40, Dims: 8}
	src, err := Open(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := src.(Vectors); !ok || src.Info() != (workload.Data{}) {
		t.Fatalf("Open(%+v) = %T, Info %+v: want synthetic with embeddings, named by the zero Data", s, src, src.Info())
	}
	if _, err := Open(workload.Spec{Objects: 3, TextLen: 40, Data: workload.Data{Name: "nope"}}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Open of an unknown source: %v, want an error naming it", err)
	}
	texts := Entry{Name: "texts", About: "texts", Open: func(s workload.Spec) (Source, error) { return textsOnly{synthetic{s}}, nil }}
	if _, err := texts.load(s); err == nil || !strings.Contains(err.Error(), "no embeddings") {
		t.Errorf("a source without embeddings under --dims: %v, want an error", err)
	}
	s.Dims = 0
	if _, err := texts.load(s); err != nil {
		t.Errorf("a source without embeddings, without --dims: %v", err)
	}
	missing := errors.New("open glove.6B.50d.txt: no such file or directory")
	broken := Entry{Name: "files", Open: func(workload.Spec) (Source, error) { return nil, missing }}
	if _, err := broken.load(s); !errors.Is(err, missing) || !strings.Contains(err.Error(), "data source files: open glove.6B.50d.txt") {
		t.Errorf("a source that fails to load: %v, want its error, naming the source", err)
	}
}

// TestRecordedData: a workload of the synthetic source is recorded as
// before data sources had names; another names its source.
func TestRecordedData(t *testing.T) {
	s := workload.Spec{Name: "small", Objects: 10, TextLen: 40}
	b, err := json.Marshal(s)
	if err != nil || string(b) != `{"name":"small","objects":10,"text_len":40}` {
		t.Errorf("synthetic: %s, %v", b, err)
	}
	s.Data = workload.Data{Name: "glove", Version: "6B.50d", SHA256: "9f86d081"}
	b, err = json.Marshal(s)
	if want := `{"name":"small","objects":10,"text_len":40,"data":{"name":"glove","version":"6B.50d","sha256":"9f86d081"}}`; err != nil || string(b) != want {
		t.Errorf("glove: %s, %v; want %s", b, err, want)
	}
}
