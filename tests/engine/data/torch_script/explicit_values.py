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
tokens = ["Your", "journey", "starts"]
num_tokens = len(tokens)
d_model = 3  # width of each token's embedding
d_out = 2  # width of the queries, keys, values and the output
num_heads = 1
head_dim = d_out // num_heads  # each head's share of d_out

# --- X: the token embeddings
# X given explicitly: one row per token
X = torch.tensor([
    [0.43, 0.15, 0.89],
    [0.55, 0.87, 0.66],
    [0.57, 0.85, 0.64],
])
show("X, the token embeddings:", X)

# --- The weights
# The weights given explicitly, in x @ W orientation.
W_query = torch.tensor([
    [0.1, 0.2],
    [0.3, 0.4],
    [0.5, 0.6],
])
W_key = torch.tensor([
    [1.0, 0.0],
    [0.0, 1.0],
    [1.0, 1.0],
])
W_value = torch.tensor([
    [0.25, -0.5],
    [0.75, 1e-5],
    [-2.0, 3.0],
])
W_out = torch.tensor([
    [1.0, 2.0],
    [3.0, 4.0],
])
b_query = torch.tensor([0.01, 0.02])
b_key = torch.tensor([0.0, 0.0])
b_value = torch.tensor([-1.0, 1.0])
b_out = torch.tensor([0.5, -0.5])
show("W_query:", W_query)
show("W_key:", W_key)
show("W_value:", W_value)
show("W_out:", W_out)
show("b_query:", b_query)
show("b_key:", b_key)
show("b_value:", b_value)
show("b_out:", b_out)

# --- Queries, keys and values
queries = X @ W_query + b_query
keys = X @ W_key + b_key
values = X @ W_value + b_value
show("queries (Q):", queries)
show("keys (K):", keys)
show("values (V):", values)

# --- Attention scores: every query against every key
attn_scores = queries @ keys.T
show("attention scores:", attn_scores)
# No scaling
scaled_scores = attn_scores
show("scaled scores:", scaled_scores)

# --- Masking
# Masked scores become -inf, so softmax gives those keys weight 0.
# key padding: 0 marks a padded key; its column is masked in every row
attention_mask = torch.tensor([1, 1, 0])
masked_scores = scaled_scores.masked_fill(attention_mask == 0, -torch.inf)
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
context_vec = dropped_weights @ values
show("context vectors:", context_vec)

# --- Output
output = context_vec @ W_out + b_out
show("output:", output)

# --- The report (--json)
# The same stages as one JSON object in the format of `attnviz-cli run` (the same keys in
# the same order), to compare with attnviz stage by stage.
if JSON:
    report = {"tokens": tokens, "X": matrix(X)}
    report["W_q"] = matrix(W_query)
    report["W_k"] = matrix(W_key)
    report["W_v"] = matrix(W_value)
    report["W_o"] = matrix(W_out)
    report["b_q"] = numbers(b_query)
    report["b_k"] = numbers(b_key)
    report["b_v"] = numbers(b_value)
    report["b_o"] = numbers(b_out)
    report["Q"] = matrix(queries)
    report["K"] = matrix(keys)
    report["V"] = matrix(values)
    report["heads"] = [
        {
            "scores": matrix(attn_scores),
            "scaled": matrix(scaled_scores),
            "masked": matrix(masked_scores),
            "weights": matrix(attn_weights),
            "dropped": matrix(dropped_weights),
            "context": matrix(context_vec),
        }
    ]
    report["concat"] = matrix(context_vec)
    report["output"] = matrix(output)
    print(json.dumps(report, separators=(",", ":")))
