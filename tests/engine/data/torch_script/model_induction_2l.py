#!/usr/bin/env python3
# attnviz: this attention state as a PyTorch script. It rebuilds the inputs and the weights
# the way the tutorials do (the same seeds, the same draws in the same order) and computes
# every stage of attention with the tutorials' PyTorch lines.
#   python3 attnviz.py          prints every stage under a heading
#   python3 attnviz.py --json   prints one JSON object, the report of `attnviz-cli run`
# Written by attnviz 0.1.0 from a session state ("version": 1).
import json
import math
import sys

import torch
import torch.nn as nn

JSON = "--json" in sys.argv[1:]
# This state runs the trained model induction-2l: token embeddings and learned positions, 2 attention
# layers added to the residual stream, and an unembedding to next-token logits.


def show(title, value):
    # Prints one stage under its heading (not with --json).
    if not JSON:
        print(title)
        print(value)
        print()


def numbers(t):
    # The values of t for --json: each the shortest decimal that reads back as the same float32,
    # or "-inf", "inf", "nan" (the convention of attnviz's report).
    flat = t.detach().reshape(-1)
    values = flat.tolist()
    out = [None] * len(values)
    todo = []
    for i, v in enumerate(values):
        if math.isfinite(v):
            todo.append(i)
        else:
            out[i] = "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    for digits in range(1, 10):  # 9 significant digits always read back
        if not todo:
            break
        texts = ["%.*g" % (digits, values[i]) for i in todo]
        back = torch.tensor([float(x) for x in texts], dtype=torch.float32)
        same = (back == flat[todo]).tolist()
        rest = []
        for i, x, ok in zip(todo, texts, same):
            if ok:
                out[i] = float(x)
            else:
                rest.append(i)
        todo = rest
    return out


def matrix(t):
    # A (rows, cols) tensor for --json: a list of rows.
    flat = numbers(t)
    cols = t.shape[-1]
    return [flat[r:r + cols] for r in range(0, len(flat), cols)]


# --- Sizes
tokens = ["<s>", "U", "1", "I", "l", "W", "R", "j", "f", "O", "B", "G", "3", "0", "p", "x", "c",
             "h", "8", "#", "u", "e", "C", "w", "z", "U", "1", "I", "l", "W", "R", "j", "f",
             "O", "B", "G", "3", "0", "p", "x", "c", "h", "8", "#", "u", "e", "C", "w", "z"]
num_tokens = len(tokens)
d_model = 64  # width of each token's embedding
d_out = 64  # width of the queries, keys, values and the output
num_heads = 4
head_dim = d_out // num_heads  # each head's share of d_out

# --- The weights
# The model's weights: its checkpoints file, which ships with attnviz (assets/models/ in its
# repository and on its web page). Another place: python3 attnviz.py --weights PATH
MODEL_FILE = "assets/models/induction-2l-checkpoints.safetensors"
if "--weights" in sys.argv[1:]:
    MODEL_FILE = sys.argv[sys.argv.index("--weights") + 1]


def load_safetensors(path):
    # Reads a .safetensors file with the standard library: an 8-byte header length, a JSON
    # header, then the tensors' bytes (float32, little-endian).
    with open(path, "rb") as f:
        data = f.read()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    tensors = {}
    for name, info in header.items():
        if name != "__metadata__":
            begin, end = info["data_offsets"]
            raw = bytearray(data[8 + size + begin:8 + size + end])
            tensors[name] = torch.frombuffer(raw, dtype=torch.float32).reshape(info["shape"])
    return tensors


params = load_safetensors(MODEL_FILE)
prefix = "step_1000."  # the checkpoint at this training step
vocab = ["<s>", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P",
            "Q", "R", "S", "T", "U", "V", "W", "X", "Y", "Z", "a", "b", "c", "d", "e", "f", "g",
            "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x",
            "y", "z", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "#"]
num_layers = 2

# --- x0: each token's embedding plus its position's (learned) embedding
token_ids = torch.tensor([vocab.index(token) for token in tokens])
tok_emb = params[prefix + "tok_emb.weight"][token_ids]
pos_emb = params[prefix + "pos_emb.weight"][:num_tokens]
x = tok_emb + pos_emb
show("x0, token plus position embeddings:", x)
residual = [x]
layer_reports = []

