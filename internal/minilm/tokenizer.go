package minilm

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Tokenizer turns text into the model's token ids as tokenizer.json's
// BertNormalizer, BertPreTokenizer and WordPiece model do, with [CLS]
// first, [SEP] last and at most maxTokens ids in all.
type Tokenizer struct {
	vocab        map[string]int
	added        []addedToken // matched in the raw text before normalisation
	unk, cls     int
	sep          int
	prefix       string // continuing_subword_prefix, "##"
	maxWordChars int    // a longer word is [UNK]
	maxTokens    int
}

// addedToken is a special token such as [MASK]: written literally in the
// text it is that id, as Hugging Face's tokenizers matches it.
type addedToken struct {
	Content string `json:"content"`
	ID      int    `json:"id"`
}

// tokenizerJSON is the part of tokenizer.json the Tokenizer follows.
type tokenizerJSON struct {
	Added      []addedToken `json:"added_tokens"`
	Normalizer struct {
		Type         string `json:"type"`
		CleanText    bool   `json:"clean_text"`
		Chinese      bool   `json:"handle_chinese_chars"`
		StripAccents *bool  `json:"strip_accents"`
		Lowercase    bool   `json:"lowercase"`
	} `json:"normalizer"`
	PreTokenizer struct {
		Type string `json:"type"`
	} `json:"pre_tokenizer"`
	Model struct {
		Type         string         `json:"type"`
		Unk          string         `json:"unk_token"`
		Prefix       string         `json:"continuing_subword_prefix"`
		MaxWordChars int            `json:"max_input_chars_per_word"`
		Vocab        map[string]int `json:"vocab"`
	} `json:"model"`
}

// readTokenizer reads dir's tokenizer.json; maxTokens is the sequence
// limit ([CLS] and [SEP] included).
func readTokenizer(dir string, maxTokens int) (*Tokenizer, error) {
	var j tokenizerJSON
	if err := readJSON(dir, tokenizerFile, &j); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, tokenizerFile)
	n, m := j.Normalizer, j.Model
	strip := n.StripAccents == nil || *n.StripAccents // null follows lowercase, which must be on
	if n.Type != "BertNormalizer" || !n.CleanText || !n.Chinese || !n.Lowercase || !strip ||
		j.PreTokenizer.Type != "BertPreTokenizer" || m.Type != "WordPiece" || m.MaxWordChars <= 0 {
		return nil, fmt.Errorf("minilm: %s: want an uncased BERT WordPiece tokenizer (BertNormalizer with clean_text, "+
			"handle_chinese_chars, lowercase and accents stripped; BertPreTokenizer; WordPiece)", path)
	}
	t := &Tokenizer{vocab: m.Vocab, added: j.Added, prefix: m.Prefix, maxWordChars: m.MaxWordChars, maxTokens: maxTokens}
	for _, s := range []struct {
		token string
		id    *int
	}{{m.Unk, &t.unk}, {"[CLS]", &t.cls}, {"[SEP]", &t.sep}} {
		id, ok := m.Vocab[s.token]
		if !ok {
			return nil, fmt.Errorf("minilm: %s: the vocabulary has no %s", path, s.token)
		}
		*s.id = id
	}
	return t, nil
}

// checkIDs checks that the vocabulary has vocab entries and that every
// id, of a word piece or of a special token, is a row of the embeddings.
func (t *Tokenizer) checkIDs(vocab int) error {
	if len(t.vocab) != vocab {
		return fmt.Errorf("%d tokens in the vocabulary", len(t.vocab))
	}
	for piece, id := range t.vocab {
		if id < 0 || id >= vocab {
			return fmt.Errorf("token %q has id %d", piece, id)
		}
	}
	for _, a := range t.added {
		if a.ID < 0 || a.ID >= vocab {
			return fmt.Errorf("special token %q has id %d", a.Content, a.ID)
		}
	}
	return nil
}

