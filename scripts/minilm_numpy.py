#!/usr/bin/env python3
"""minilm_numpy.py — all-MiniLM-L6-v2 embeddings by a forward pass in numpy.

The independent forward pass internal/minilm's long tests compare their
Go encoder with: reads a JSON array of token-id arrays on stdin, runs
BERT over MODEL_DIR/model.safetensors in float64 the way Hugging Face's
BertModel does (batches of 8 padded to their longest sequence, an attention
mask adding float32's lowest value at the padding), mean-pools over the
attention mask, L2-normalises and writes a JSON array of embeddings.

Usage: scripts/minilm_numpy.py MODEL_DIR < ids.json
Needs: numpy
"""
import json
import math
import os
import struct
import sys

# One BLAS thread: the matrices are small, and on a shared machine more
# threads spin more than they compute.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402  (after the thread settings, which it reads on import)


def read_safetensors(path):
    """All tensors of a safetensors file, as float64 arrays by name."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    data = raw[8 + n :]
    dtypes = {"F32": "<f4", "I64": "<i8"}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        a = np.frombuffer(data[start:end], dtype=dtypes[info["dtype"]])
        out[name] = a.reshape(info["shape"]).astype(np.float64)
    return out


def layer_norm(x, g, b, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def gelu(x):
    erf = np.frompyfunc(math.erf, 1, 1)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)).astype(np.float64))


def linear(t, prefix, x):
    return x @ t[prefix + ".weight"].T + t[prefix + ".bias"]


def encoder_layer(t, p, x, mask_add, cfg):
    batch, seq, hidden = x.shape
    heads = cfg["num_attention_heads"]
    d = hidden // heads

    def split(y):
        return y.reshape(batch, seq, heads, d).transpose(0, 2, 1, 3)

    q = split(linear(t, p + "attention.self.query", x))
    k = split(linear(t, p + "attention.self.key", x))
    v = split(linear(t, p + "attention.self.value", x))
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + mask_add
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    probs = scores / scores.sum(axis=-1, keepdims=True)
    ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, hidden)
    eps = cfg["layer_norm_eps"]
    x = layer_norm(linear(t, p + "attention.output.dense", ctx) + x,
                   t[p + "attention.output.LayerNorm.weight"], t[p + "attention.output.LayerNorm.bias"], eps)
    inter = gelu(linear(t, p + "intermediate.dense", x))
    return layer_norm(linear(t, p + "output.dense", inter) + x,
                      t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"], eps)


def embed(t, cfg, ids_list):
    seq = max(len(ids) for ids in ids_list)
    ids = np.zeros((len(ids_list), seq), dtype=np.int64)
    mask = np.zeros((len(ids_list), seq))
    for i, row in enumerate(ids_list):
        ids[i, : len(row)] = row
        mask[i, : len(row)] = 1
    x = (t["embeddings.word_embeddings.weight"][ids]
         + t["embeddings.position_embeddings.weight"][np.arange(seq)][None]
         + t["embeddings.token_type_embeddings.weight"][0])
    x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], cfg["layer_norm_eps"])
    mask_add = (1.0 - mask)[:, None, None, :] * np.finfo(np.float32).min
    for i in range(cfg["num_hidden_layers"]):
        x = encoder_layer(t, "encoder.layer.%d." % i, x, mask_add, cfg)
    pooled = (x * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def main():
    model_dir = sys.argv[1]
    with open(os.path.join(model_dir, "config.json")) as f:
        cfg = json.load(f)
    t = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    ids_list = json.load(sys.stdin)
    batch = 8
    out = []
    for i in range(0, len(ids_list), batch):
        out.extend(embed(t, cfg, ids_list[i : i + batch]).tolist())
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
