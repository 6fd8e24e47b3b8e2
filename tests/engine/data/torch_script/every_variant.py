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
tokens = ["Your", "with", "<pad>", "cat", "mat", "ran", "and", "journey", "one", "!"]
num_tokens = len(tokens)
d_model = 8  # width of each token's embedding
d_out = 16  # width of the queries, keys, values and the output
num_heads = 4
head_dim = d_out // num_heads  # each head's share of d_out
num_kv_heads = 2  # key/value heads (GQA, or MQA when 1), each shared by several query heads

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
# Grouped-query attention: W_key and W_value (and their biases) are num_kv_heads * head_dim
# wide, drawn in the same order as before: only the keys and values have fewer heads.
torch.manual_seed(789)
W_query = nn.Linear(d_model, d_out, bias=True)
W_key = nn.Linear(d_model, num_kv_heads * head_dim, bias=True)
W_value = nn.Linear(d_model, num_kv_heads * head_dim, bias=True)
out_proj = nn.Linear(d_out, d_out, bias=True)
show("W_query.weight:", W_query.weight)
show("W_query.bias:", W_query.bias)
show("W_key.weight:", W_key.weight)
show("W_key.bias:", W_key.bias)
show("W_value.weight:", W_value.weight)
show("W_value.bias:", W_value.bias)
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
# The keys and values have num_kv_heads heads: (num_kv_heads, num_tokens, head_dim).
k_heads = keys.view(num_tokens, num_kv_heads, head_dim).transpose(0, 1)
v_heads = values.view(num_tokens, num_kv_heads, head_dim).transpose(0, 1)

# --- Rotary position embedding (RoPE): the queries and keys rotated by position
# Nothing is added to X: instead each head's queries and keys turn by their position p.
# Columns k and k + head_dim/2 form a pair that turns by the angle p * inv_freq[k]
# (rotate_half: GPT-NeoX, Llama's LlamaRotaryEmbedding). Everything in float32, as in the
# models' code.
base = 10000.0  # theta (rope_theta): pair k turns by p / base^(2k / head_dim)
inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
t = torch.arange(num_tokens).float()  # the positions p = 0 ... num_tokens - 1
freqs = torch.outer(t, inv_freq)  # the angles p * inv_freq[k]: (num_tokens, head_dim // 2)
emb = torch.cat((freqs, freqs), dim=-1)  # each angle for both columns of its pair
cos, sin = emb.cos(), emb.sin()


def rotate_half(x):
    # (x1, x2) -> (-x2, x1): the halves of each row swapped, the new first half negated
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


q_rot = q_heads * cos + rotate_half(q_heads) * sin
k_rot = k_heads * cos + rotate_half(k_heads) * sin
show("queries rotated by position (RoPE):", q_rot)
show("keys rotated by position (RoPE):", k_rot)
# GQA: query head h reads key/value head h // (num_heads // num_kv_heads); each key/value head
# is repeated for its group of query heads (Llama's repeat_kv).
k_rot = k_rot.repeat_interleave(num_heads // num_kv_heads, dim=0)
v_heads = v_heads.repeat_interleave(num_heads // num_kv_heads, dim=0)

# --- Attention scores: every query against every key
attn_scores = q_rot @ k_rot.transpose(-2, -1)
show("attention scores:", attn_scores)
# Scaled by the square root of head_dim
scaled_scores = attn_scores / k_heads.shape[-1] ** 0.5
show("scaled scores:", scaled_scores)

# --- ALiBi: a bias by distance instead of positions
# ALiBi (Press et al.): head h adds -slopes[h] * |i - j| to the scaled score of query i and
# key j, so farther keys count less; nothing is added to X. The slopes, from the paper's
# reference code:


def get_slopes(n):
    def get_slopes_power_of_2(n):
        start = (2**(-2**-(math.log2(n)-3)))
        ratio = start
        return [start*ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    else:
        closest_power_of_2 = 2**math.floor(math.log2(n))
        return (get_slopes_power_of_2(closest_power_of_2)
                + get_slopes(2*closest_power_of_2)[0::2][:n-closest_power_of_2])


slopes = torch.tensor(get_slopes(num_heads))  # one per head: float64, stored as float32
idx = torch.arange(num_tokens)
distance = (idx[:, None] - idx[None, :]).abs().float()  # |i - j|: how far key j is from query i
alibi_bias = -(slopes[:, None, None] * distance)  # (num_heads, num_tokens, num_tokens)
show("ALiBi bias:", alibi_bias)

# --- Masking
masked_scores = scaled_scores + alibi_bias  # ALiBi's bias is added before the mask
# Masked scores become -inf, so softmax gives those keys weight 0.
# causal mask: True above the diagonal, where a key comes after its query
mask = torch.triu(torch.ones(num_tokens, num_tokens), diagonal=1).bool()
masked_scores = masked_scores.masked_fill(mask, -torch.inf)
window = 3  # sliding window (Mistral): a query sees only keys less than window tokens away
window_mask = (idx[:, None] - idx[None, :]) >= window  # window tokens or more before the query
masked_scores = masked_scores.masked_fill(window_mask, -torch.inf)
show("masked scores:", masked_scores)

# --- Attention weights: softmax over the keys of each row
attn_weights = torch.softmax(masked_scores, dim=-1)
show("attention weights:", attn_weights)

# --- Dropout on the attention weights
# Training mode, seeded right before the call. One call over every head's weights: each is
# kept and multiplied by 1/(1 - p), or dropped to 0.
torch.manual_seed(236)
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
    report["W_q"] = matrix(W_query.weight.T)
    report["W_k"] = matrix(W_key.weight.T)
    report["W_v"] = matrix(W_value.weight.T)
    report["W_o"] = matrix(out_proj.weight.T)
    report["b_q"] = numbers(W_query.bias)
    report["b_k"] = numbers(W_key.bias)
    report["b_v"] = numbers(W_value.bias)
    report["b_o"] = numbers(out_proj.bias)
    report["Q"] = matrix(queries)
    report["K"] = matrix(keys)
    report["V"] = matrix(values)
    report["heads"] = [
        {
            "q_rot": matrix(q_rot[h]),
            "k_rot": matrix(k_rot[h]),
            "scores": matrix(attn_scores[h]),
            "scaled": matrix(scaled_scores[h]),
            "bias": matrix(alibi_bias[h]),
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
