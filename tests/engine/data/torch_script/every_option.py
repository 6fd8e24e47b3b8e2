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
tokens = ["The", "cat", "sat", "on", "我"]
num_tokens = len(tokens)
d_model = 6  # width of each token's embedding
d_out = 4  # width of the queries, keys, values and the output
num_heads = 2
head_dim = d_out // num_heads  # each head's share of d_out
temperature = 2.0  # the scaled scores are divided by this too

# --- X: the token embeddings
vocab = list(dict.fromkeys(tokens))  # the distinct tokens, in order of first appearance
token_to_idx = {token: idx for idx, token in enumerate(vocab)}
input_indices = torch.tensor([token_to_idx[token] for token in tokens])
# nn.Embedding draws its table from torch's generator, seeded right before it
torch.manual_seed(7)
embedding_layer = nn.Embedding(len(vocab), d_model)
X = embedding_layer(input_indices)
# Sinusoidal positions (Vaswani et al.), added to X: PE[pos, 2i] = sin(pos / 10000^(2i / d_model)),
# PE[pos, 2i+1] = cos(the same angle); computed in float64, stored as float32.
pe = torch.zeros(num_tokens, d_model)
for pos in range(num_tokens):
    for i in range(d_model):
        angle = pos / 10000 ** ((i - i % 2) / d_model)
        pe[pos, i] = math.sin(angle) if i % 2 == 0 else math.cos(angle)
X = X + pe
show("X, the token embeddings:", X)

# --- The weights
# One set of nn.Linear(d_model, head_dim) per head, each drawing its query, key and value in
# this order (a MultiHeadAttentionWrapper of CausalAttention modules), then the output projection.
# nn.Linear keeps its weight as (out_features, in_features): W(x) = x @ W.weight.T + W.bias
torch.manual_seed(123)
W_query, W_key, W_value = [], [], []
for h in range(num_heads):
    W_query.append(nn.Linear(d_model, head_dim, bias=True))
    W_key.append(nn.Linear(d_model, head_dim, bias=True))
    W_value.append(nn.Linear(d_model, head_dim, bias=True))
out_proj = nn.Linear(d_out, d_out, bias=True)
for h in range(num_heads):
    show(f"W_query[{h}].weight:", W_query[h].weight)
    show(f"W_query[{h}].bias:", W_query[h].bias)
    show(f"W_key[{h}].weight:", W_key[h].weight)
    show(f"W_key[{h}].bias:", W_key[h].bias)
    show(f"W_value[{h}].weight:", W_value[h].weight)
    show(f"W_value[{h}].bias:", W_value[h].bias)
show("out_proj.weight:", out_proj.weight)
show("out_proj.bias:", out_proj.bias)

# --- Queries, keys and values
queries = torch.cat([W(X) for W in W_query], dim=-1)
keys = torch.cat([W(X) for W in W_key], dim=-1)
values = torch.cat([W(X) for W in W_value], dim=-1)
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
# and by the temperature (one divisor, the product of the two)
scaled_scores = attn_scores / (k_heads.shape[-1] ** 0.5 * temperature)
show("scaled scores:", scaled_scores)

# --- Masking
# Masked scores become -1e9: like -inf for softmax unless a whole row is masked,
# which then gets equal weights instead of NaN.
# causal mask: True above the diagonal, where a key comes after its query
mask = torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1).bool()
masked_scores = scaled_scores.masked_fill(mask, -1e9)
# key padding: 0 marks a padded key; its column is masked in every row
attention_mask = torch.tensor([1, 1, 1, 0, 1])
masked_scores = masked_scores.masked_fill(attention_mask == 0, -1e9)
show("masked scores:", masked_scores)

# --- Attention weights: softmax over the keys of each row
attn_weights = torch.softmax(masked_scores, dim=-1)
# safe softmax: a row whose keys are all masked (-inf) gets zeros instead of NaN
fully_masked = torch.isneginf(masked_scores).all(dim=-1, keepdim=True)
attn_weights = attn_weights.masked_fill(fully_masked, 0.0)
show("attention weights:", attn_weights)

# --- Dropout on the attention weights
# Training mode, seeded right before the call. One call over every head's weights: each is
# kept and multiplied by 1/(1 - p), or dropped to 0.
torch.manual_seed(5)
dropout = nn.Dropout(0.1)
dropout.train()
dropped_weights = dropout(attn_weights)
show("attention weights after dropout:", dropped_weights)

# --- Context vectors: the values weighted by the attention weights
context_vec = dropped_weights @ v_heads
show("context vectors:", context_vec)
# the heads side by side again: (num_tokens, d_out)
concat = context_vec.transpose(0, 1).contiguous().view(num_tokens, d_out)
show("the heads concatenated:", concat)

# --- Output
output = out_proj(concat)
show("output:", output)

# --- The report (--json)
# The same stages as one JSON object in the format of `attnviz-cli run` (the same keys in
# the same order), to compare with attnviz stage by stage.
if JSON:
    report = {"tokens": tokens, "X": matrix(X)}
    report["W_q"] = matrix(torch.cat([W.weight for W in W_query]).T)
    report["W_k"] = matrix(torch.cat([W.weight for W in W_key]).T)
    report["W_v"] = matrix(torch.cat([W.weight for W in W_value]).T)
    report["W_o"] = matrix(out_proj.weight.T)
    report["b_q"] = numbers(torch.cat([W.bias for W in W_query]))
    report["b_k"] = numbers(torch.cat([W.bias for W in W_key]))
    report["b_v"] = numbers(torch.cat([W.bias for W in W_value]))
    report["b_o"] = numbers(out_proj.bias)
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
    print(json.dumps(report, separators=(",", ":")))
