"""Attention modules of each family attnviz.show reads, written here as their
projects write them, each returning (output, per-head weights (H × S × S)) so the
tests compare attnviz with the module's own numbers. Shared by test_show.py."""
import math

import torch
from torch import nn


class Conv1D(nn.Module):
    """GPT-2's (transformers') linear layer: weight in × out."""

    def __init__(self, n_out, n_in):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_in, n_out) * 0.2)
        self.bias = nn.Parameter(torch.randn(n_out) * 0.1)

    def forward(self, x):
        return torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight).reshape(*x.shape[:-1], -1)


def _causal(S):
    return torch.triu(torch.ones(S, S, dtype=torch.bool), 1)


def _attend(q, k, v, head_dim, causal):
    scores = q @ k.transpose(-1, -2) / math.sqrt(head_dim)
    if causal:
        scores = scores.masked_fill(_causal(q.shape[-2]), float("-inf"))
    w = scores.softmax(-1)
    return w @ v, w


class GPT2Attention(nn.Module):
    def __init__(self, d, n_head, linear=False):
        super().__init__()
        self.n_head = n_head
        # nanoGPT writes them as nn.Linear; transformers' GPT-2 as Conv1D
        self.c_attn = nn.Linear(d, 3 * d) if linear else Conv1D(3 * d, d)
        self.c_proj = nn.Linear(d, d) if linear else Conv1D(d, d)

    def forward(self, x):
        S, d = x.shape[-2:]
        q, k, v = self.c_attn(x).split(d, dim=-1)
        hd = d // self.n_head
        q, k, v = (t.view(S, self.n_head, hd).transpose(0, 1) for t in (q, k, v))
        ctx, w = _attend(q, k, v, hd, True)
        return self.c_proj(ctx.transpose(0, 1).reshape(S, d)), w


def rotate_half(t):
    a, b = t.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


class LlamaAttention(nn.Module):
    def __init__(self, d, num_heads, num_key_value_heads, rope_theta=10000.0, bias=False):
        super().__init__()
        self.num_heads, self.num_key_value_heads, self.rope_theta = num_heads, num_key_value_heads, rope_theta
        self.head_dim = d // num_heads
        kv = num_key_value_heads * self.head_dim
        self.q_proj, self.k_proj = nn.Linear(d, d, bias=bias), nn.Linear(d, kv, bias=bias)
        self.v_proj, self.o_proj = nn.Linear(d, kv, bias=bias), nn.Linear(d, d, bias=False)

    def forward(self, x):
        S, hd = x.shape[0], self.head_dim
        q = self.q_proj(x).view(S, self.num_heads, hd).transpose(0, 1)
        k = self.k_proj(x).view(S, self.num_key_value_heads, hd).transpose(0, 1)
        v = self.v_proj(x).view(S, self.num_key_value_heads, hd).transpose(0, 1)
        inv_freq = 1.0 / (self.rope_theta ** (torch.arange(0, hd, 2).float() / hd))
        ang = torch.outer(torch.arange(S).float(), inv_freq)
        cos, sin = torch.cat((ang, ang), -1).cos(), torch.cat((ang, ang), -1).sin()
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        g = self.num_heads // self.num_key_value_heads
        ctx, w = _attend(q, k.repeat_interleave(g, 0), v.repeat_interleave(g, 0), hd, True)
        return self.o_proj(ctx.transpose(0, 1).reshape(S, -1)), w


class FusedQKV(nn.Module):
    def __init__(self, d, num_heads):
        super().__init__()
        self.num_heads, self.qkv, self.proj = num_heads, nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        S, d = x.shape
        hd = d // self.num_heads
        q, k, v = (t.view(S, self.num_heads, hd).transpose(0, 1) for t in self.qkv(x).chunk(3, -1))
        ctx, w = _attend(q, k, v, hd, False)
        return self.proj(ctx.transpose(0, 1).reshape(S, d)), w


class TutorialMHA(nn.Module):
    """The tutorials' MultiHeadAttention: W_query … W_value, out_proj, a causal buffer."""

    def __init__(self, d_in, d_out, context, num_heads, qkv_bias=False):
        super().__init__()
        self.num_heads, self.head_dim = num_heads, d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(0.0)
        self.register_buffer("mask", torch.triu(torch.ones(context, context), diagonal=1))

    def forward(self, x):
        S = x.shape[0]
        q, k, v = (m(x).view(S, self.num_heads, self.head_dim).transpose(0, 1)
                   for m in (self.W_query, self.W_key, self.W_value))
        ctx, w = _attend(q, k, v, self.head_dim, True)
        return self.out_proj(ctx.transpose(0, 1).reshape(S, -1)), w


class SelfAttentionV1(nn.Module):
    """The tutorials' first one: bare nn.Parameter(d_in, d_out) matrices, one head."""

    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        q, k, v = x @ self.W_query, x @ self.W_key, x @ self.W_value
        ctx, w = _attend(q[None], k[None], v[None], k.shape[-1], False)
        return ctx[0], w


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyModel(nn.Module):
    def __init__(self, vocab=50, d=16, heads=2, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))

    def forward(self, ids):
        S = ids.shape[-1]
        x = self.emb(ids)
        for b in self.blocks:
            x = b(x, _causal(S))
        return x
