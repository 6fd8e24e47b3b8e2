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
tokens = ["Once", "upon", "a", "time", "there", "lived", "a", "king", "who", "had", "two",
             "sons"]
num_tokens = len(tokens)
d_model = 8  # width of each token's embedding
d_out = 8  # width of the queries, keys, values and the output
num_heads = 2
head_dim = d_out // num_heads  # each head's share of d_out

# --- X: the token embeddings
vocab = list(dict.fromkeys(tokens))  # the distinct tokens, in order of first appearance
token_to_idx = {token: idx for idx, token in enumerate(vocab)}
input_indices = torch.tensor([token_to_idx[token] for token in tokens])
# nn.Embedding draws its table from torch's generator, seeded right before it
torch.manual_seed(123)
embedding_layer = nn.Embedding(len(vocab), d_model)
X = embedding_layer(input_indices)
show("X, the token embeddings:", X)

# --- The weights
# nn.Linear after one seed, in this order: query, key, value, then the output projection
# (SelfAttention_v2, MultiHeadAttention). Each draws its weight, then its bias.
# nn.Linear keeps its weight as (out_features, in_features): W(x) = x @ W.weight.T + W.bias
torch.manual_seed(36)
W_query = nn.Linear(d_model, d_out, bias=False)
W_key = nn.Linear(d_model, d_out, bias=False)
W_value = nn.Linear(d_model, d_out, bias=False)
out_proj = nn.Linear(d_out, d_out, bias=True)
show("W_query.weight:", W_query.weight)
show("W_key.weight:", W_key.weight)
show("W_value.weight:", W_value.weight)
show("out_proj.weight:", out_proj.weight)
show("out_proj.bias:", out_proj.bias)

# --- Queries, keys and values
queries = W_query(X)
keys = W_key(X)
values = W_value(X)
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
scaled_scores = attn_scores / k_heads.shape[-1] ** 0.5
show("scaled scores:", scaled_scores)

# --- Masking
# Masked scores become -inf, so softmax gives those keys weight 0.
# causal mask: True above the diagonal, where a key comes after its query
mask = torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1).bool()
masked_scores = scaled_scores.masked_fill(mask, -torch.inf)
# StreamingLLM's KV cache (Xiao et al.): a decoder keeps the first sink_tokens keys and the
# last recent ones, and evicts the rest. At the tokens' own positions that is a mask:
sink_tokens, recent = 1, 4
idx = torch.arange(num_tokens)
# neither one of the first keys nor a recent one: no longer in the cache
evicted = (idx[None, :] >= sink_tokens) & ((idx[:, None] - idx[None, :]) >= recent)
masked_scores = masked_scores.masked_fill(evicted, -torch.inf)
show("masked scores:", masked_scores)

# --- Attention weights: softmax over the keys of each row
# gpt-oss's attention sinks: each head has a learned logit (its self.sinks) that joins every
# row of logits as one more column; softmax runs over num_tokens + 1 entries, and that column
# is dropped after it, so each row of weights sums to less than 1.
sinks = torch.tensor([0.5, -1.5])  # one per head
# (.., num_tokens, 1): the sink's column for every row
sink_column = sinks.reshape(num_heads, 1, 1).expand(-1, num_tokens, 1)
probs = torch.softmax(torch.cat([masked_scores, sink_column], dim=-1), dim=-1)
attn_weights = probs[..., :-1]  # the sink's column dropped: each row sums to 1 - its share
show("the sink's share of each row (the dropped column):", probs[..., -1])
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
output = out_proj(concat)
show("output:", output)

# --- The report (--json)
# The same stages as one JSON object in the format of `attnviz-cli run` (the same keys in
# the same order), to compare with attnviz stage by stage.
if JSON:
    report = {"tokens": tokens, "X": matrix(X)}
    report["W_q"] = matrix(W_query.weight.T)
    report["W_k"] = matrix(W_key.weight.T)
    report["W_v"] = matrix(W_value.weight.T)
    report["W_o"] = matrix(out_proj.weight.T)
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