// Encode returns text's token ids: [CLS], the word pieces (cut so that
// the whole fits maxTokens), [SEP].
func (t *Tokenizer) Encode(text string) []int {
	ids := []int{t.cls}
	for text != "" {
		before, id, after := t.nextAdded(text)
		for _, word := range splitWords(normalize(before)) {
			ids = t.appendWord(ids, word)
		}
		if id >= 0 {
			ids = append(ids, id)
		}
		text = after
	}
	ids = ids[:min(len(ids), t.maxTokens-1)]
	return append(ids, t.sep)
}

// nextAdded finds the first special token written in text: the text
// before it, its id and the text after it (id -1 when there is none).
func (t *Tokenizer) nextAdded(text string) (before string, id int, after string) {
	at, id, size := len(text), -1, 0
	for _, a := range t.added {
		i := strings.Index(text, a.Content)
		if i >= 0 && (i < at || i == at && len(a.Content) > size) {
			at, id, size = i, a.ID, len(a.Content)
		}
	}
	return text[:at], id, text[at+size:]
}

// appendWord appends word's WordPiece ids: the longest vocabulary entry
// from its start, then from where that ends with the "##" prefix, and so
// on; a word with a part not in the vocabulary, or too long, is [UNK].
func (t *Tokenizer) appendWord(ids []int, word string) []int {
	if utf8.RuneCountInString(word) > t.maxWordChars {
		return append(ids, t.unk)
	}
	start := len(ids)
	for pos := 0; pos < len(word); {
		id, end := -1, len(word)
		for ; end > pos; end -= lastRuneSize(word[pos:end]) {
			piece := word[pos:end]
			if pos > 0 {
				piece = t.prefix + piece
			}
			if v, ok := t.vocab[piece]; ok {
				id = v
				break
			}
		}
		if id < 0 {
			return append(ids[:start], t.unk)
		}
		ids = append(ids, id)
		pos = end
	}
	return ids
}

func lastRuneSize(s string) int {
	_, size := utf8.DecodeLastRuneInString(s)
	return size
}

// normalize is BertNormalizer: drop NUL, U+FFFD and control characters,
// turn whitespace into spaces, put spaces around CJK ideographs, strip
// accents (NFD, then drop nonspacing marks) and lower-case.
func normalize(text string) string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == 0 || r == utf8.RuneError || isControl(r):
		case isWhitespace(r):
			b.WriteByte(' ')
		case isCJK(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	decomposed := norm.NFD.String(b.String())
	b.Reset()
	for _, r := range decomposed {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// splitWords is BertPreTokenizer: split on whitespace, and every
// punctuation character is a word of its own.
func splitWords(text string) []string {
	var words []string
	start := -1 // where the current word began, -1 between words
	for i, r := range text {
		switch {
		case unicode.IsSpace(r) || isPunct(r):
			if start >= 0 {
				words = append(words, text[start:i])
				start = -1
			}
			if isPunct(r) {
				words = append(words, text[i:i+utf8.RuneLen(r)])
			}
		case start < 0:
			start = i
		}
	}
	if start >= 0 {
		words = append(words, text[start:])
	}
	return words
}

// isWhitespace: tab, newline, carriage return and Unicode's White_Space.
func isWhitespace(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || unicode.Is(unicode.White_Space, r)
}

// isControl: Unicode's "other" characters (Cc, Cf, Co, Cs and the
// unassigned Cn) except tab, newline and carriage return.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

// isPunct: ASCII punctuation (which counts $, +, <, =, >, ^, `, |, ~)
// and Unicode's punctuation categories.
func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return r > ' ' && r < 0x7f && !('0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	}
	return unicode.IsPunct(r)
}

// isCJK: the CJK Unified Ideographs blocks and their extensions and
// compatibility forms, as Hugging Face's BertNormalizer lists them.
func isCJK(r rune) bool {
	return 0x4E00 <= r && r <= 0x9FFF || 0x3400 <= r && r <= 0x4DBF || 0x20000 <= r && r <= 0x2A6DF ||
		0x2A700 <= r && r <= 0x2B73F || 0x2B740 <= r && r <= 0x2B81F || 0x2B920 <= r && r <= 0x2CEAF ||
		0xF900 <= r && r <= 0xFAFF || 0x2F800 <= r && r <= 0x2FA1F
}
