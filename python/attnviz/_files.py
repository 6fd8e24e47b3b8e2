"""Files and named tensors → a state, with the mapping the app's File → Open weights…
would propose (_mapping.py): the first layer unless layer= says which, one head
unless num_heads= says how many, the tutorial's tokens and seeded embedding unless
x and tokens are given.

    file_state("state.json")                 # a state, as saved by the app or View.save
    file_state("model.safetensors", layer=3) # a state file, or trained weights
    tensors_state(mha.state_dict(), "…")     # a PyTorch state dict or np.load(...) of .npz
"""
from __future__ import annotations

import json
import os

import numpy as np

from . import _messages as msg
from ._mapping import FAMILIES, layer_prefixes, propose
from ._modules import _mask_is_causal, _np, _pad_row, pick_sequence, tokens_for
from ._state import MAX_TOKENS, State, read_safetensors


def file_state(path, x=None, tokens=None, **options):
    path = os.fspath(path)
    ext = os.path.splitext(path)[1].lower()
    if ext == ".json":
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    if ext == ".safetensors":
        with open(path, "rb") as f:
            data = f.read()
        st = State.from_safetensors(data)
        if st is not None:
            return st.dict
        return tensors_state(read_safetensors(data)[1], path, x=x, tokens=tokens, **options)
    if ext == ".npz":
        with np.load(path) as z:
            return tensors_state({k: z[k] for k in z.files}, path, x=x, tokens=tokens, **options)
    if ext == ".npy":
        name = os.path.splitext(os.path.basename(path))[0]
        return tensors_state({name: np.load(path)}, path, x=x, tokens=tokens, **options)
    raise msg.error("file_kind", path=path, ext=ext or "a file without an extension")


def tensors_state(tensors, label, x=None, tokens=None, layer=None, num_heads=None, causal=None,
                  key_padding_mask=None, attn_mask=None, training=None, batch_index=None):
    t = {k: _np(v) for k, v in tensors.items()}
    prefixes = layer_prefixes(t)
    if not prefixes:
        raise msg.error("no_mapping", path=label, families=", ".join(f[1][0] for f in FAMILIES),
                        names=", ".join(list(t)[:12]) or "none")
    if layer is None:
        prefix = prefixes[0]
    elif isinstance(layer, int) and -len(prefixes) <= layer < len(prefixes):
        prefix = prefixes[layer]
    elif layer in prefixes or (isinstance(layer, str) and layer + "." in prefixes):
        prefix = layer if layer in prefixes else layer + "."
    else:
        raise msg.error("layer_choice", path=label, n=len(prefixes), layers=", ".join(p or "(top)" for p in prefixes))
    X = pick_sequence(x, batch_index) if x is not None else None
    roles, fam = propose(t, prefix, width_in=X.shape[1] if X is not None else None)
    d, width = roles["W_q"].shape
    heads = int(num_heads or 1)
    st = {"d_model": d, "d_out": width, "num_heads": heads,
          "qkv_bias": all(k in roles for k in ("b_q", "b_k", "b_v")),
          "out_proj": "W_o" in roles, "out_bias": "b_o" in roles}
    st["weights"] = {k: v for k, v in roles.items() if k.startswith("W_") or st["qkv_bias"] or k == "b_o"}
    kv_width = roles["W_k"].shape[1]
    if kv_width != width and width % heads == 0 and kv_width % (width // heads) == 0:
        st["num_kv_heads"] = kv_width // (width // heads)
    if X is not None:
        if X.shape[1] != d:
            raise msg.error("shape", name="x", got=tuple(X.shape), expected=(X.shape[0], d),
                            why=("%s's W_q reads d_model = %d" % (prefix or label, d),
                                 "%s 的 W_q 读入 d_model = %d" % (prefix or label, d)))
        if X.shape[0] > MAX_TOKENS:
            raise msg.error("too_long", n=X.shape[0], limit=MAX_TOKENS)
        st["embedding"] = {"values": X}
        st["tokens"] = tokens_for(tokens, X.shape[0])
    elif tokens is not None:
        st["tokens"] = [str(v) for v in tokens]
    S = len(st.get("tokens", ["Once", "upon", "a", "time", "there"]))
    if attn_mask is not None:
        st["causal"] = _mask_is_causal(attn_mask, S)
    if causal is not None:
        st["causal"] = bool(causal)
    if key_padding_mask is not None:
        st["key_padding"] = _pad_row(key_padding_mask, batch_index, S)
    return st