# --- The layers, one after the other: each is multi-head attention on the residual stream x,
# and its output is added to x (x = x + attention(x)). X below is that layer's input.
for layer in range(num_layers):
    if not JSON:
        print(f"=== layer {layer} ===")
    X = x
    p = f"{prefix}layers.{layer}."
    # nn.Linear stores (out, in): x @ W needs the transpose
    W_query = params[p + "W_query.weight"].T
    W_key = params[p + "W_key.weight"].T
    W_value = params[p + "W_value.weight"].T
    W_out = params[p + "out_proj.weight"].T
    b_out = params[p + "out_proj.bias"]

    # --- Queries, keys and values
    queries = X @ W_query
    keys = X @ W_key
    values = X @ W_value
    show("queries (Q):", queries)
    show("keys (K):", keys)
    show("values (V):", values)
    # Split into heads: head h owns columns h*head_dim ... (h+1)*head_dim - 1,
    # as (num_heads, num_tokens, head_dim).
    q_heads = queries.view(num_tokens, num_heads, head_dim).transpose(0, 1)
    k_heads = keys.view(num_tokens, num_heads, head_dim).transpose(0, 1)
    v_heads = values.view(num_tokens, num_heads, head_dim).transpose(0, 1)

    # --- Attention scores: every query against every key
    attn_scores = q_heads @ k_heads.transpose(-2, -1)
    show("attention scores:", attn_scores)
    # Scaled by the square root of head_dim
    scaled_scores = attn_scores / math.sqrt(head_dim)
    show("scaled scores:", scaled_scores)

    # --- Masking
    # Masked scores become -inf, so softmax gives those keys weight 0.
    # causal mask: True above the diagonal, where a key comes after its query
    mask = torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1).bool()
    masked_scores = scaled_scores.masked_fill(mask, -torch.inf)
    show("masked scores:", masked_scores)

    # --- Attention weights: softmax over the keys of each row
    attn_weights = torch.softmax(masked_scores, dim=-1)
    show("attention weights:", attn_weights)

    # --- Dropout on the attention weights
    dropout = nn.Dropout(0.0)
    dropout.eval()  # eval mode: dropout is the identity
    dropped_weights = dropout(attn_weights)
    show("attention weights after dropout:", dropped_weights)

    # --- Context vectors: the values weighted by the attention weights
    context_vec = dropped_weights @ v_heads
    show("context vectors:", context_vec)
    # the heads side by side again: (num_tokens, d_out)
    concat = context_vec.transpose(0, 1).contiguous().view(num_tokens, d_out)
    show("the heads concatenated:", concat)

    # --- Output
    output = concat @ W_out + b_out
    show("output:", output)
    if JSON:
        report = {"tokens": tokens, "X": matrix(X)}
        report["W_q"] = matrix(W_query)
        report["W_k"] = matrix(W_key)
        report["W_v"] = matrix(W_value)
        report["W_o"] = matrix(W_out)
        report["b_o"] = numbers(b_out)
        report["Q"] = matrix(queries)
        report["K"] = matrix(keys)
        report["V"] = matrix(values)
        report["heads"] = [
            {
                "scores": matrix(attn_scores[h]),
                "scaled": matrix(scaled_scores[h]),
                "masked": matrix(masked_scores[h]),
                "weights": matrix(attn_weights[h]),
                "dropped": matrix(dropped_weights[h]),
                "context": matrix(context_vec[h]),
            }
            for h in range(num_heads)
        ]
        report["concat"] = matrix(concat)
        report["output"] = matrix(output)
        layer_reports.append(report)
    x = x + output  # the residual stream: the layer's output added to its input
    residual.append(x)

# --- Next-token logits: the last residual stream times the unembedding
logits = x @ params[prefix + "unembed.weight"].T
show("logits (one row per position, one column per word of the vocabulary):", logits)
if JSON:
    report = {"tokens": tokens, "model": {"name": "induction-2l", "step": 1000}}
    report["token_ids"] = token_ids.tolist()
    report["token_embedding"] = matrix(tok_emb)
    report["position_embedding"] = matrix(pos_emb)
    report["residual"] = [matrix(r) for r in residual]
    report["layers"] = layer_reports
    report["logits"] = matrix(logits)
    print(json.dumps(report, separators=(",", ":")))
