package minilm

import (
	"slices"
	"strings"
	"testing"
)

// tinyTokenizer has a vocabulary of a few pieces, so that each rule's
// effect shows in the ids.
func tinyTokenizer(maxTokens int) *Tokenizer {
	pieces := []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "un", "##aff", "##able", "cafe", ",", "!", "a", "##a", "東", "$"}
	vocab := map[string]int{}
	for i, p := range pieces {
		vocab[p] = i
	}
	return &Tokenizer{vocab: vocab, added: []addedToken{{"[MASK]", 4}, {"[CLS]", 2}}, unk: 1, cls: 2, sep: 3,
		prefix: "##", maxWordChars: 100, maxTokens: maxTokens}
}

func TestEncode(t *testing.T) {
	tok := tinyTokenizer(256)
	for _, c := range []struct {
		text string
		want []int
	}{
		{"UnAffable, CAFÉ!", []int{2, 5, 6, 7, 9, 8, 10, 3}},  // lower case, accents, punctuation split
		{"unaffablex cafe", []int{2, 1, 8, 3}},                // a piece not in the vocabulary: the whole word is [UNK]
		{"café\u200b\x00\tun東cafe", []int{2, 8, 5, 13, 8, 3}}, // zero-width and NUL dropped, tab splits, CJK split
		{"$cafe[MASK]un", []int{2, 14, 8, 4, 5, 3}},           // ASCII symbol is punctuation; [MASK] written is the token
		{"[mask]", []int{2, 1, 1, 1, 3}},                      // lower case [mask] is not special: [, mask, ]
		{strings.Repeat("a", 100), append(append([]int{2, 11}, slices.Repeat([]int{12}, 99)...), 3)},
		{strings.Repeat("a", 101), []int{2, 1, 3}}, // over 100 characters: [UNK]
		{"", []int{2, 3}},
	} {
		if got := tok.Encode(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestEncodeTruncates(t *testing.T) {
	got := tinyTokenizer(5).Encode("cafe , cafe , cafe")
	if want := []int{2, 8, 9, 8, 3}; !slices.Equal(got, want) {
		t.Errorf("Encode with at most 5 tokens = %v, want %v", got, want)
	}
}

func TestCheckIDs(t *testing.T) {
	tok := tinyTokenizer(256)
	if err := tok.checkIDs(len(tok.vocab)); err != nil {
		t.Errorf("checkIDs(%d): %v", len(tok.vocab), err)
	}
	if err := tok.checkIDs(len(tok.vocab) + 1); err == nil {
		t.Errorf("checkIDs(%d) passed a vocabulary of %d", len(tok.vocab)+1, len(tok.vocab))
	}
	tok.added = append(tok.added, addedToken{"[BIG]", len(tok.vocab)})
	if err := tok.checkIDs(len(tok.vocab)); err == nil || !strings.Contains(err.Error(), "[BIG]") {
		t.Errorf("checkIDs with an added token past the vocabulary: %v", err)
	}
}
