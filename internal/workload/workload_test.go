package workload

import (
	"crypto/sha256"
	"fmt"
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

// TestFillBytes pins the bytes Fill writes: a study compared with an
// earlier record must have stored the same notes. The hashes are those of
// the generator of commit 1303cdd, before Fill wrote each
// store's " of agent <i>: " once.
func TestFillBytes(t *testing.T) {
	for _, c := range []struct {
		store, objects, textLen int
		sha                     string
	}{
		{0, 1000, 300, "6274d41d308c9d87"},
		{12345, 1000, 300, "761fd84a8c7ce9c0"},
		{7, 30, 700, "c79e329eee437d74"}, // longer than lorem: the text wraps
		{99, 50, 12, "b7b0139c89723ec3"}, // shorter than the prefix: cut
	} {
		s := Spec{Objects: c.objects, TextLen: c.textLen}
		notes := make([]Note, s.Objects)
		s.Fill(c.store, notes)
		h := sha256.New()
		for _, n := range notes {
			fmt.Fprintf(h, "%d %d %s\n", n.ID, n.Ts, n.Text)
		}
		if got := fmt.Sprintf("%x", h.Sum(nil)[:8]); got != c.sha {
			t.Errorf("Fill(%d) of %d notes of %d bytes hashes to %s, want %s", c.store, c.objects, c.textLen, got, c.sha)
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

func TestCheck(t *testing.T) {
	s := Spec{Objects: 30, TextLen: 700} // longer than lorem: the text wraps
	notes := make([]Note, s.Objects)
	s.Fill(4, notes)
	for _, n := range notes {
		if w := s.Want(4, n.ID); w.ID != n.ID || w.Text != n.Text || w.Ts != n.Ts || n.Emb != nil {
			t.Fatalf("Want(4, %d) = %+v, Fill wrote %+v", n.ID, w, n)
		}
		if err := s.Check(4, n.ID, n); err != nil {
			t.Fatal(err)
		}
	}
	turn := s.TurnNote(4, 2)
	if turn.ID != 32 || !strings.HasPrefix(turn.Text, "turn 2 of agent 4: Lorem") || len(turn.Text) != 700 {
		t.Fatalf("TurnNote(4, 2) = %d %.30q (%d bytes)", turn.ID, turn.Text, len(turn.Text))
	}
	if err := s.Check(4, 32, turn); err != nil {
		t.Fatal(err)
	}
	bad := map[string]struct {
		id int64
		n  Note
	}{
		"other agent":  {7, s.Want(5, 7)},
		"other id":     {7, s.Want(4, 8)},
		"other ts":     {7, Note{ID: 7, Text: notes[6].Text, Ts: notes[6].Ts + 1}},
		"cut text":     {7, Note{ID: 7, Text: notes[6].Text[:699], Ts: notes[6].Ts}},
		"changed tail": {7, Note{ID: 7, Text: notes[6].Text[:699] + "!", Ts: notes[6].Ts}},
		"not a turn":   {32, Note{ID: 32, Text: s.Want(4, 2).Text, Ts: turn.Ts}},
	}
	for name, c := range bad {
		if err := s.Check(4, c.id, c.n); err == nil {
			t.Errorf("%s: Check accepted %.30q", name, c.n.Text)
		}
	}
}

// Want returns note id of store i of spec s after appended turns: a note
// of Fill for ids up to s.Objects, else the note of turn id-s.Objects.
func (s Spec) Want(i int, id int64) Note {
	if id > int64(s.Objects) {
		return s.TurnNote(i, int(id)-s.Objects)
	}
	return Note{ID: id, Text: Text(i, int(id-1), s.TextLen), Ts: Ts(id)}
}

// BenchmarkCheck20: the harness's check of one recent answer (20 notes of
// 300 characters), which manydb serve makes inside each request.
func BenchmarkCheck20(b *testing.B) {
	s := Spec{Objects: 1000, TextLen: 300}
	notes := make([]Note, s.Objects)
	s.Fill(7, notes)
	for b.Loop() {
		for k := 0; k < 20; k++ {
			if err := s.Check(7, int64(1000-k), notes[999-k]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
