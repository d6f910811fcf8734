package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// jsonlItem is one line of a user's texts: a note's text and the topic
// or the agent it belongs to (one of the two).
type jsonlItem struct {
	Text  string `json:"text"`
	Topic string `json:"topic"`
	Agent string `json:"agent"`
}

// ReadJSONL reads a user's texts, one JSON object a line with a "text"
// and either a "topic" or an "agent" field, the same one on every line.
// Topics (or agents) are numbered in the order they first appear. byAgent
// says the file named agents: each store then holds one agent's notes.
// A line that is not such an object is an error naming the file and line.
func ReadJSONL(path string) (c *Corpus, byAgent bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	c = &Corpus{}
	ids := map[string]int32{}
	field := ""
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; s.Scan(); n++ {
		if strings.TrimSpace(s.Text()) == "" {
			continue
		}
		it, name, err := parseJSONLLine(s.Bytes(), field)
		if err != nil {
			return nil, false, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		field = name
		key := it.Topic + it.Agent
		id, ok := ids[key]
		if !ok {
			id = int32(len(c.TopicNames))
			ids[key] = id
			c.TopicNames = append(c.TopicNames, key)
		}
		c.Texts = append(c.Texts, it.Text)
		c.Topics = append(c.Topics, id)
	}
	if err := s.Err(); err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	if c.Len() == 0 {
		return nil, false, fmt.Errorf("%s: no texts", path)
	}
	return c, field == "agent", nil
}

// parseJSONLLine reads one line; field is the line's "topic" or "agent",
// which must be the one of the lines before it (want, "" for the first).
func parseJSONLLine(line []byte, want string) (jsonlItem, string, error) {
	var it jsonlItem
	dec := json.NewDecoder(strings.NewReader(string(line)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&it); err != nil {
		return it, "", fmt.Errorf("want {\"text\": …, \"topic\" or \"agent\": …}: %w", err)
	}
	field := "topic"
	switch {
	case strings.TrimSpace(it.Text) == "" || !utf8.ValidString(it.Text):
		return it, "", fmt.Errorf("an empty or invalid text")
	case (it.Topic == "") == (it.Agent == ""):
		return it, "", fmt.Errorf("want one of \"topic\" and \"agent\", not %s", bothOrNeither(it))
	case it.Agent != "":
		field = "agent"
	}
	if want != "" && field != want {
		return it, "", fmt.Errorf("a %q where the lines before it have %q", field, want)
	}
	return it, field, nil
}

func bothOrNeither(it jsonlItem) string {
	if it.Topic == "" {
		return "neither"
	}
	return "both"
}
