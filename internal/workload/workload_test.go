package workload

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	got := Text(7, 42, 300)
	if len(got) != 300 || !strings.HasPrefix(got, "note 42 of agent 7: Lorem ipsum dolor sit amet") {
		t.Errorf("Text(7, 42, 300) = %q (%d bytes)", got, len(got))
	}
	if got := Text(7, 42, 10); got != "note 42 of" {
		t.Errorf("Text cut to 10 = %q", got)
	}
}

func TestLookupAndFill(t *testing.T) {
	s, err := Lookup("large", 0, 0)
	if err != nil || s.Objects != 1000 || s.TextLen != 300 {
		t.Fatalf("large = %+v, %v", s, err)
	}
	s, err = Lookup("small", 5, 20)
	if err != nil || s.Objects != 5 || s.TextLen != 20 || s.Name != "small-custom" {
		t.Fatalf("small with overrides = %+v, %v", s, err)
	}
	if _, err := Lookup("medium", 0, 0); err == nil {
		t.Error("no error for an unknown workload")
	}
	notes := make([]Note, s.Objects)
	s.Fill(3, notes)
	for j, n := range notes {
		if n.ID != int64(j+1) || len(n.Text) != 20 || n.Text != Text(3, j, 20) {
			t.Errorf("note %d = %+v", j, n)
		}
	}
}

// BenchmarkFill is the harness's cost of generating one store's notes.
func BenchmarkFill(b *testing.B) {
	s, _ := Lookup("large", 0, 0)
	notes := make([]Note, s.Objects)
	for i := range b.N {
		s.Fill(i, notes)
	}
}
