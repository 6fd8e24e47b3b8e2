"""Named tensors → which is W_q … b_o: the weights reader's families (docs/engine.md,
"Trained weights in"), for a module's parameters and for files alike.

    layer_prefixes(names)                  # ['h.0.attn.', 'h.1.attn.'] in natural order
    propose(tensors, prefix, xw=set())     # {role: x·W array}, the family's name

A tensor is transposed (nn.Linear's out × in) unless it is bare (an nn.Parameter
of d_in × d_out, W_q …), a GPT-2 Conv1D (c_attn, c_proj) or named in `xw` (the
module reader knows each parameter's owner). Fused tensors are cut into thirds
along their output axis: Q, K, V.
"""
from __future__ import annotations

import re

import numpy as np

OUT_NAMES = ("o_proj", "out_proj", "dense", "output.dense", "out", "proj", "c_proj", "W_o")

# family: (Q, K, V names, or one fused name), output names, "linear" | "xw" for how they are stored
FAMILIES = [
    ("q_proj", ("q_proj", "k_proj", "v_proj"), OUT_NAMES, "linear"),
    ("query", ("query", "key", "value"), OUT_NAMES, "linear"),
    ("W_query", ("W_query", "W_key", "W_value"), ("out_proj",), "linear"),
    ("in_proj", ("in_proj",), ("out_proj",), "linear"),
    ("qkv", ("qkv",), OUT_NAMES, "linear"),
    ("qkv_proj", ("qkv_proj",), OUT_NAMES, "linear"),
    ("Wqkv", ("Wqkv",), OUT_NAMES, "linear"),
    ("to_qkv", ("to_qkv",), OUT_NAMES, "linear"),
    ("c_attn", ("c_attn",), ("c_proj",), "xw"),
    ("W_q", ("W_q", "W_k", "W_v"), ("W_o",), "xw"),
]
_Q_NAMES = sorted({f[1][0] for f in FAMILIES}, key=len, reverse=True)


def _natural(s):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def layer_prefixes(names):
    """Every prefix before a known Q name, in natural order (layer 2 before 10)."""
    found = set()
    for n in names:
        for q in _Q_NAMES:
            for suffix in (q + ".weight", q + "_weight", q):
                if n == suffix or n.endswith("." + suffix):
                    found.add(n[: len(n) - len(suffix)])
    return sorted(found, key=_natural)


def _weight(t, prefix, base):
    """(array, stored_as_parameter) for `base` under prefix: base.weight, base_weight or bare base."""
    for name, bare in ((prefix + base + ".weight", False), (prefix + base + "_weight", False), (prefix + base, True)):
        if name in t:
            return name, np.asarray(t[name], dtype=np.float32), bare
    return None, None, False


def _bias(t, prefix, base):
    for name in (prefix + base + ".bias", prefix + base + "_bias"):
        if name in t:
            return np.asarray(t[name], dtype=np.float32).reshape(-1)
    return None


def _xw(name, w, bare, how, kinds):
    """x·W orientation of one weight: kinds[name] ("linear" or "xw") when the owner is known."""
    if w.ndim == 1:
        return w.reshape(1, -1)
    kind = kinds.get(name) or ("xw" if bare else how)
    return w if kind == "xw" else w.T


def propose(t, prefix="", kinds=None, width_in=None):
    """(roles, family) of the family that finds most roles for this prefix; roles are x·W arrays.

    kinds: name → "linear" | "xw" for tensors whose owner is known (a module's
    nn.Linear or Conv1D). width_in: d_model when known; a c_attn stored out × in
    (nanoGPT's nn.Linear, read from a file) is then recognised by its shape.
    """
    kinds = dict(kinds or {})
    best, best_n = ({}, None), -1
    for fam, qkv, outs, how in FAMILIES:
        roles = _family_roles(t, prefix, qkv, outs, how, kinds, width_in)
        if roles is not None and len(roles) > best_n:
            best, best_n = (roles, fam), len(roles)
    return best


def _family_roles(t, prefix, qkv, outs, how, kinds, width_in):
    roles = {}
    if len(qkv) == 3:
        for role, base in zip(("q", "k", "v"), qkv):
            name, w, bare = _weight(t, prefix, base)
            if w is None:
                return None
            roles["W_" + role] = _xw(name, w, bare, how, kinds)
            b = _bias(t, prefix, base)
            if b is not None:
                roles["b_" + role] = b
    else:
        name, w, bare = _weight(t, prefix, qkv[0])
        if w is None or w.ndim != 2:
            return None
        if how == "xw" and name not in kinds and width_in and w.shape == (3 * width_in, width_in):
            how = "linear"  # nanoGPT: c_attn and c_proj are nn.Linear (out × in)
        w = _xw(name, w, bare, how, kinds)
        if w.shape[1] % 3:
            return None
        n = w.shape[1] // 3
        roles.update(W_q=w[:, :n], W_k=w[:, n:2 * n], W_v=w[:, 2 * n:])
        b = _bias(t, prefix, qkv[0])
        if b is not None and b.size % 3 == 0:
            m = b.size // 3
            roles.update(b_q=b[:m], b_k=b[m:2 * m], b_v=b[2 * m:])
    for base in outs:
        name, w, bare = _weight(t, prefix, base)
        if w is not None and w.ndim == 2:
            roles["W_o"] = _xw(name, w, bare, how, kinds)
            b = _bias(t, prefix, base)
            if b is not None:
                roles["b_o"] = b
            break
    return roles
