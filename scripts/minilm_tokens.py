#!/usr/bin/env python3
"""minilm_tokens.py — token ids of texts by Hugging Face's tokenizers.

The independent tokeniser internal/minilm's long tests compare their Go
WordPiece with: reads a JSON array of texts on stdin, tokenises each with
MODEL_DIR/tokenizer.json (truncated at MAX_TOKENS, no padding, as
sentence-transformers encodes) and writes a JSON array of id arrays.

Usage: scripts/minilm_tokens.py MODEL_DIR MAX_TOKENS < texts.json
Needs: pip install tokenizers
"""
import json
import os
import sys

from tokenizers import Tokenizer


def main():
    model_dir, max_tokens = sys.argv[1], int(sys.argv[2])
    tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_tokens)
    texts = json.load(sys.stdin)
    json.dump([enc.ids for enc in tok.encode_batch(texts)], sys.stdout)


if __name__ == "__main__":
    main()
