package corpus

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WordNetFiles are the data files of WordNet 3.0 that hold its synsets,
// in the order ReadWordNet reads them.
var wordNetFiles = []string{"data.noun", "data.verb", "data.adj", "data.adv"}

// lexNames are WordNet's 45 lexicographer files, by number (the
// lex_filenum of a synset): the topics of its glosses.
var lexNames = []string{
	"adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal",
	"noun.artifact", "noun.attribute", "noun.body", "noun.cognition",
	"noun.communication", "noun.event", "noun.feeling", "noun.food",
	"noun.group", "noun.location", "noun.motive", "noun.object", "noun.person",
	"noun.phenomenon", "noun.plant", "noun.possession", "noun.process",
	"noun.quantity", "noun.relation", "noun.shape", "noun.state",
	"noun.substance", "noun.time", "verb.body", "verb.change",
	"verb.cognition", "verb.communication", "verb.competition",
	"verb.consumption", "verb.contact", "verb.creation", "verb.emotion",
	"verb.motion", "verb.perception", "verb.possession", "verb.social",
	"verb.stative", "verb.weather", "adj.ppl",
}

// ReadWordNet reads the glosses of WordNet's synsets from its data files
// in dir (Debian's wordnet-base puts them in /usr/share/wordnet): each
// synset an item whose text is its gloss and whose topic is its
// lexicographer file. The corpus has no embeddings yet (Dims 0).
func ReadWordNet(dir string) (*Corpus, error) {
	c := &Corpus{TopicNames: lexNames}
	for _, name := range wordNetFiles {
		if err := readWordNetFile(filepath.Join(dir, name), c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// readWordNetFile appends the synsets of one data file to c. Its licence
// lines begin with two spaces; every other line is a synset.
func readWordNetFile(path string, c *Corpus) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; s.Scan(); n++ {
		line := s.Text()
		if strings.HasPrefix(line, "  ") {
			continue
		}
		topic, gloss, err := parseSynset(line)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		c.Texts = append(c.Texts, gloss)
		c.Topics = append(c.Topics, topic)
	}
	return s.Err()
}

// parseSynset returns a data file line's lexicographer file number and
// gloss: "offset lex_filenum ss_type … | gloss".
func parseSynset(line string) (int32, string, error) {
	fields := strings.SplitN(line, " ", 3)
	_, gloss, ok := strings.Cut(line, " | ")
	if len(fields) < 3 || !ok {
		return 0, "", fmt.Errorf("not a synset line (offset lex_filenum ss_type … | gloss)")
	}
	lex, err := strconv.Atoi(fields[1])
	if err != nil || lex < 0 || lex >= len(lexNames) {
		return 0, "", fmt.Errorf("lexicographer file %q: want 00 to %d", fields[1], len(lexNames)-1)
	}
	gloss = strings.TrimSpace(gloss)
	if gloss == "" {
		return 0, "", fmt.Errorf("an empty gloss")
	}
	return int32(lex), gloss, nil
}
